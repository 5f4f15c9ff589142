import Foundation
import Testing
@testable import RouteLog

/// Privacy zones on export: what is removed, what every format then says, and what is refused.
@Suite struct PrivacyZoneExportTests {
    /// A real walk (gpxgo__visnjan.gpx, 413 points, 4.45 km), at store precision.
    static func realTrack() throws -> Route {
        RouteCodec.quantize(try #require(GPXImporter.read(contentsOf: InterchangeFixtures.gpx("gpxgo__visnjan.gpx")).routes.first))
    }

    static func zone(at c: Coordinate, _ radius: Double) throws -> PrivacyZone {
        try PrivacyZone(center: c, radius: radius)
    }

    @Test func aZoneAtTheFirstPointRemovesTheLeadingPointsInsideItAndNoOthers() throws {
        let route = try Self.realTrack()
        let home = try Self.zone(at: route.points[0].coordinate, 300)
        let trim = PrivacyTrim(route, zones: [home])
        let kept = try #require(trim.route)
        let inside = route.points.map { Geodesic.distance(home.center, $0.coordinate) <= 300 }
        let firstOutside = try #require(inside.firstIndex(of: false))
        let lastOutside = try #require(inside.lastIndex(of: false))
        #expect(firstOutside > 5, "the walk starts well inside 300 m of its first point")
        #expect(trim.removedAtStart == firstOutside)
        #expect(trim.removedAtEnd == route.points.count - 1 - lastOutside)
        #expect(kept.points == Array(route.points[firstOutside...lastOutside]))
        #expect(Geodesic.distance(home.center, kept.points[0].coordinate) > 300)
        #expect(Geodesic.distance(home.center, kept.points[kept.points.count - 1].coordinate) > 300)
        #expect(kept.metadata.name == route.metadata.name)
    }

    @Test func everyFormatBeginsAndEndsOutsideTheZones() throws {
        let route = try Self.realTrack()
        let zones = [try Self.zone(at: route.points[0].coordinate, 250),
                     try Self.zone(at: route.points[route.points.count - 1].coordinate, 150)]
        let kept = try #require(PrivacyTrim(route, zones: zones).route)
        func outside(_ latitude: Double, _ longitude: Double) -> Bool {
            !zones.contains { $0.contains(Coordinate(latitude: latitude, longitude: longitude)) }
        }
        // GPX, read back by the importer.
        let gpx = try RouteExporter.data(for: route, format: .gpx, privacyZones: zones)
        let reread = try #require(GPXImporter.read(data: gpx).routes.first)
        #expect(reread.points.count == kept.points.count)
        #expect(outside(reread.points[0].latitude, reread.points[0].longitude))
        #expect(outside(reread.points.last!.latitude, reread.points.last!.longitude))
        // GeoJSON: the line and the figures.
        let geojson = try #require(try JSONSerialization.jsonObject(with: RouteExporter.data(for: route, format: .geojson, privacyZones: zones)) as? [String: Any])
        let line = try #require((geojson["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        #expect(line.count == kept.points.count)
        #expect(outside(line[0][1], line[0][0]) && outside(line[line.count - 1][1], line[line.count - 1][0]))
        let properties = try #require(geojson["properties"] as? [String: Any])
        #expect(properties["pointCount"] as? Int == kept.points.count)
        #expect(abs((properties["distance"] as? Double ?? 0) - RouteMetrics.distance(of: kept.points)) < 0.001)
        #expect(properties["startDate"] as? String == ISO8601Time.format(kept.points[0].timestamp))
        #expect(properties["calories"] == nil, "calories cover the removed part: withheld")
        let bbox = try #require(geojson["bbox"] as? [Double])
        #expect(bbox[1] == kept.points.map(\.latitude).min() && bbox[3] == kept.points.map(\.latitude).max())
        // CSV: a header and one line per point left.
        let csv = String(decoding: try RouteExporter.data(for: route, format: .csv, privacyZones: zones), as: UTF8.self)
        let rows = csv.split(separator: "\n").dropFirst()
        #expect(rows.count == kept.points.count)
        let first = rows.first!.split(separator: ",")
        #expect(outside(Double(first[1])!, Double(first[2])!))
        // JSON: the points and splits counted from the new start.
        let json = try #require(try JSONSerialization.jsonObject(with: RouteExporter.data(for: route, format: .json, privacyZones: zones)) as? [String: Any])
        #expect((json["points"] as? [Any])?.count == kept.points.count)
        let splits = try #require(json["splits"] as? [[String: Any]])
        #expect(splits.count == RouteMetrics.splits(of: kept.points).count)
        #expect(json["appDistance"] == nil)
    }

    @Test func theStoreFiguresAreWithheldOnlyWhenPointsWereRemoved() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.url.appendingPathComponent("s.routelog"))
        var route = try Self.realTrack()
        route.metadata.calories = 321
        let id = try store.save(route)
        let before = try store.route(id)
        let far = try Self.zone(at: Coordinate(latitude: -45, longitude: -120), 500)
        let untouched = try #require(try JSONSerialization.jsonObject(with: RouteExporter.data(for: id, in: store, format: .geojson, privacyZones: [far])) as? [String: Any])
        #expect((untouched["properties"] as? [String: Any])?["calories"] as? Double == 321, "nothing removed: the store's figures stand")
        let home = try Self.zone(at: route.points[0].coordinate, 300)
        let trimmed = try #require(try JSONSerialization.jsonObject(with: RouteExporter.data(for: id, in: store, format: .geojson, privacyZones: [home])) as? [String: Any])
        let properties = try #require(trimmed["properties"] as? [String: Any])
        #expect(properties["calories"] == nil)
        #expect(properties["id"] as? Int == Int(id.rawValue))
        let gpx = String(decoding: try RouteExporter.data(for: id, in: store, format: .gpx, privacyZones: [home]), as: UTF8.self)
        #expect(!gpx.contains("routelog:calories"))
        #expect(try store.route(id) == before, "the stored route is untouched")
    }

    @Test func pointsInsideAZoneInTheMiddleStay() throws {
        // Out from home, past the shop, back home: only the two ends are trimmed.
        let points = (0..<61).map { i -> TrackPoint in
            let metres = Double(30 - abs(i - 30)) * 50
            return TrackPoint(latitude: 45 + metres / 111_132, longitude: 9, timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 30))
        }
        let route = Route(points: points)
        let home = try Self.zone(at: points[0].coordinate, 120)
        let shop = try Self.zone(at: points[20].coordinate, 60)
        let trim = PrivacyTrim(route, zones: [home, shop])
        #expect(trim.removedAtStart == 3 && trim.removedAtEnd == 3)
        #expect(try #require(trim.route).points.count == 55, "the points near the shop, in the middle, stay")
    }

    @Test func aRouteWhollyInsideIsRefusedAndSkippedByExportAll() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.url.appendingPathComponent("s.routelog"))
        let route = try Self.realTrack()
        let inside = try store.save(route)
        let elsewhere = try store.save(Route(points: (0..<5).map { TrackPoint.sample($0) }))
        let everything = try Self.zone(at: route.points[0].coordinate, 20_000)
        #expect(PrivacyTrim(route, zones: [everything]).route == nil)
        #expect(throws: RouteLogError.self) { try RouteExporter.data(for: route, format: .gpx, privacyZones: [everything]) }
        do {
            _ = try RouteExporter.data(for: inside, in: store, format: .csv, privacyZones: [everything])
            Issue.record("a route wholly inside a zone must be refused")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("route \(inside)") && error.message.contains("privacy zone"))
        }
        let files = try RouteExporter.exportAll(from: store, to: dir.url.appendingPathComponent("out"), format: .gpx, privacyZones: [everything])
        #expect(files.map(\.lastPathComponent) == [RouteExporter.fileName(for: elsewhere, format: .gpx)])
    }

    @Test func segmentStartsAndSplitsFollowThePointsLeft() throws {
        var route = try Self.realTrack()
        route.segmentStarts = [10, 200, 400]
        let home = try Self.zone(at: route.points[0].coordinate, 300)
        let trim = PrivacyTrim(route, zones: [home])
        let kept = try #require(trim.route)
        let shift = trim.removedAtStart
        #expect(shift > 10 && shift < 200)
        #expect(kept.segmentStarts == [200, 400].filter { $0 - shift < kept.points.count }.map { $0 - shift })
        #expect(kept.splits == RouteMetrics.splits(of: kept.points, segmentStarts: kept.segmentStarts))
        #expect(kept.splits.allSatisfy { $0.elapsedTime <= RouteMetrics.duration(of: kept.points) })
    }

    @Test func noZonesOrNothingInsideExportsTheRouteAsStored() throws {
        let route = try Self.realTrack()
        #expect(try RouteExporter.data(for: route, format: .geojson, privacyZones: []) == RouteExporter.data(for: route, format: .geojson))
        let far = try Self.zone(at: Coordinate(latitude: 0, longitude: 0), 1000)
        #expect(try RouteExporter.data(for: route, format: .json, privacyZones: [far]) == RouteExporter.data(for: route, format: .json))
    }

    @Test func badZonesAreRefusedWhereverTheyComeFrom() throws {
        let centre = Coordinate(latitude: 45, longitude: 9)
        for radius in [0, -5, .nan, .infinity, 100_001] {
            #expect(throws: RouteLogError.self, "radius \(radius)") { try PrivacyZone(center: centre, radius: radius) }
        }
        for c in [Coordinate(latitude: 91, longitude: 0), Coordinate(latitude: 0, longitude: -181), Coordinate(latitude: .nan, longitude: 0)] {
            #expect(throws: RouteLogError.self) { try PrivacyZone(center: c, radius: 100) }
        }
        let zone = try PrivacyZone(center: centre, radius: 250)
        #expect(try JSONDecoder().decode(PrivacyZone.self, from: JSONEncoder().encode(zone)) == zone)
        let forged = Data(#"{"center":{"latitude":45,"longitude":9},"radius":-1}"#.utf8)
        #expect(throws: RouteLogError.self) { try JSONDecoder().decode(PrivacyZone.self, from: forged) }
        #expect(zone.contains(Coordinate(latitude: 45 + 249 / 111_132.0, longitude: 9)))
        #expect(!zone.contains(Coordinate(latitude: 45 + 251 / 111_132.0, longitude: 9)))
    }
}
