// Generated from README.md by `swift run readme-examples`: do not edit. After
// changing a ```swift block of the README or the comments before it, run
// ROUTELOG_UPDATE_GOLDEN=1 swift test --filter ReadmeExamples (or swift run readme-examples).
//
// Each ```swift block is the body of one function, after the context its
// `<!-- example-context: ... -->` comment gives. The code is the README's, except that
// imports move to the top, a line that only names a value is assigned to `_`, and
// each name declared and not used later (and each var) is read once (`_ = name`),
// so that it compiles without warnings.
//
// Not compiled:
// - readmeExample1 (Adding RouteLog to an app): a fragment of Package.swift: PackageDescription is not a module tests can import

import Foundation
import RouteLog

// The library
func readmeExample2() async throws {
    let locations = [(lat: 45.4642, lon: 9.19, time: Date(), alt: 120.0)], lastMonth = Date()

    let store = try RouteStore(at: URL(fileURLWithPath: "Routes.routelog"))

    // Save: validated first (NaN, out-of-range coordinates, timestamps outside
    // 1970...2200 are refused before anything is written), durable when it returns.
    let points = locations.map {
        TrackPoint(latitude: $0.lat, longitude: $0.lon, timestamp: $0.time, altitude: $0.alt)
    }
    let id = try store.save(Route(points: points, metadata: RouteMetadata(calories: 310)))

    // List and totals come from the index: no coordinates are read.
    for summary in try store.summaries(from: lastMonth, to: nil) {
        print(summary.startDate, summary.distance, summary.duration)
    }
    let weeks = try store.weeklyTotals()      // weeks start on Monday unless a calendar says otherwise
    _ = weeks
    let route = try store.route(id)           // exactly the saved points, at stored precision
    _ = route

    // Edit and delete append small records; compaction reclaims the space later
    // (automatically by default).
    try store.edit(id, RouteEdit(shift: 7 * 86_400, name: "Sunday hike"))
    try store.delete(id)

    // Inspect and check.
    let report = try store.verify()           // every checksum, index against segments
    _ = report
    print(try store.statistics().bytesPerPoint)
}

// Recording a route as it grows
func readmeExample3() async throws {
    let store = try Given.store(), point = Given.point
    let recorder = try store.startRecording(metadata: RouteMetadata(name: "Hike"),
                                            flushPolicy: .init(points: 10, interval: 10))
    try recorder.append(point)                // each location update; validated at once
    try recorder.addSplit(Split(unit: .kilometre, pointIndex: 612, elapsedTime: 731))
    try recorder.flush()                      // when the app goes to the background
    let id = try recorder.finish()            // an ordinary route, now in summaries()
    _ = id

    // At the next launch, after a crash:
    for recording in try store.unfinishedRecordings() {   // every flushed point and split
        let recorder = try store.resumeRecording(recording.id)  // append more, finish or discard
        _ = recorder
    }
}

// The async API
func readmeExample4() async throws {
    let (store, _) = try Given.storeWithWalk(), route = try store.route(store.summaries()[0].id)
    let id = try await store.async.save(route)
    let rows = try await store.async.summaries()
    _ = rows
    let walk = try await store.async.route(id)
    _ = walk
    try await store.async.edit(id, RouteEdit(name: "Lake loop"))
    try await store.async.delete(id)
    let report = try await store.async.compact()        // also verify(progress:) and backup(to:)
    _ = report
}

// Observing changes
func readmeExample5() async throws {
    let store = try Given.store(); func reload(_ id: RouteID) {}; func remove(_ id: RouteID) {}; func refreshLiveTrack() {}
    for try await change in store.changes {
        switch change {
        case .saved(let id), .edited(let id): reload(id)
        case .deleted(let id): remove(id)
        case .recordingStarted, .recordingFlushed, .recordingFinished, .recordingDiscarded: refreshLiveTrack()
        case .compacted: break                      // the files changed, nothing a reader sees
        }
    }
}

// Observing changes
func readmeExample6() async throws {
    let store = try Given.store(); func show(_ rows: [RouteSummary]) {}
    for try await rides in store.observeSummaries(matching: { $0.name?.contains("ride") == true },
                                                  sortedBy: { $0.distance > $1.distance }) {
        show(rides)                                  // the current list first, then one per change
    }
    for try await total in store.observe({ try $0.totals().distance }) { print(total) }
}

// Backups
func readmeExample7() async throws {
    let store = try Given.store()
    let report = try store.backup(to: URL(fileURLWithPath: "/Volumes/Backup/Routes.routelog"))
    print(report.routeCount, report.segmentsCopied, report.segmentsReused, report.bytesCopied)
}

// Queries, stats and previews
func readmeExample8() async throws {
    let (store, id) = try Given.storeWithWalk()
    let s = try store.summary(id)
    _ = s.stats?.movingTime        // seconds moving (steps of at least 0.3 m/s)
    _ = s.stats?.elevationGain     // metres, changes under 3 m ignored (RouteStats.elevationNoiseThreshold)
    _ = s.stats?.maxSpeed          // m/s: the points' own speed, else the best 5 s window's median
    _ = s.stats?.averageHeartRate  // nil when no point has one; cadence likewise
    _ = s.preview?.coordinates     // at most 64 points, both ends kept; s.preview?.tolerance in metres
}

