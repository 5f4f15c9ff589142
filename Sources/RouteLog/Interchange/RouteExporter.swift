import Foundation

/// The formats a route can be written in.
public enum RouteExportFormat: String, Sendable, CaseIterable {
    /// GPX 1.1, valid against the official schema.
    case gpx
    /// An RFC 7946 GeoJSON Feature.
    case geojson
    /// CSV with a header row, one point a line.
    case csv
    /// One JSON object with the summary, splits and every point.
    case json

    /// The file name extension, without the dot.
    public var fileExtension: String { rawValue }
}

/// Writes routes as GPX, GeoJSON, CSV or JSON, one at a time or a whole store into a
/// directory.
///
/// ```swift
/// let gpx = RouteExporter.data(for: route, format: .gpx)
/// let files = try RouteExporter.exportAll(from: store, to: folder, format: .geojson)
/// ```
public enum RouteExporter {
    /// The route in `format`. With the store's `summary`, the exported figures are the
    /// store's (id, app distance, calories); without, they are computed from the route.
    public static func data(for route: Route, summary: RouteSummary? = nil,
                            format: RouteExportFormat) -> Data {
        let figures = ExportSummary(route: route, summary: summary)
        switch format {
        case .gpx: return GPXWriter.write(route, name: summary?.name)
        case .geojson: return GeoJSONWriter.write(route, summary: figures)
        case .csv: return CSVWriter.write(route)
        case .json: return RouteJSONWriter.write(route, summary: figures)
        }
    }

    /// Route `id` of `store` in `format`.
    /// - Throws: ``RouteLogError`` `.notFound` for an unknown id; the store's read errors.
    public static func data(for id: RouteID, in store: RouteStore, format: RouteExportFormat) throws -> Data {
        try data(for: store.route(id), summary: store.summary(id), format: format)
    }

    /// The file name a route is exported to: `route-<id>.<extension>`. Made from the id
    /// alone (digits), never from anything read from a file, so it cannot leave the
    /// export directory.
    public static func fileName(for id: RouteID, format: RouteExportFormat) -> String {
        "route-\(id.rawValue).\(format.fileExtension)"
    }

    /// Writes every route of `store` into `directory` (created if missing), one file a
    /// route, each written atomically. Existing files of the same name are replaced.
    /// - Returns: The files written, in the order of ``RouteStore/summaries()``.
    /// - Throws: ``RouteLogError`` `.io` when the directory or a file cannot be written;
    ///   `.invalidArgument` when `directory` is a file.
    @discardableResult
    public static func exportAll(from store: RouteStore, to directory: URL,
                                 format: RouteExportFormat) throws -> [URL] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw RouteLogError(.invalidArgument, "the export target is a file, not a directory", path: directory.path)
            }
        } else {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw RouteLogError(.io, "cannot create the export directory: \(error.localizedDescription)",
                                    path: directory.path)
            }
        }
        var written: [URL] = []
        for summary in try store.summaries() {
            let url = directory.appendingPathComponent(fileName(for: summary.id, format: format))
            let bytes = try data(for: summary.id, in: store, format: format)
            do {
                try bytes.write(to: url, options: .atomic)
            } catch {
                throw RouteLogError(.io, "cannot write the export file: \(error.localizedDescription)", path: url.path)
            }
            written.append(url)
        }
        return written
    }
}
