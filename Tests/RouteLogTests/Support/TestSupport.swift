import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import RouteLog
import RouteLogSamples

extension RouteStore.Options {
    /// No automatic compaction, and a compaction that rewrites every sealed segment
    /// whatever its dead bytes: for tests of what a rewrite writes.
    static var rewritingEverySegment: Self {
        var options = Self(compaction: .manual)
        options.compactionRewriteThreshold = 0
        return options
    }

    /// ``rewritingEverySegment`` with segments of 8 KiB: a few walks fill several, so
    /// that a compaction replaces segments a reader knew.
    static var smallSegmentsRewrittenEveryTime: Self {
        var options = rewritingEverySegment
        options.segmentSizeLimit = 8 * 1024
        return options
    }
}

/// Removes every index file of the store at `url`, so that its next open rebuilds the
/// index from the segments; returns how many there were.
@discardableResult
func removeIndexFiles(of url: URL) throws -> Int {
    let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".rlidx") }
    for name in names { try FileManager.default.removeItem(at: url.appendingPathComponent(name)) }
    return names.count
}

/// A fresh directory under the system's temporary folder, removed when the test ends.
final class TemporaryDirectory: Sendable {
    let url: URL

    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("routelog-tests-\(safe)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func store(_ name: String = "store.routelog") -> URL { url.appendingPathComponent(name, isDirectory: true) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

enum Fixtures {
    /// Removes the store's index files, so that its next open replays the segments
    /// (and a writer's rebuilds the index).
    static func removeIndexFiles(in store: URL) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: store.path) where name.hasPrefix("index-") {
            try FileManager.default.removeItem(at: store.appendingPathComponent(name))
        }
    }

    /// The package root, found from this file's path.
    static let packageRoot: URL = {
        // The nearest folder above this file that holds Package.swift.
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path), url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url
    }()
    /// Real GPX tracks shared beside the project (some GPL-licensed, so never copied in).
    static let sharedGPX = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data/gpx")
    static var sharedGPXAvailable: Bool { FileManager.default.fileExists(atPath: sharedGPX.path) }

    static func sharedTrack(_ name: String) -> URL { sharedGPX.appendingPathComponent(name) }

    /// Every `<trkpt>` of a GPX file, in order, with `<ele>` and `<time>` when present:
    /// just enough of GPX for the store's own tests.
    static func trackPoints(_ url: URL) throws -> [TrackPoint] {
        let parser = XMLParser(data: try Data(contentsOf: url))
        let collector = TrackPointCollector()
        parser.delegate = collector
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
        return collector.points
    }

    static func sampleWalk(seed: UInt64 = 1, points: Int = 3600, start: Date = Date(timeIntervalSince1970: 1_767_225_600)) -> Route {
        var generator = WalkGenerator(seed: seed)
        return generator.walk(points: points, start: start)
    }
}

private final class TrackPointCollector: NSObject, XMLParserDelegate {
    var points: [TrackPoint] = []
    private var current: (lat: Double, lon: Double)?
    private var ele: Double?
    private var time: Date?
    private var text = ""
    private let iso = ISO8601DateFormatter()
    private let isoFraction: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        text = ""
        if name == "trkpt", let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init) {
            current = (lat, lon)
            ele = nil
            time = nil
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "ele" where current != nil: ele = Double(value)
        case "time" where current != nil: time = iso.date(from: value) ?? isoFraction.date(from: value)
        case "trkpt":
            if let c = current {
                points.append(TrackPoint(latitude: c.lat, longitude: c.lon,
                                         timestamp: time ?? Date(timeIntervalSince1970: 1_600_000_000 + Double(points.count)),
                                         altitude: ele))
            }
            current = nil
        default: break
        }
    }
}

/// Random routes that exercise every column, missing values, backwards time and
/// extreme coordinates.
struct RandomRoutes {
    var rng: SystemRandomNumberGenerator = .init()
    var seed: UInt64

    init(seed: UInt64) { self.seed = seed }

