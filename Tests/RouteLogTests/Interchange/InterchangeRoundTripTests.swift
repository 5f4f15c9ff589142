import Foundation
import Testing
@testable import RouteLog

/// Import, export GPX, import again: the same points at store precision.
@Suite struct InterchangeRoundTripTests {
    @Test(arguments: GPXImporter.gpxFiles(in: InterchangeFixtures.gpxDirectory).map(\.lastPathComponent))
    func gpxRoundTripKeepsEveryQuantizedPoint(file: String) throws {
        let first = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx(file)).routes.map(RouteCodec.quantize)
        for route in first {
            let exported = RouteExporter.data(for: route, format: .gpx)
            let again = try GPXImporter.read(data: exported, source: file).routes
            try #require(again.count == 1)
            let second = RouteCodec.quantize(again[0])
            #expect(second.points == route.points, "\(file)")
            #expect(second.segmentStarts == route.segmentStarts)
            #expect(second.metadata == route.metadata)
        }
    }

    @Test func everyPointFieldSurvivesIncludingInvalidSpeedAndAccuracies() throws {
        let route = RouteCodec.quantize(Route(points: (0..<10).map { TrackPoint.sample($0) },
                                              metadata: RouteMetadata(name: "A & B", calories: 12.5, distance: 999),
                                              segmentStarts: [5]))
        let again = try #require(GPXImporter.read(data: RouteExporter.data(for: route, format: .gpx)).routes.first)
        #expect(RouteCodec.quantize(again).points == route.points)
        #expect(again.metadata == route.metadata)
        #expect(again.points[3].speed == -1 && again.points[3].course == -1)
    }

    @Test func throughTheStoreAndBack() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"))
        let report = try GPXImporter.importFile(InterchangeFixtures.gpx("georust__garmin_with_extensions.gpx"), into: store)
        let id = try #require(report.routeIDs.first)
        let stored = try store.route(id)
        let gpx = try RouteExporter.data(for: id, in: store, format: .gpx)
        let reread = try #require(GPXImporter.read(data: gpx).routes.first)
        #expect(RouteCodec.quantize(reread).points == stored.points)
        #expect(reread.segmentStarts == stored.segmentStarts)
        var allowing = GPXImportOptions()
        allowing.allowsDuplicates = true
        let second = try GPXImporter.importFile(InterchangeFixtures.gpx("georust__garmin_with_extensions.gpx"), into: store,
                                                options: allowing)
        let secondID = try #require(second.routeIDs.first)
        #expect(secondID != id)
        #expect(try store.route(secondID).points == stored.points)
        try store.close()
    }
}
