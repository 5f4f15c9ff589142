import Foundation
import Testing
@testable import RouteLog

/// Previews in the index, `route(id, tolerance:)` and encoded polylines: shapes kept
/// within their stated error, and the measurements the format section quotes.
@Suite struct RoutePreviewTests {
    /// Metres from `c` to the nearest point of the line through `line`: each piece on a
    /// plane tangent at `c` (azimuthal equidistant from the geodesic distance and bearing
    /// of each end), which is independent of the simplifier's own projection.
    static func distance(_ c: Coordinate, toLine line: [Coordinate]) -> Double {
        func planar(_ p: Coordinate) -> (x: Double, y: Double) {
            let d = Geodesic.distance(c, p)
            var dLon = p.longitude - c.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let y = (p.latitude - c.latitude), x = dLon * cos(c.latitude * .pi / 180)
            let n = (x * x + y * y).squareRoot()
            return n > 0 ? (x / n * d, y / n * d) : (0, 0)
        }
        let projected = line.map(planar)
        guard projected.count > 1 else { return (projected[0].x * projected[0].x + projected[0].y * projected[0].y).squareRoot() }
        var best = Double.infinity
        for (a, b) in zip(projected, projected.dropFirst()) {
            let dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy
            let t = l2 > 0 ? min(1, max(0, -(a.x * dx + a.y * dy) / l2)) : 0
            let px = a.x + t * dx, py = a.y + t * dy
            best = min(best, (px * px + py * py).squareRoot())
        }
        return best
    }

    static func fixtureRoutes() throws -> [(String, Route)] {
        let dir = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/gpx")
        var routes: [(String, Route)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where name.hasSuffix(".gpx") {
            guard let imported = try? GPXImporter.read(contentsOf: dir.appendingPathComponent(name)) else { continue }
            for route in imported.routes where route.points.count > 1 { routes.append((name, route)) }
        }
        return routes
    }

    @Test func previewsKeepTheShapeOfTheRealFixtures() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        var worst = 0.0, previewBytes = 0, withoutDerived = 0, withDerived = 0, count = 0
        for (name, route) in try Self.fixtureRoutes() {
            let id = try store.save(route)
            let summary = try store.summary(id)
            let preview = try #require(summary.preview)
            let points = preview.coordinates
            let stored = try store.route(id).points.map(\.coordinate)
            #expect(points.count <= RoutePreview.maxPoints && points.count >= 2, "\(name)")
            #expect(Geodesic.distance(points.first!, stored.first!) < 1 && Geodesic.distance(points.last!, stored.last!) < 1, "\(name): ends kept")
            // Every point of the route is within the stated tolerance of the preview, plus
            // the 1e-5 degree rounding of its coordinates (at most 0.8 m), the stored rounding,
            // and the two planes disagreeing by a fraction of a percent over kilometres.
            var error = 0.0
            for c in stored { error = max(error, Self.distance(c, toLine: points)) }
            #expect(error <= preview.tolerance * 1.005 + 1.0, "\(name): error \(error) m, tolerance \(preview.tolerance) m")
            worst = max(worst, error)
            // Index bytes of this route with and without its derived fields.
            var record = try EncodedRoute(route).record
            let location = RecordLocation(segment: 1, offset: 20, length: 100)
            withDerived += LogEvent.put(id, record.shape, record.metadata, location).indexRecord().payload.count + 16
            var p = ByteWriter(capacity: 512)
            record.metadata.derived.write { tag, value in if tag == .preview { p.varint(tag.rawValue); p.varint(value.count); p.append(contentsOf: value) } }
            previewBytes += p.bytes.count
            record.metadata.derived = DerivedFields()
            withoutDerived += LogEvent.put(id, record.shape, record.metadata, location).indexRecord().payload.count + 16
            count += 1
            print("\(name): \(route.points.count) points, preview \(points.count) points, tolerance \(preview.tolerance) m, max error \(String(format: "%.2f", error)) m")
        }
        #expect(count >= 10)
        print("previews of \(count) fixture routes: \(previewBytes / count) bytes each on average; max error \(String(format: "%.2f", worst)) m")
        print("index bytes per route: \(withoutDerived / count) without stats, cells and preview, \(withDerived / count) with them")
        try store.close()
    }

