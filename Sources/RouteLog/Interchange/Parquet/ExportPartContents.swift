import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// one this writes (then nothing is known of the tables there). Kept as ranges, so
    /// a forged file of huge ranges costs no more memory than its own bytes.
    static func read(in folder: URL) -> RouteRanges? {
        let path = folder.appendingPathComponent(fileName).path
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= Self.largestFile,
              let data = FileManager.default.contents(atPath: path), data.count <= Self.largestFile,
              let list = try? JSONDecoder().decode(Stored.self, from: data).routeIDs else { return nil }
        var ranges: [ClosedRange<UInt64>] = []
        ranges.reserveCapacity(list.count)
        for range in list {
            guard range.count == 2, range[0] <= range[1], ranges.last.map({ $0.upperBound < range[0] }) ?? true else { return nil }
            ranges.append(range[0]...range[1])
        }
        return RouteRanges(ranges: ranges)
    }

    /// The file's shape: whole numbers only (a fraction or a sign fails to decode).
    private struct Stored: Decodable {
        var routeIDs: [[UInt64]]
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

    /// Larger than any list this writes (a range is at most 43 bytes).
    private static let largestFile = 64 << 20
}

/// Ascending, disjoint ranges of route ids, as ``ExportPartContents`` reads them.
struct RouteRanges: Equatable {
    var ranges: [ClosedRange<UInt64>]

    /// Whether any of `ids` is in a range (a binary search each).
    func containsAny(of ids: Set<RouteID>) -> Bool {
        ids.contains { id in
            var low = 0, high = ranges.count
            while low < high {
                let middle = (low + high) / 2
                if ranges[middle].upperBound < id.rawValue { low = middle + 1 } else { high = middle }
            }
            return low < ranges.count && ranges[low].contains(id.rawValue)
        }
    }

    /// Every id (for tests; a forged list may name billions).
    func ids(atMost limit: Int) -> Set<RouteID>? {
        var all = Set<RouteID>()
        for range in ranges {
            guard all.count + Int(clamping: range.upperBound - range.lowerBound) < limit else { return nil }
            for id in range { all.insert(RouteID(id)) }
        }
        return all
    }
}
