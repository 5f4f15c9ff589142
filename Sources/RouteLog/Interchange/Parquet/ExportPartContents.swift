import Foundation

/// Which routes one part of a Parquet export holds (its `routes.parquet` and
/// `points.parquet`), written beside them as `_routelog_export.json` (format-spec.md,
/// "Export: GeoParquet"): a later export into the same place that cannot read a route
/// keeps the earlier tables only if this says they hold it, or if it is missing.
///
/// ```json
/// {"routeIDs":[[1,40],[42,42]]}
/// ```
/// Ascending, disjoint ranges of route ids, first and last included. The leading `_`
/// keeps dataset readers (pyarrow, Spark) from taking it for data.
struct ExportPartContents: Equatable {
    static let fileName = "_routelog_export.json"

    /// The ids, ascending.
    var ids: [RouteID]

    /// The contents recorded in `folder`, or nil when there is no such file or it is not
    /// one this writes (then nothing is known of the tables there).
    static func read(in folder: URL) -> Set<RouteID>? {
        let path = folder.appendingPathComponent(fileName).path
        guard OutputNames.isRegularFile(path), let data = FileManager.default.contents(atPath: path),
              data.count <= Self.largestFile,
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let ranges = object["routeIDs"] as? [[NSNumber]] else { return nil }
        var ids = Set<RouteID>()
        var total = 0
        for range in ranges {
            guard range.count == 2, let first = UInt64(exactly: range[0].int64Value),
                  let last = UInt64(exactly: range[1].int64Value), first <= last, last - first < UInt64(Self.largestCount) else { return nil }
            total += Int(last - first) + 1
            guard total <= Self.largestCount else { return nil }
            for id in first...last { ids.insert(RouteID(id)) }
        }
        return ids
    }

    /// The JSON bytes: ranges of consecutive ids.
    var json: Data {
        var ranges: [[UInt64]] = []
        for id in ids.map(\.rawValue).sorted() {
            if let last = ranges.last?.last, last &+ 1 == id {
                ranges[ranges.count - 1][1] = id
            } else {
                ranges.append([id, id])
            }
        }
        let body = ranges.map { "[\($0[0]),\($0[1])]" }.joined(separator: ",")
        return Data("{\"routeIDs\":[\(body)]}\n".utf8)
    }

    /// Writes the file into `folder` under a temporary name, then renames it in place.
    /// - Throws: ``RouteLogError`` `.io` when it cannot be written.
    func write(into folder: URL) throws {
        let url = folder.appendingPathComponent(Self.fileName)
        do {
            try json.write(to: url, options: .atomic)
        } catch {
            throw RouteLogError(.io, "cannot write the export's list of routes: \(error.localizedDescription)", path: url.path)
        }
    }

    /// Removes the file from `folder`, before its tables change: a list that does not
    /// match the tables must never be left.
    /// - Throws: ``RouteLogError`` `.io` when it exists and cannot be removed.
    static func remove(in folder: URL) throws {
        let path = folder.appendingPathComponent(fileName).path
        guard unlink(path) == 0 || errno == ENOENT else {
            throw RouteLogError.io("removing the export's list of routes", path: path, errno: errno)
        }
    }

    /// More ids than any store holds: a larger file is not one this wrote.
    private static let largestCount = 100_000_000
    private static let largestFile = 64 << 20
}
