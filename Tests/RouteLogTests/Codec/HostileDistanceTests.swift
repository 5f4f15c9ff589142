import Foundation
import Testing
@testable import RouteLog

/// A route is valid anywhere on the globe, so one can jump half way round it at every
/// step. What a save computes must not grow with the distance travelled: a kilometre
/// mark for every kilometre crossed would make billions of them (a few gigabytes and
/// minutes of CPU for a few thousand points).
@Suite struct HostileDistanceTests {
    /// Peak resident bytes of this process so far (VmHWM); nil without /proc.
    static func peakResidentBytes() -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { $0.split(separator: " ").compactMap { Int64($0) }.first }.map { $0 * 1024 }
    }

    /// 2,000 steps of about 13,300 km each: 26,600,000 km, where a mark per kilometre
    /// and per mile would be 43 million splits (about a gigabyte).
    static func globeHopping(_ count: Int) -> Route {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        return Route(points: (0..<count).map { i in
            TrackPoint(latitude: 0, longitude: i % 2 == 0 ? 0 : 120, timestamp: start.addingTimeInterval(Double(i) * 60))
        })
    }

    @Test(.enabled(if: peakResidentBytes() != nil, "needs /proc/self/status (Linux) to read the peak memory"))
    func aSaveAcrossTheGlobeCostsNoMemoryForItsDistance() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let route = Self.globeHopping(2_000)
        let before = try #require(Self.peakResidentBytes())
        let id = try store.save(route)
        let grown = try #require(Self.peakResidentBytes()) - before
        #expect(grown < 256 << 20, "the save raised the peak memory by \(grown >> 20) MB")
        let summary = try store.summary(id)
        #expect(summary.distance > 2.6e10 && summary.distance < 2.7e10)
        #expect(try store.route(id).points.count == 2_000)
        #expect(try store.route(id).splits.isEmpty)  // the app gave none; none are made up
        try store.close()
    }

    @Test(.enabled(if: peakResidentBytes() != nil, "needs /proc/self/status (Linux) to read the peak memory"))
    func exportsAcrossTheGlobeCostNoMemoryForTheirDistance() throws {
        let route = Self.globeHopping(2_000)
        // A zone round the first point trims it, so the export recomputes its figures
        // (and splits) from the points left.
        let zone = try PrivacyZone(center: Coordinate(latitude: 0, longitude: 0), radius: 100)
        let before = try #require(Self.peakResidentBytes())
        let trimmed = try RouteExporter.data(for: route, format: .json, privacyZones: [zone])
        let whole = RouteExporter.data(for: route, format: .geojson)
        let grown = try #require(Self.peakResidentBytes()) - before
        #expect(grown < 256 << 20, "the exports raised the peak memory by \(grown >> 20) MB")
        #expect(!trimmed.isEmpty && !whole.isEmpty)
        // 1,999 points are left, 1,998 steps of about 13,300 km: no splits, not 42 million.
        let trim = PrivacyTrim(route, zones: [zone])
        #expect(trim.route?.points.count == 1_999)
        #expect(trim.route?.splits.isEmpty == true)
        // A trimmed route of ordinary length still gets its splits.
        let walk = Route(points: (0..<2_000).map { i in
            TrackPoint(latitude: Double(i) * 1e-4, longitude: 0, timestamp: Date(timeIntervalSince1970: 1_767_225_600 + Double(i)))
        })
        #expect(PrivacyTrim(walk, zones: [zone]).route?.splits.count == 21 + 13)
    }
}