    mutating func next() -> Route {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        var g = SeededGenerator(state: seed)
        let count = Int.random(in: 1...400, using: &g)
        var t = Double.random(in: 0...7_000_000_000, using: &g)
        var points: [TrackPoint] = []
        for _ in 0..<count {
            t += Double.random(in: -2...30, using: &g)
            t = max(0, min(t, 7_258_000_000))
            func maybe(_ range: ClosedRange<Double>) -> Double? { Bool.random(using: &g) ? Double.random(in: range, using: &g) : nil }
            points.append(TrackPoint(
                latitude: Double.random(in: -90...90, using: &g), longitude: Double.random(in: -180...180, using: &g),
                timestamp: Date(timeIntervalSince1970: t), altitude: maybe(-500...9000),
                horizontalAccuracy: maybe(-1...100), verticalAccuracy: maybe(-1...100), speed: maybe(-1...80),
                course: maybe(-1...360), heartRate: maybe(0...220), cadence: maybe(0...200)))
        }
        let splits = (0..<Int.random(in: 0...5, using: &g)).map { _ in
            Split(unit: Bool.random(using: &g) ? .kilometre : .mile, pointIndex: Int.random(in: 0..<count, using: &g),
                  elapsedTime: Double.random(in: 0...100_000, using: &g))
        }
        let starts = count > 2 ? Array(Set((0..<3).map { _ in Int.random(in: 1..<count, using: &g) })).sorted() : []
        return Route(points: points, splits: splits,
                     metadata: RouteMetadata(name: Bool.random(using: &g) ? "Walk \(count) ✓" : nil,
                                             calories: Bool.random(using: &g) ? Double.random(in: 0...2000, using: &g) : nil),
                     segmentStarts: starts)
    }
}

/// The tests' seeded generator is the samples' one.
typealias SeededGenerator = SeededRandom

extension SeededRandom {
    init(state: UInt64) { self.init(seed: state) }
}

/// The names and sizes of the files in a directory, to show that nothing changed.
func directorySnapshot(_ url: URL) -> [String: Data] {
    var result: [String: Data] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] where name != "LOCK" {
        result[name] = FileManager.default.contents(atPath: url.appendingPathComponent(name).path)
    }
    return result
}

extension RouteStore {
    /// A read-only handle, as the tests open many.
    convenience init(readOnlyAt url: URL) throws {
        try self.init(at: url, options: .init(mode: .readOnly))
    }
}

extension Route {
    /// The route without the uuid a save gave it, to compare with the route as it was
    /// handed to the store.
    var withoutUUID: Route {
        var route = self
        route.metadata.uuid = nil
        return route
    }
}

extension RouteSummary {
    /// The summary with a fixed uuid, to compare stores that each drew their own.
    var withoutUUID: RouteSummary {
        var summary = self
        summary.uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        return summary
    }
}

extension RouteStore.Options {
    /// These options with no background sync of buffered saves when the store goes
    /// quiet: for tests that count syncs or build crash states from where the syncs were.
    func withoutQuietSync() -> Self {
        var options = self
        options.bufferedQuietSyncDelay = nil
        return options
    }
}

/// What the processor running the tests reports, from /proc/cpuinfo (Linux), for the
/// tests that check which path a C kernel chose.
enum TestProcessor {
    /// True when the first processor's flags include avx2 (false where /proc is absent).
    static let hasAVX2: Bool = {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
        return flags.split(separator: " ").contains("avx2")
    }()
}

/// Calls `body` with copies of `x` and `y` that start `offset` doubles into allocations
/// holding exactly `offset + count` doubles (NaN before the copy): the last value is the
/// allocation's last double, so a C kernel that reads past it is caught under
/// AddressSanitizer.
func withExactlySizedBuffers<R>(_ x: [Double], _ y: [Double], offset: Int,
                                _ body: (UnsafePointer<Double>, UnsafePointer<Double>) -> R) -> R {
    let px = UnsafeMutablePointer<Double>.allocate(capacity: offset + x.count)
    let py = UnsafeMutablePointer<Double>.allocate(capacity: offset + y.count)
    defer {
        px.deallocate()
        py.deallocate()
    }
    px.initialize(repeating: .nan, count: offset)
    py.initialize(repeating: .nan, count: offset)
    (px + offset).initialize(from: x, count: x.count)
    (py + offset).initialize(from: y, count: y.count)
    return body(px + offset, py + offset)
}
