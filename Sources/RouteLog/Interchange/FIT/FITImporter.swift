import Foundation

/// Reads FIT files (Garmin, Coros, Suunto, Wahoo...) into routes.
///
/// Each FIT file with positioned `record` messages becomes one route (a chain of FIT
/// files back to back gives one route per file that has any). What is kept from each
/// message is listed in the README ("Importing FIT and TCX"); power has no column in
/// RouteLog and is dropped, laps are counted, not stored. Times, gaps and jumps follow
/// ``RouteImportOptions`` exactly as for GPX.
///
/// The file is streamed in 64 KiB chunks: memory grows with the points kept, never with
/// the file. A malformed file (truncated, a length running past the end, a data message
/// of a local type never defined, a bad CRC...) throws ``RouteLogError/Code/invalidArgument``
/// naming the byte offset, and nothing from the file is returned or saved. A file whose
/// only fault is its CRC can be read anyway with
/// ``RouteImportOptions/importsDespiteBadCRC``.
///
/// ```swift
/// let result = try FITImporter.read(contentsOf: url)
/// print(result.report.summaryLine, result.report.sports)
/// ```
public enum FITImporter {
    /// Reads a FIT file from disk.
    /// - Throws: ``RouteLogError`` `.notFound` when the file cannot be read,
    ///   `.invalidArgument` for a directory or a FIFO, socket or device (never waited
    ///   on), or with the byte offset when it is not a valid FIT file.
    public static func read(contentsOf url: URL, options: RouteImportOptions = .init()) throws -> RouteImport {
        let file = try ImportInputFile.open(url, what: "FIT file")
        let handle = FileHandle(fileDescriptor: file.descriptor, closeOnDealloc: true)
        defer { try? handle.close() }
        return try read(FITByteSource(handle: handle, length: file.size), source: url.path, options: options)
    }

    /// Reads FIT data held in memory; `source` names it in the report and in errors.
    /// - Throws: ``RouteLogError`` `.invalidArgument` with the byte offset when it is not
    ///   a valid FIT file.
    public static func read(data: Data, source: String = "FIT data",
                            options: RouteImportOptions = .init()) throws -> RouteImport {
        try read(FITByteSource(data: data), source: source, options: options)
    }

    /// Reads a FIT file and saves its routes in one all-or-nothing batch.
    /// - Returns: The report, with ``RouteImportReport/routeIDs`` filled in.
    /// - Throws: ``RouteLogError`` as ``read(contentsOf:options:)``, `.invalidArgument`
    ///   naming the route and point the store refuses, or the store's own errors. In
    ///   every case nothing from the file was saved.
    public static func importFile(_ url: URL, into store: RouteStore,
                                  options: RouteImportOptions = .init()) throws -> RouteImportReport {
        try RouteImporter.save(read(contentsOf: url, options: options), from: url, into: store, options: options)
    }

    static func read(_ input: FITByteSource, source: String, options: RouteImportOptions) throws -> RouteImport {
        var decoder = FITDecoder(input, source: source, ignoresBadCRC: options.importsDespiteBadCRC)
        var builder = FITActivityBuilder(maximumPoints: options.maximumPoints,
                                         maximumRoutes: options.limits.routesPerFile)
        try decoder.decode(into: &builder)
        var activities = builder.activities
        var report = RouteImportReport(source: source, format: .fit, version: builder.firstProtocolVersion ?? "2.0")
        report.chainedFiles = decoder.fileCount
        report.ignoredCRCMismatches = decoder.ignoredCRCMismatches
        if decoder.unlistedCRCMismatches > 0 {
            report.ignoredCRCMismatches.append("\(decoder.unlistedCRCMismatches) more in later files of the chain, not listed")
        }
        let skipped = builder.skippedWithoutPoints
        report.pointsWithoutPositionSkipped += skipped.recordsWithoutPosition
        report.lapsRead += skipped.laps
        report.developerFieldsSkipped += skipped.developerFields
        if decoder.fileCount > 1 { report.filesWithoutPoints += builder.filesWithoutPoints }
        builder = FITActivityBuilder(maximumPoints: 0)  // so that the points below are not shared
        var routes: [Route] = []
        for index in activities.indices {
            var path = GPXPath(name: nil, isPlannedRoute: false)
            swap(&path, &activities[index].path)
            let activity = activities[index]
            report.pointsWithoutPositionSkipped += activity.recordsWithoutPosition
            report.lapsRead += activity.laps
            report.developerFieldsSkipped += activity.developerFields
            guard !path.isEmpty else { continue }  // the builder keeps no such activity
            report.powerReadingsDropped += activity.powerReadings
            report.pausesKept += activity.pauses
            let sports = activity.sports
            let kind = FITSport.activityKind(sports)
            path.activity = kind
            routes.append(GPXImporter.makeRoute(&path, fileTime: activity.timeCreated, options: options,
                                                report: &report))
            let named = sports.filter { $0 != 3 }.reduce(into: [String]()) { names, sport in
                let name = FITSport.name(sport)
                if !names.contains(name) { names.append(name) }
            }
            report.sports.append(named.isEmpty ? nil : named.joined(separator: "+"))
            report.activities.append(kind?.name)
        }
        report.routeCount = routes.count
        report.pointCount = routes.reduce(0) { $0 + $1.points.count }
        return RouteImport(routes: routes, report: report)
    }
}
