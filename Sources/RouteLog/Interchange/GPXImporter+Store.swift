import Foundation

extension GPXImporter {
    /// Reads a GPX file and saves its routes in one all-or-nothing batch.
    ///
    /// ```swift
    /// let report = try GPXImporter.importFile(url, into: store)
    /// print(report.summaryLine); report.notes.forEach { print("  " + $0) }
    /// ```
    /// - Returns: The report, with ``GPXImportReport/routeIDs`` filled in.
    /// - Throws: ``RouteLogError``: `.invalidArgument` with line and column for a
    ///   malformed file, or naming the route and point the store refuses; `.notFound`
    ///   for a missing file; the store's own errors. In every case nothing from the
    ///   file was saved.
    public static func importFile(_ url: URL, into store: RouteStore,
                                  options: GPXImportOptions = .init()) throws -> GPXImportReport {
        let result = try read(contentsOf: url, options: options)
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
        if !result.routes.isEmpty { report.routeIDs = try store.save(result.routes) }
        return report
    }

    /// Imports several files, each all or nothing: a bad file is reported and leaves
    /// the store as it was, and the next file is still imported.
    ///
    /// ```swift
    /// let outcomes = GPXImporter.importFiles(GPXImporter.gpxFiles(in: folder), into: store)
    /// ```
    public static func importFiles(_ urls: [URL], into store: RouteStore,
                                   options: GPXImportOptions = .init()) -> [GPXFileOutcome] {
        urls.map { url in
            do {
                return GPXFileOutcome(file: url, result: .success(try importFile(url, into: store, options: options)))
            } catch let error as RouteLogError {
                return GPXFileOutcome(file: url, result: .failure(error))
            } catch {
                return GPXFileOutcome(file: url, result: .failure(RouteLogError(.io, "\(error)", path: url.path)))
            }
        }
    }

    /// Imports every `.gpx` file directly inside `directory`, in name order, each all
    /// or nothing (see ``importFiles(_:into:options:)``).
    ///
    /// ```swift
    /// for outcome in GPXImporter.importDirectory(fixtures, into: store) {
    ///     print(outcome.file.lastPathComponent, outcome.result)
    /// }
    /// ```
    public static func importDirectory(_ directory: URL, into store: RouteStore,
                                       options: GPXImportOptions = .init()) -> [GPXFileOutcome] {
        importFiles(gpxFiles(in: directory), into: store, options: options)
    }

    /// The `.gpx` files directly inside `directory`, sorted by name (empty when the
    /// directory cannot be read).
    public static func gpxFiles(in directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.lowercased().hasSuffix(".gpx") }.sorted()
            .map { directory.appendingPathComponent($0) }
    }
}