    @Test func previewOfShortAndCrossingRoutes() throws {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let one = try store.save(Route(points: [TrackPoint(latitude: 10, longitude: 20, timestamp: start)]))
        #expect(try store.summary(one).preview?.coordinates == [Coordinate(latitude: 10, longitude: 20)])
        // A zig-zag across the antimeridian: the preview keeps its corners on both sides.
        let zigzag = (0..<300).map { i -> TrackPoint in
            let phase = Double(i % 20 < 10 ? i % 20 : 20 - i % 20)
            var lon: Double = 179.9 + Double(i) * 0.001
            if lon > 180 { lon -= 360 }
            return TrackPoint(latitude: -17 + phase * 0.001, longitude: lon, timestamp: start.addingTimeInterval(Double(i)))
        }
        let id = try store.save(Route(points: zigzag))
        let preview = try #require(try store.summary(id).preview)
        #expect(preview.coordinates.count > 20)
        for p in zigzag { #expect(Self.distance(p.coordinate, toLine: preview.coordinates) <= preview.tolerance + 1.0) }
        #expect(preview.tolerance < 5)
        try store.close()
    }

    @Test func simplifiedRoutesStayWithinTheTolerance() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var walk = Fixtures.sampleWalk(seed: 3, points: 2000)
        walk.segmentStarts = [700, 1400]
        walk.splits = RouteMetrics.splits(of: walk.points, segmentStarts: walk.segmentStarts)
        let id = try store.save(walk)
        let full = try store.route(id)
        #expect(try store.route(id, tolerance: 0) == full)
        var previousCount = Int.max
        for tolerance in [1.0, 5, 20, 100] {
            let simple = try store.route(id, tolerance: tolerance)
            #expect(simple.points.count < previousCount)
            previousCount = simple.points.count
            #expect(simple.points.first == full.points.first && simple.points.last == full.points.last)
            #expect(simple.segmentStarts.count == 2)
            for s in simple.segmentStarts { #expect(full.points.firstIndex(of: simple.points[s]).map { [700, 1400].contains($0) } == true) }
            #expect(simple.splits.count == full.splits.count)
            #expect(simple.splits.allSatisfy { $0.pointIndex < simple.points.count })
            // Each segment alone: every point within the tolerance of its segment's line.
            let bounds = [0, 700, 1400, 2000], kept = [0] + simple.segmentStarts + [simple.points.count]
            for k in 0..<3 {
                let line = simple.points[kept[k]..<kept[k + 1]].map(\.coordinate)
                for p in full.points[bounds[k]..<bounds[k + 1]] {
                    #expect(Self.distance(p.coordinate, toLine: line) <= tolerance * 1.01 + 0.05)
                }
            }
        }
        for bad in [-1.0, .nan, .infinity] {
            #expect(throws: RouteLogError.self) { try store.route(id, tolerance: bad) }
        }
        try store.close()
    }

    @Test func encodedPolylinesMatchGooglesExample() throws {
        // The worked example of Google's format description.
        let line = [Coordinate(latitude: 38.5, longitude: -120.2), Coordinate(latitude: 40.7, longitude: -120.95),
                    Coordinate(latitude: 43.252, longitude: -126.453)]
        #expect(try RouteExporter.encodedPolyline(line) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
        #expect(try RouteExporter.encodedPolyline([]) == "")
        #expect(throws: RouteLogError.self) { try RouteExporter.encodedPolyline(line, precision: 8) }
        #expect(throws: RouteLogError.self) { try RouteExporter.encodedPolyline([Coordinate(latitude: .nan, longitude: 0)]) }
    }

    @Test(.enabled(if: PythonReaders.available("polyline"), "needs the polyline package in .build/pyenv (make pyenv)"))
    func encodedPolylinesDecodeWithThePolylinePackage() throws {
        let walk = Fixtures.sampleWalk(seed: 9, points: 500)
        var coordinates = walk.points.map(\.coordinate)
        coordinates += [Coordinate(latitude: -89.99999, longitude: 179.999999), Coordinate(latitude: 0, longitude: -180)]
        for precision in [5, 6] {
            let encoded = try RouteExporter.encodedPolyline(coordinates, precision: precision)
            let output = try PythonReaders.script("""
            import json, sys, polyline
            print(json.dumps(polyline.decode(sys.stdin.read() if False else sys.argv[1], int(sys.argv[2]))))
            """, [encoded, "\(precision)"])
            let decoded = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [[Double]]
            #expect(decoded.count == coordinates.count)
            let unit = pow(10, -Double(precision))
            for (d, c) in zip(decoded, coordinates) {
                #expect(abs(d[0] - c.latitude) <= unit / 2 + 1e-12 && abs(d[1] - c.longitude) <= unit / 2 + 1e-12, "\(d) vs \(c)")
            }
        }
    }
}
