import Foundation
import Testing
@testable import RouteLog

/// Where the interchange tests find their data.
enum InterchangeFixtures {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Permissively licensed GPX files committed with the project.
    static let gpxDirectory = packageRoot.appendingPathComponent("Tests/Fixtures/gpx")
    /// The shared data folder next to the package (holds the GPL-licensed GPSBabel
    /// files, which are never copied into the project). Absent on most clones.
    static let sharedGPXDirectory = packageRoot.appendingPathComponent("../shared/data/gpx")
        .standardizedFileURL
    static let sharedDataAvailable: Bool = {
        let available = FileManager.default.fileExists(
            atPath: sharedGPXDirectory.appendingPathComponent("gpsbabel__dg100.gpx").path)
        if !available {
            print("note: \(sharedGPXDirectory.path) is absent: the tests of the GPL-licensed "
                + "GPSBabel fixtures (gpsbabel__*.gpx) are skipped")
        }
        return available
    }()

    /// A fixture by name: committed ones first, then the shared folder.
    static func gpx(_ name: String) -> URL {
        let local = gpxDirectory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: local.path) { return local }
        return sharedGPXDirectory.appendingPathComponent(name)
    }

    struct Reference: Decodable {
        struct RouteLength: Decodable {
            var points: Int
            var segments: Int
            var distance: Double
        }
        var files: [String: [RouteLength]]
        var pairs: [[Double]]
    }

    /// GeographicLib's distances, written by tools/geodesic_reference.py.
    static let reference: Reference = {
        let url = packageRoot.appendingPathComponent("Tests/Fixtures/geodesic-reference.json")
        // A missing or broken reference file must fail the tests, not skip them.
        return try! JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }()

    /// A fresh temporary directory, removed by the caller with `cleanUp`.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("routelog-interchange-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
