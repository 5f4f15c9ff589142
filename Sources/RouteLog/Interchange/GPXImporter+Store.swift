import Foundation

extension GPXImporter {
    /// Reads a GPX file and saves its routes in one all-or-nothing batch
    /// (``RouteImporter/importFile(_:into:options:)`` does the same for any format).
    ///
    /// ```swift
    /// let report = try GPXImporter.importFile(url, into: store)
    /// print(report.summaryLine); report.notes.forEach { print("  " + $0) }
    /// ```
    /// - Returns: The report, with ``RouteImportReport/routeIDs`` filled in.
    /// - Throws: ``RouteLogError``: `.invalidArgument` with line and column for a
    ///   malformed file, or naming the route and point the store refuses; `.notFound`
    ///   for a missing file; the store's own errors. In every case nothing from the
    ///   file was saved.
    public static func importFile(_ url: URL, into store: RouteStore,
                                  options: GPXImportOptions = .init()) throws -> GPXImportReport {
        try RouteImporter.save(read(contentsOf: url, options: options), from: url, into: store, options: options)
    }

    /// Imports several files, each all or nothing: a bad file is reported and leaves
    /// the store as it was, and the next file is still imported.
    ///
    /// ```swift
    /// let outcomes = GPXImporter.importFiles(GPXImporter.gpxFiles(in: folder), into: store)
    /// ```
    public static func importFiles(_ urls: [URL], into store: RouteStore,
                                   options: GPXImportOptions = .init()) -> [GPXFileOutcome] {
        RouteImporter.outcomes(urls) { try importFile($0, into: store, options: options) }
    }

    /// Imports every `.gpx` file directly inside `directory`, in name order, each all
    /// or nothing (see ``importFiles(_:into:options:)``). A FIFO, socket or device named
    /// `.gpx` is not opened: its outcome is a `.invalidArgument` failure ("not a regular
    /// file"), and the other files are still imported.
    ///
    /// ```swift
    /// for outcome in GPXImporter.importDirectory(fixtures, into: store) {
    ///     print(outcome.file.lastPathComponent, outcome.result)
    /// }
    /// ```
    public static func importDirectory(_ directory: URL, into store: RouteStore,
                                       options: GPXImportOptions = .init()) -> [GPXFileOutcome] {
        RouteImporter.directoryOutcomes(RouteImporter.listing(directory).filter(isGPXName), isRouteFile: { _, _ in true },
                                        importOne: { try importFile($0, into: store, options: options) })
    }

    /// The `.gpx` files directly inside `directory`, sorted by name (empty when the
    /// directory cannot be read). A FIFO, socket or device is left out without being
    /// opened.
    public static func gpxFiles(in directory: URL) -> [URL] {
        RouteImporter.listing(directory).filter { isGPXName($0) && ImportInputFile.kind(atPath: $0.path) != .special }
    }

    private static func isGPXName(_ url: URL) -> Bool { url.lastPathComponent.lowercased().hasSuffix(".gpx") }
}
