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
        write(route, figures: ExportSummary(route: route, summary: summary), format: format)
    }

    /// The route in `format`, with the points inside `privacyZones` at its start and end
    /// left out (``PrivacyTrim`` says exactly what is removed, and which figures are then
    /// computed from the points left or withheld). With no zones this is
    /// ``data(for:summary:format:)``.
    /// - Throws: ``RouteLogError`` `.invalidArgument` when every point lies inside a zone:
    ///   an empty track is never written.
    public static func data(for route: Route, summary: RouteSummary? = nil, format: RouteExportFormat,
                            privacyZones: [PrivacyZone]) throws -> Data {
        let trim = PrivacyTrim(route, zones: privacyZones)
        guard let kept = trim.route else { throw PrivacyTrim.nothingLeft(summary?.id) }
        return write(kept, figures: ExportSummary(route: kept, summary: summary, trimmed: trim.removedPoints > 0),
                     format: format)
    }

    private static func write(_ route: Route, figures: ExportSummary, format: RouteExportFormat) -> Data {
        switch format {
        case .gpx: return GPXWriter.write(route, name: figures.name)
        case .geojson: return GeoJSONWriter.write(route, summary: figures)
        case .csv: return CSVWriter.write(route)
        case .json: return RouteJSONWriter.write(route, summary: figures)
        }
    }

    /// Route `id` of `store` in `format`, with the points inside the privacy zones at its
    /// start and end left out: `privacyZones` and, unless `storedZones` is false, the
    /// zones kept in the store's settings (``StoreSettings/privacyZones``).
    /// - Throws: ``RouteLogError`` `.notFound` for an unknown id; `.invalidArgument` when
    ///   every point lies inside a zone; the store's read errors.
    public static func data(for id: RouteID, in store: RouteStore, format: RouteExportFormat,
                            privacyZones: [PrivacyZone] = [], storedZones: Bool = true) throws -> Data {
        let zones = try store.exportZones(adding: privacyZones, stored: storedZones)
        return try data(for: store.route(id), summary: store.summary(id), format: format, privacyZones: zones)
    }

    /// The file name a route is exported to: `route-<id>.<extension>`. Made from the id
    /// alone (digits), never from anything read from a file, so it cannot leave the
    /// export directory.
    public static func fileName(for id: RouteID, format: RouteExportFormat) -> String {
        "route-\(id.rawValue).\(format.fileExtension)"
    }

    /// Writes every route of `store` into `directory` (created if missing), one file a
    /// route, each written atomically. Existing files of the same name are replaced.
    /// Each route's points inside the privacy zones at its start and end are left out:
    /// `privacyZones` and, unless `storedZones` is false, the zones kept in the store's
    /// settings. A route lying wholly inside the zones gets no file (and an older file of
    /// its name is left as it is).
    /// - Returns: The files written, in the order of ``RouteStore/summaries()`` (a route
    ///   deleted while the export runs has none).
    /// - Throws: ``RouteLogError`` `.io` when the directory or a file cannot be written;
    ///   `.invalidArgument` when `directory` is a file. A route that cannot be read
    ///   (damaged, or in a segment this process may not open) does not stop the export:
    ///   every other route is written, then `.corrupted` (or `.io`) is thrown naming each
    ///   route left out, with the first one's file and offset.
    @discardableResult
    public static func exportAll(from store: RouteStore, to directory: URL, format: RouteExportFormat,
                                 privacyZones: [PrivacyZone] = [], storedZones: Bool = true) throws -> [URL] {
        let zones = try store.exportZones(adding: privacyZones, stored: storedZones)
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
        var unreadable: [UnreadableRoute] = []
        for summary in try store.summaries() {
            let url = directory.appendingPathComponent(fileName(for: summary.id, format: format))
            let read: Route?
            do {
                read = try UnreadableRoute.read(summary.id, of: store, noting: &unreadable)
            } catch let error as RouteLogError where error.code == .notFound {
                continue  // deleted since the listing (an app may be writing the store)
            }
            guard let route = read else { continue }
            let trim = PrivacyTrim(route, zones: zones)
            guard let kept = trim.route else { continue }
            let bytes = write(kept, figures: ExportSummary(route: kept, summary: summary, trimmed: trim.removedPoints > 0),
                              format: format)
            do {
                try bytes.write(to: url, options: .atomic)
            } catch {
                // Say what the export did before it stopped: the files already written
                // stay, and routes already found unreadable are not lost from the report.
                var done = "\(written.count) route file(s) were written before it"
                if !unreadable.isEmpty {
                    done += ", and \(unreadable.count) route(s) could not be read (\(unreadable.map(\.id.description).joined(separator: ", ")))"
                }
                throw RouteLogError(.io, "cannot write the export file: \(error.localizedDescription); \(done)", path: url.path)
            }
            written.append(url)
        }
        if let first = unreadable.first {
            let ids = unreadable.map(\.id.description).joined(separator: ", ")
            throw RouteLogError(first.error.code,
                                "\(written.count) route file(s) were written, but \(unreadable.count) route(s) could not be read and have none (\(ids)); the first: \(first.error.message)",
                                path: first.error.path, offset: first.error.offset, errno: first.error.errno)
        }
        return written
    }
}
