import Foundation
import Testing
@testable import RouteLog

/// The real FIT and TCX files in `../shared/data/{fit,tcx}` (see SOURCES.md there). They
/// are read in place and never copied into the project (their licences differ); when
/// the folder is absent, the tests that need them are disabled with a note.
enum WatchFileFixtures {
    static let shared = Fixtures.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
    static let fitDirectory = shared.appendingPathComponent("fit")
    static let tcxDirectory = shared.appendingPathComponent("tcx")

    static let available: Bool = {
        let found = FileManager.default.fileExists(atPath: fitDirectory.appendingPathComponent("SOURCES.md").path)
            && FileManager.default.fileExists(atPath: tcxDirectory.appendingPathComponent("SOURCES.md").path)
        if !found {
            print("note: \(shared.path)/fit and /tcx are absent: the tests of real FIT and TCX files are skipped")
        }
        return found
    }()

    static let fitdecodeAvailable = available && PythonReaders.available("fitdecode")

    static func fit(_ name: String) -> URL { fitDirectory.appendingPathComponent(name) }
    static func tcx(_ name: String) -> URL { tcxDirectory.appendingPathComponent(name) }

    /// The names of the files with `suffix` in `directory`, sorted.
    static func names(in directory: URL, suffix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(suffix) }.sorted()
    }
}

/// A route's first and last point (UTC time to the second, latitude and longitude to
/// 1e-7 degree) and its duration in seconds, as an independent reader gives them.
struct RouteEnds: Sendable {
    var first: (time: String, latitude: Double, longitude: Double)
    var last: (time: String, latitude: Double, longitude: Double)
    var duration: TimeInterval

    init(_ first: (String, Double, Double), _ last: (String, Double, Double), _ duration: TimeInterval) {
        self.first = first
        self.last = last
        self.duration = duration
    }

    func check(_ route: Route, _ file: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (point, expected) in [(route.points.first, first), (route.points.last, last)] {
            guard let point else {
                Issue.record("\(file): no points", sourceLocation: sourceLocation)
                return
            }
            let time = String(ISO8601Time.format(point.timestamp).prefix(19)) + "Z"
            #expect(time == expected.time, "\(file)", sourceLocation: sourceLocation)
            #expect(abs(point.latitude - expected.latitude) < 6e-8 && abs(point.longitude - expected.longitude) < 6e-8,
                    "\(file): \(point.latitude), \(point.longitude)", sourceLocation: sourceLocation)
        }
        #expect(RouteMetrics.duration(of: route.points) == duration, "\(file)", sourceLocation: sourceLocation)
    }
}
