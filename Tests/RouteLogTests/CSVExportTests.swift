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
        var lines = text.components(separatedBy: "\r\n")
        #expect(lines.last == "")
        lines.removeLast()
        #expect(lines.count == 7)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(header == ["segment", "time", "latitude", "longitude", "altitude", "horizontal_accuracy",
                           "vertical_accuracy", "speed", "course", "heart_rate", "cadence"])
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.allSatisfy { $0.count == header.count })
        #expect(rows.map { $0[0] } == ["1", "1", "1", "1", "2", "2"])
        #expect(rows[1][4] == "" && rows[1][9] == "")
        for (row, point) in zip(rows, route.points) {
            #expect(Double(row[2]) == point.latitude && Double(row[3]) == point.longitude)
            #expect(row[1] == ISO8601Time.format(point.timestamp))
            #expect(ISO8601Time.parse(row[1][...]) == point.timestamp)
        }
        #expect(rows[3][7] == "-1")
    }
}