// Queries, stats and previews
func readmeExample9() async throws {
    let (store, _) = try Given.storeWithWalk(), start = Date(timeIntervalSince1970: 0), end = Date()
    var q = RouteQuery(from: start, to: end)          // or RouteQuery(DateInterval)
    _ = q
    q.activities = [.ride]
    q.tags = ["commute"]                               // every tag given
    q.nameContains = "cafe"                            // ignores case and diacritics
    q.passesThrough = BoundingBox(southWest: .init(latitude: 45.46, longitude: 9.18),
                                  northEast: .init(latitude: 45.47, longitude: 9.20))
    q.sort = .distance; q.ascending = false; q.limit = 20; q.offset = 0
    let page = try store.summaries(matching: q)
    _ = page
    let deleted = try store.deleteRoutes(matching: q) // one all-or-nothing batch
    _ = deleted
    let months = try store.totals(by: .month, calendar: .current)
    _ = months
    let weeks = try store.totals(by: .week)            // Monday first unless the calendar says otherwise
    _ = weeks
}

// Queries, stats and previews
func readmeExample10() async throws {
    let (store, id) = try Given.storeWithWalk(), s = try store.summary(id)
    let simple = try store.route(id, tolerance: 20)   // metres; 0 returns every point
    _ = simple
    let polyline = try RouteExporter.encodedPolyline(s.preview!.coordinates, precision: 5)
    _ = polyline
}

// Importing GPX
func readmeExample11() async throws {
    let store = try Given.store(), url = Given.gpxFile, folder = Given.gpxFolder
    let report = try GPXImporter.importFile(url, into: store)        // one file, all or nothing
    print(report.summaryLine); report.notes.forEach { print("  " + $0) }

    let outcomes = GPXImporter.importFiles(GPXImporter.gpxFiles(in: folder), into: store)
    _ = outcomes
    let parsed = try GPXImporter.read(contentsOf: url)                // routes + report, no store
    _ = parsed
}

// Importing FIT and TCX
func readmeExample12() async throws {
    let store = try Given.store(), url = Given.gpxFile, urls = [url]
    let report = try RouteImporter.importFile(url, into: store)    // GPX, TCX or FIT, by content
    _ = report
    let outcomes = RouteImporter.importFiles(urls, into: store)    // each file all or nothing
    _ = outcomes
    var options = RouteImportOptions()
    _ = options
    options.importsDespiteBadCRC = true                            // routelog import --ignore-crc
    let parsed = try FITImporter.read(contentsOf: url, options: options)   // or TCXImporter
    print(parsed.report.sports)                                    // ["running"]
}

// Exporting
func readmeExample13() async throws {
    let (store, id) = try Given.storeWithWalk(), folder = try Given.emptyFolder()
    let data = try RouteExporter.data(for: id, in: store, format: .gpx)   // .gpx .geojson .csv .json
    _ = data
    let files = try RouteExporter.exportAll(from: store, to: folder, format: .geojson)
    _ = files
}

// Privacy zones
func readmeExample14() async throws {
    let (store, id) = try Given.storeWithWalk(), folder = try Given.emptyFolder()
    let home = try PrivacyZone(center: Coordinate(latitude: 45.4642, longitude: 9.19), radius: 300)
    let gpx = try RouteExporter.data(for: id, in: store, format: .gpx, privacyZones: [home])
    _ = gpx
    try RouteExporter.exportAll(from: store, to: folder, format: .geojson, privacyZones: [home])
}

// Privacy zones
func readmeExample15() async throws {
    let store = try Given.store(), home = try Given.home
    try store.updateSettings { $0.privacyZones = [home] }   // at most 64 zones
    let zones = try store.settings().privacyZones
    _ = zones
}

// Migrating the old keyed archive
func readmeExample16() async throws {
    let store = try Given.store(), archiveURL = Given.legacyArchive
    let report = try LegacyArchiveMigrator.migrate(archiveURL, into: store)
    report.notes.forEach { print($0) }
}

// From phones to a warehouse
func readmeExample17() async throws {
    let (store, _) = try Given.storeWithWalk(), folder = try Given.emptyFolder()
    let report = try ParquetExporter.export(store, to: folder, options: .init(partitioning: .month))
    print(report.routeCount, report.pointCount, report.bytes)
}

/// The examples ReadmeExamplesRunTests runs; the others are only compiled.
let readmeExamplesToRun: [RunnableReadmeExample] = [
    RunnableReadmeExample(number: 4, section: "The async API", run: readmeExample4),
    RunnableReadmeExample(number: 8, section: "Queries, stats and previews", run: readmeExample8),
    RunnableReadmeExample(number: 9, section: "Queries, stats and previews", run: readmeExample9),
    RunnableReadmeExample(number: 10, section: "Queries, stats and previews", run: readmeExample10),
    RunnableReadmeExample(number: 11, section: "Importing GPX", run: readmeExample11),
    RunnableReadmeExample(number: 13, section: "Exporting", run: readmeExample13),
    RunnableReadmeExample(number: 14, section: "Privacy zones", run: readmeExample14),
    RunnableReadmeExample(number: 15, section: "Privacy zones", run: readmeExample15),
    RunnableReadmeExample(number: 16, section: "Migrating the old keyed archive", run: readmeExample16),
    RunnableReadmeExample(number: 17, section: "From phones to a warehouse", run: readmeExample17),
]
