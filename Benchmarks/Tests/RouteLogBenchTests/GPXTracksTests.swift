import Foundation
import RouteLog
import Testing
@testable import routelog_bench

@Suite struct GPXTracksTests {
    @Test func readsPointsTimesAndSegments() throws {
        let gpx = """
            <gpx><trk><trkseg>
            <trkpt lat="45.1" lon="9.2"><ele>120.5</ele><time>2020-02-29T23:59:59Z</time></trkpt>
            <trkpt lon='9.3' lat='45.2'><time>2020-03-01T00:00:00.250Z</time></trkpt>
            </trkseg><trkseg>
            <trkpt lat="45.3" lon="9.4"><time>2020-03-01T02:00:01+02:00</time></trkpt>
            <trkpt lat="45.4" lon="9.5"></trkpt>
            </trkseg></trk></gpx>
            """
        let route = try #require(GPXTracks.parse(Array(gpx.utf8)))
        #expect(route.points.count == 3)
        #expect(route.segmentStarts == [2])
        #expect(route.points[0].altitude == 120.5)
        #expect(route.points[1].latitude == 45.2 && route.points[1].longitude == 9.3)
        #expect(route.points[0].timestamp == Date(timeIntervalSince1970: 1_583_020_799))
        #expect(route.points[1].timestamp == Date(timeIntervalSince1970: 1_583_020_800.25))
        #expect(route.points[2].timestamp == Date(timeIntervalSince1970: 1_583_020_801))
    }
}
