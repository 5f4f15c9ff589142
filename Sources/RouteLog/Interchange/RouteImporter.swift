import Foundation

/// Imports route files by what they hold: GPX, TCX or FIT, told apart by their first
/// bytes (``RouteFileKind/detect(_:)``), never by their names.
///
/// Every format gives the same ``RouteImportReport``, follows the same
/// ``RouteImportOptions``, and is all or nothing per file: a file that fails gives no
/// route and leaves the store as it was.
///
/// ```swift
/// let report = try RouteImporter.importFile(url, into: store)     // .gpx, .fit, .tcx or none
/// print(report.summaryLine); report.notes.forEach { print("  " + $0) }
/// let outcomes = RouteImporter.importFiles(urls, into: store)     // each all or nothing
/// ```
public enum RouteImporter {
    /// Reads a GPX, TCX or FIT file, whichever its content is.
    /// - Throws: ``RouteLogError`` `.notFound` when the file cannot be read,
    ///   `.invalidArgument` when it is none of the three formats or is malformed (with
    ///   line and column for XML, the byte offset for FIT).
    public static func read(contentsOf url: URL, options: RouteImportOptions = .init()) throws -> RouteImport {
        switch try RouteFileKind.detect(contentsOf: url) {
        case .gpx: return try GPXImporter.read(contentsOf: url, options: options)
        case .tcx: return try TCXImporter.read(contentsOf: url, options: options)
        case .fit: return try FITImporter.read(contentsOf: url, options: options)
        }
    }

    /// Reads GPX, TCX or FIT held in memory; `source` names it in the report and errors.
    /// - Throws: ``RouteLogError`` `.invalidArgument` as ``read(contentsOf:options:)``.
    public static func read(data: Data, source: String = "route data",
                            options: RouteImportOptions = .init()) throws -> RouteImport {
        guard let kind = RouteFileKind.detect(data) else {
            throw RouteLogError(.invalidArgument, RouteFileKind.unknownMessage(data), path: source)
        }
        switch kind {
        case .gpx: return try GPXImporter.read(data: data, source: source, options: options)
        case .tcx: return try TCXImporter.read(data: data, source: source, options: options)
        case .fit: return try FITImporter.read(data: data, source: source, options: options)
        }
    }

    /// Reads a GPX, TCX or FIT file and saves its routes in one all-or-nothing batch.
    /// - Returns: The report, with ``RouteImportReport/routeIDs`` filled in.
    /// - Throws: ``RouteLogError`` as ``read(contentsOf:options:)``, `.invalidArgument`
    ///   naming the route and point the store refuses, or the store's own errors. In
    ///   every case nothing from the file was saved.
    public static func importFile(_ url: URL, into store: RouteStore,
                                  options: RouteImportOptions = .init()) throws -> RouteImportReport {
        try save(read(contentsOf: url, options: options), from: url, into: store, options: options)
    }

    /// Imports several files, each all or nothing: a bad file is reported and leaves
    /// the store as it was, and the next file is still imported.
    public static func importFiles(_ urls: [URL], into store: RouteStore,
                                   options: RouteImportOptions = .init()) -> [RouteFileOutcome] {
        outcomes(urls) { try importFile($0, into: store, options: options) }
    }

    /// Imports every file directly inside `directory` whose content is GPX, TCX or FIT,
    /// in name order, each all or nothing (see ``importFiles(_:into:options:)``). A FIFO,
    /// socket or device in it is not opened: its outcome is a `.invalidArgument` failure
    /// ("not a regular file"), and the other files are still imported.
    public static func importDirectory(_ directory: URL, into store: RouteStore,
                                       options: RouteImportOptions = .init()) -> [RouteFileOutcome] {
        directoryOutcomes(listing(directory).filter { !$0.lastPathComponent.hasPrefix(".") }, isRouteFile: { url, kind in
            kind == .regular && (try? RouteFileKind.detect(contentsOf: url)) != nil
        }, importOne: { try importFile($0, into: store, options: options) })
    }

    /// The regular files directly inside `directory` (a symbolic link to one counts)
    /// whose first bytes are GPX, TCX or FIT, sorted by name; hidden files are passed
    /// over, and a FIFO, socket or device is never opened (empty when the directory
    /// cannot be read).
    public static func routeFiles(in directory: URL) -> [URL] {
        listing(directory).filter { url in
            !url.lastPathComponent.hasPrefix(".") && ImportInputFile.kind(atPath: url.path) == .regular
                && (try? RouteFileKind.detect(contentsOf: url)) != nil
        }
    }

    /// The names directly inside `directory`, sorted, as URLs (empty when it cannot be read).
    static func listing(_ directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    /// The outcomes of a directory import over `entries`: a FIFO, socket or device fails
    /// without being opened; any other entry is imported when `isRouteFile` accepts it
    /// (given its kind, nil when nothing is there), else passed over.
    static func directoryOutcomes(_ entries: [URL], isRouteFile: (URL, ImportInputFile.Kind?) -> Bool,
                                  importOne: (URL) throws -> RouteImportReport) -> [RouteFileOutcome] {
        entries.flatMap { url -> [RouteFileOutcome] in
            let kind = ImportInputFile.kind(atPath: url.path)
            if kind == .special {
                return [RouteFileOutcome(file: url, result: .failure(ImportInputFile.notRegularFile(url.path)))]
            }
            return isRouteFile(url, kind) ? outcomes([url], importOne) : []
        }
    }

    /// Checks every route the store would refuse before saving any, then saves them all
    /// in one batch.
    static func save(_ result: RouteImport, from url: URL, into store: RouteStore,
                     options: RouteImportOptions) throws -> RouteImportReport {
        for (index, route) in result.routes.enumerated() {
            do {
                try RouteValidation.validate(route)
            } catch let error as RouteLogError {
                throw RouteLogError(.invalidArgument,
                                    "route \(index + 1) of the file cannot be stored: \(error.message); "
                                        + "nothing from this file was imported", path: url.path)
            }
        }
        var report = result.report
        let routes = options.allowsDuplicates ? result.routes : try newRoutes(result.routes, in: store, report: &report)
        if !routes.isEmpty {
            report.routeIDs = try store.save(routes)
            report.savedPointCount = routes.reduce(0) { $0 + $1.points.count }
        }
        return report
    }

    /// `routes` without those the store already holds or that repeat an earlier one of
    /// the same file; each left out is named in `report`.
    static func newRoutes(_ routes: [Route], in store: RouteStore, report: inout RouteImportReport) throws -> [Route] {
        var kept: [Route] = []
        var seen: [RoutePositions: Int] = [:]
        for (index, route) in routes.enumerated() {
            let positions = RoutePositions(route)
            if let positions, let earlier = seen[positions] {
                report.duplicates.append(DuplicateRoute(routeNumber: index + 1, earlierRouteNumber: earlier))
            } else if let existing = try store.existingRoute(equalTo: route) {
                report.duplicates.append(DuplicateRoute(routeNumber: index + 1, existingID: existing))
            } else {
                kept.append(route)
                if let positions { seen[positions] = index + 1 }
            }
        }
        return kept
    }

    static func outcomes(_ urls: [URL], _ importOne: (URL) throws -> RouteImportReport) -> [RouteFileOutcome] {
        urls.map { url in
            do {
                return RouteFileOutcome(file: url, result: .success(try importOne(url)))
            } catch let error as RouteLogError {
                return RouteFileOutcome(file: url, result: .failure(error))
            } catch {
                return RouteFileOutcome(file: url, result: .failure(RouteLogError(.io, "\(error)", path: url.path)))
            }
        }
    }
}
