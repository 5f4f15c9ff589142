import Foundation
import Testing
@testable import RouteLog

/// CSV export: a header row, one line a point, empty fields for what is absent.
@Suite struct CSVExportTests {
    @Test func headerRowsAndValuesReadBack() throws {
        var points = (0..<6).map { TrackPoint.sample($0) }
        points[1].altitude = nil
        points[1].heartRate = nil
        let route = RouteCodec.quantize(Route(points: points, segmentStarts: [4]))
        let text = String(decoding: RouteExporter.data(for: route, format: .csv), as: UTF8.self)
        var lines = text.components(separatedBy: "\n")
        #expect(lines.last == "")
        lines.removeLast()
        #expect(lines.count == 7)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(header == ["timestamp", "latitude", "longitude", "altitude", "horizontalAccuracy",
                           "verticalAccuracy", "speed", "course", "heartRate", "cadence", "segment"])
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.allSatisfy { $0.count == header.count })
        #expect(rows.map { $0[10] } == ["0", "0", "0", "0", "1", "1"])
        #expect(rows[1][3] == "" && rows[1][8] == "")
        for (row, point) in zip(rows, route.points) {
            #expect(Double(row[1]) == point.latitude && Double(row[2]) == point.longitude)
            #expect(row[0] == ISO8601Time.format(point.timestamp))
            #expect(ISO8601Time.parse(row[0][...]) == point.timestamp)
        }
        #expect(rows[3][6] == "-1")
    }
}
