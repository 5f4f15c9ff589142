import Foundation
import Testing
@testable import RouteLog

/// Where the interchange tests find their data.
enum InterchangeFixtures {
    /// The package root, found from this file's path.
    static let packageRoot = Fixtures.packageRoot
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

/// libxml2's xmllint, installed with apt-get when missing and possible.
enum XMLLint {
    static let schema = InterchangeFixtures.packageRoot.appendingPathComponent("../shared/data/schema/gpx-1.1.xsd")
        .standardizedFileURL

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (-1, "\(error)") }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// The path of xmllint, after trying `apt-get install libxml2-utils` if needed.
    static let path: String? = {
        if let found = which("xmllint") { return found }
        if getuid() == 0, let apt = which("apt-get") {
            print("note: xmllint is missing; installing libxml2-utils with apt-get")
            run(apt, ["update", "-qq"])
            run(apt, ["install", "-y", "-qq", "libxml2-utils"])
            if let found = which("xmllint") { return found }
        }
        print("note: xmllint (Debian package libxml2-utils) is missing and cannot be installed here "
            + "(needs root and apt-get): the GPX schema validation tests are skipped")
        return nil
    }()

    /// True when both xmllint and the official GPX 1.1 schema are at hand.
    static let available: Bool = {
        guard path != nil else { return false }
        if !FileManager.default.fileExists(atPath: schema.path) {
            print("note: \(schema.path) is absent: the GPX schema validation tests are skipped")
            return false
        }
        return true
    }()

    /// xmllint's verdict on `file` against the GPX 1.1 schema.
    static func validate(_ file: URL) -> (valid: Bool, output: String) {
        let result = run(path!, ["--noout", "--schema", schema.path, file.path])
        return (result.status == 0, result.output)
    }
}

extension TrackPoint {
    static func sample(_ i: Int, start: TimeInterval = 1_700_000_000) -> TrackPoint {
        TrackPoint(latitude: 47.3 + Double(i) * 0.0001, longitude: 8.5 + Double(i) * 0.00007,
                   timestamp: Date(timeIntervalSince1970: start + Double(i) * 2.5),
                   altitude: 400 + Double(i % 7), horizontalAccuracy: 5, verticalAccuracy: 3,
                   speed: i == 3 ? -1 : 1.4, course: i == 3 ? -1 : 45, heartRate: 120 + Double(i % 5),
                   cadence: 80)
    }
}
