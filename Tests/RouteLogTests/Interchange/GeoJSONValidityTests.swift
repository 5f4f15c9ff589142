import Foundation
import Testing
@testable import RouteLog

/// Every GeoJSON export is valid for GEOS (shapely's `is_valid`) and for the `geojson`
/// package: every fixture track, the GPL tracks when ../shared is there, and forged
/// edge cases (one point, one-point segments, repeated points, a trimmed export).
@Suite struct GeoJSONValidityTests {
    static let readersPresent = PythonReaders.available("shapely") && PythonReaders.available("geojson")

    /// Prints one line per file that either reader calls invalid, with the reason.
    static let checker = """
    import json, sys
    import geojson, shapely.geometry
    from shapely.validation import explain_validity
    for path in sys.argv[1:]:
        text = open(path).read()
        feature = geojson.loads(text)
        if not feature.is_valid:
            print(path, "geojson:", feature.errors())
        shape = shapely.geometry.shape(json.loads(text)["geometry"])
        if not shape.is_valid:
            print(path, "shapely:", explain_validity(shape))
    print("checked", len(sys.argv) - 1)
    """

    /// The forged routes, by name.
    static func edgeCases() -> [(String, Route)] {
        let p = (0..<8).map { TrackPoint.sample($0) }
        var still = p[0]
        still.timestamp = p[0].timestamp.addingTimeInterval(5)
        return [
            ("one-point", Route(points: [p[0]])),
            ("one-point-segments", Route(points: Array(p[0..<5]), segmentStarts: [2, 3])),
            ("lone-first-and-last", Route(points: Array(p[0..<6]), segmentStarts: [1, 5])),
            ("all-one-place", Route(points: [p[0], still, still, p[0]])),
            ("every-segment-one-point", Route(points: Array(p[0..<3]), segmentStarts: [1, 2])),
            ("two-points-one-place", Route(points: [p[0], still])),
            ("repeated-points", Route(points: [p[0], p[0], p[1], p[1], p[2], p[2]])),
            ("a-segment-standing-still", Route(points: [p[0], p[1], p[2], still, still, still], segmentStarts: [3])),
            ("some-altitudes-missing", Route(points: p.enumerated().map { var q = $0.element; if $0.offset == 4 { q.altitude = nil }; return q })),
        ]
    }

    /// Every route of every fixture file that imports.
    static func fixtureRoutes() -> [(String, Route)] {
        var files = (try? FileManager.default.contentsOfDirectory(at: InterchangeFixtures.gpxDirectory, includingPropertiesForKeys: nil)) ?? []
        if InterchangeFixtures.sharedDataAvailable {
            files += ((try? FileManager.default.contentsOfDirectory(at: InterchangeFixtures.sharedGPXDirectory, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.lastPathComponent.hasPrefix("gpsbabel__") }
        }
        return files.filter { $0.pathExtension == "gpx" }.sorted { $0.path < $1.path }.flatMap { file in
            ((try? GPXImporter.read(contentsOf: file).routes) ?? []).enumerated().map {
                ("\(file.deletingPathExtension().lastPathComponent)-\($0.offset + 1)", RouteCodec.quantize($0.element))
            }
        }
    }

    @Test(.enabled(if: readersPresent, "needs shapely and geojson in .build/pyenv (make pyenv)"))
    func everyExportIsValidForShapelyAndGeojson() throws {
        let dir = TemporaryDirectory()
        let fixtures = Self.fixtureRoutes()
        #expect(fixtures.count >= 30, "the fixture tracks import")
        var paths: [String] = []
        for (name, route) in fixtures + Self.edgeCases() {
            let url = dir.url.appendingPathComponent(name + ".geojson")
            try RouteExporter.data(for: route, format: .geojson).write(to: url)
            paths.append(url.path)
            // Trimmed by a zone at the start too, when something is left.
            if route.points.count > 2, let zone = try? PrivacyZone(center: route.points[0].coordinate, radius: 200),
               let trimmed = try? RouteExporter.data(for: route, format: .geojson, privacyZones: [zone]) {
                let trimmedURL = dir.url.appendingPathComponent(name + "-private.geojson")
                try trimmed.write(to: trimmedURL)
                paths.append(trimmedURL.path)
            }
        }
        let output = try PythonReaders.script(Self.checker, paths)
        #expect(output == "checked \(paths.count)\n", "invalid exports:\n\(output)")
    }

    @Test func aLineNeedsTwoPlacesAndWhatIsLeftOutIsCounted() throws {
        func geometry(_ route: Route) throws -> (type: String, coordinates: Any, properties: [String: Any]) {
            let json = try #require(try JSONSerialization.jsonObject(with: RouteExporter.data(for: route, format: .geojson)) as? [String: Any])
            let geometry = try #require(json["geometry"] as? [String: Any])
            return (try #require(geometry["type"] as? String), try #require(geometry["coordinates"]),
                    try #require(json["properties"] as? [String: Any]))
        }
        let cases = Dictionary(uniqueKeysWithValues: Self.edgeCases())
        let one = try geometry(cases["one-point"]!)
        #expect(one.type == "Point" && one.properties["pointsNotInGeometry"] == nil)
        let lone = try geometry(cases["one-point-segments"]!)
        #expect(lone.type == "MultiLineString")
        #expect((lone.coordinates as? [[[Double]]])?.map(\.count) == [2, 2], "the lone point at index 2 is left out")
        #expect(lone.properties["pointsNotInGeometry"] as? Int == 1)
        #expect((lone.properties["coordTimes"] as? [[String]])?.map(\.count) == [2, 2], "times nest like the coordinates")
        let ends = try geometry(cases["lone-first-and-last"]!)
        #expect(ends.type == "LineString" && (ends.coordinates as? [[Double]])?.count == 4)
        let still = try geometry(cases["all-one-place"]!)
        #expect(still.type == "Point" && still.properties["pointsNotInGeometry"] as? Int == 3)
        let scattered = try geometry(cases["every-segment-one-point"]!)
        #expect(scattered.type == "MultiPoint" && (scattered.coordinates as? [[Double]])?.count == 3)
        let repeated = try geometry(cases["repeated-points"]!)
        #expect(repeated.type == "LineString" && (repeated.coordinates as? [[Double]])?.count == 6, "repeats in a line are kept")
        let standing = try geometry(cases["a-segment-standing-still"]!)
        #expect(standing.type == "LineString" && standing.properties["pointsNotInGeometry"] as? Int == 3)
        #expect(standing.properties["pointCount"] as? Int == 6, "the summary still counts every point")
    }
}
