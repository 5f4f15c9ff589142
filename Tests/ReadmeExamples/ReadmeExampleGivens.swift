import Foundation
import Testing
import RouteLog
import RouteLogSamples

/// One README example that ReadmeExamplesRunTests runs (the generated file lists them).
struct RunnableReadmeExample: Sendable, CustomTestStringConvertible {
    var number: Int
    var section: String
    var run: @Sendable () async throws -> Void
    var testDescription: String { "readmeExample\(number) (\(section))" }
}

/// What the README's examples use without defining it: their `<!-- example-context: -->`
/// comments name these. Everything an example writes goes into the folder that
/// ReadmeExamplesRunTests makes for it and removes afterwards.
enum Given {
    /// The run's scratch folder; nil outside ReadmeExamplesRunTests.
    @TaskLocal static var folder: URL?

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// The GPX fixtures (MIT, Apache-2.0 and BSD files, see Tests/Fixtures/ATTRIBUTION.md).
    static let gpxFolder = packageRoot.appendingPathComponent("Tests/Fixtures/gpx")
    /// A GPX file of one track.
    static let gpxFile = gpxFolder.appendingPathComponent("gpxpy__korita-zbevnica.gpx")
    /// The old app's keyed archive (tools/make_legacy_archive.py).
    static let legacyArchive = packageRoot.appendingPathComponent("Tests/Fixtures/legacy-archive.plist")
    /// One location update.
    static let point = TrackPoint(latitude: 45.4642, longitude: 9.19, timestamp: Date(timeIntervalSince1970: 1_700_000_000))
    /// The privacy zone the README calls `home`.
    static var home: PrivacyZone {
        get throws { try PrivacyZone(center: Coordinate(latitude: 45.4642, longitude: 9.19), radius: 300) }
    }

    /// A new, empty folder in the run's scratch folder.
    /// - Throws: outside a run, or when the folder cannot be made.
    static func emptyFolder() throws -> URL {
        guard let folder else { throw OutsideARun() }
        let url = folder.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Thrown by an example run outside ReadmeExamplesRunTests, which has no scratch folder.
    struct OutsideARun: Error {}

    /// A new, empty store in the run's scratch folder.
    static func store() throws -> RouteStore {
        try RouteStore(at: emptyFolder().appendingPathComponent("Routes.routelog"))
    }

    /// A new store holding one walk of an hour (the seeded walk of RouteLogSamples), and
    /// its id.
    static func storeWithWalk() throws -> (RouteStore, RouteID) {
        let store = try store()
        var walks = WalkGenerator(seed: 15)
        let id = try store.save(walks.walk(points: 3_600, start: Date(timeIntervalSince1970: 1_700_000_000)))
        return (store, id)
    }
}
