import Foundation
import Testing
@testable import RouteLog

/// Distances against GeographicLib's geodesic inverse (tools/geodesic_reference.py).
@Suite struct GeodesicAccuracyTests {
    @Test func pointPairsAgreeWithGeographicLibIncludingNearlyAntipodal() {
        var worst = 0.0
        for pair in InterchangeFixtures.reference.pairs {
            let a = Coordinate(latitude: pair[0], longitude: pair[1])
            let b = Coordinate(latitude: pair[2], longitude: pair[3])
            let metres = Geodesic.distance(a, b)
            #expect(metres.isFinite)
            let error = abs(metres - pair[4])
            worst = max(worst, error)
            // A millimetre on lines up to 20,000 km.
            #expect(error < 1e-3, "\(pair): \(metres) vs \(pair[4])")
            // The fallback alone must be as good everywhere, not only where it is used.
            let solver = GeodesicSolver.distance(a, b)
            #expect(abs(solver - pair[4]) < 1e-3, "solver \(pair): \(solver) vs \(pair[4])")
        }
        print("geodesic: worst error over \(InterchangeFixtures.reference.pairs.count) pairs: \(worst) m")
    }

    @Test func robustSolverAgreesWithVincentyWhereBothWork() {
        let pairs: [(Double, Double, Double, Double)] = [
            (48.1, 11.5, 48.2, 11.6), (-33.9, 151.2, 51.5, -0.1), (0, 0, 0, 90), (89, 0, -89, 90),
        ]
        for (lat1, lon1, lat2, lon2) in pairs {
            let a = Coordinate(latitude: lat1, longitude: lon1)
            let b = Coordinate(latitude: lat2, longitude: lon2)
            let vincenty = try! #require(Geodesic.vincentyDistance(a, b))
            #expect(abs(GeodesicSolver.distance(a, b) - vincenty) < 1e-4)
        }
    }

    @Test func shortStepsAgreeWithVincentyEverywhereOnTheGlobe() {
        var generator = SeededGenerator(state: 7)
        var worst = 0.0
        for _ in 0..<20_000 {
            let lat = Double.random(in: -89.9...89.9, using: &generator)
            let lon = Double.random(in: -180...180, using: &generator)
            let a = Coordinate(latitude: lat, longitude: lon)
            let b = Coordinate(latitude: min(90, max(-90, lat + Double.random(in: -0.02...0.02, using: &generator))),
                               longitude: lon + Double.random(in: -0.02...0.02, using: &generator))
            guard let vincenty = Geodesic.vincentyDistance(a, b), vincenty > 0.01 else { continue }
            worst = max(worst, abs(Geodesic.distance(a, b) - vincenty) / vincenty)
        }
        print("geodesic: short-step formula vs Vincenty, worst relative difference \(worst)")
        #expect(worst < 1e-6)
        // Across the antimeridian the step is still short.
        let east = Coordinate(latitude: 10, longitude: 179.999), west = Coordinate(latitude: 10, longitude: -179.999)
        #expect(abs(Geodesic.distance(east, west) - Geodesic.vincentyDistance(east, west)!) < 1e-6)
    }

    @Test func vincentyGivesUpOnTheClassicAntipodalCaseAndTheFallbackAnswers() {
        let a = Coordinate(latitude: 0, longitude: 0), b = Coordinate(latitude: 0.5, longitude: 179.7)
        #expect(Geodesic.vincentyDistance(a, b) == nil)
        #expect(abs(Geodesic.distance(a, b) - 19_944_127.421) < 0.01)
    }

    @Test func nanInputGivesNaNDistanceButRouteMetricsStayFinite() {
        let a = Coordinate(latitude: .nan, longitude: 0), b = Coordinate(latitude: 1, longitude: 1)
        #expect(Geodesic.distance(a, b).isNaN)
        let t = Date(timeIntervalSince1970: 1_000)
        let points = [TrackPoint(latitude: 1, longitude: 1, timestamp: t),
                      TrackPoint(latitude: .nan, longitude: 1, timestamp: t),
                      TrackPoint(latitude: 1, longitude: 1.001, timestamp: t)]
        #expect(RouteMetrics.distance(of: points) == 0)
    }

    /// Every route of every real fixture, with the file's own segments (no jump breaks),
    /// within 0.01 % of GeographicLib.
    @Test(arguments: InterchangeFixtures.reference.files.keys.sorted())
    func fixtureRouteDistancesWithinOneBasisPoint(file: String) throws {
        if file.hasPrefix("gpsbabel__") && !InterchangeFixtures.sharedDataAvailable { return }
        var options = GPXImportOptions()
        options.breaksJumps = false
        let result = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx(file), options: options)
        let expected = try #require(InterchangeFixtures.reference.files[file])
        try #require(result.routes.count == expected.count)
        for (route, reference) in zip(result.routes, expected) {
            #expect(route.points.count == reference.points)
            #expect(route.segmentStarts.count == reference.segments - 1)
            let metres = RouteMetrics.distance(of: route.points, segmentStarts: route.segmentStarts)
            let relative = reference.distance > 0 ? abs(metres - reference.distance) / reference.distance : 0
            print("geodesic: \(file) \(route.points.count) pts: \(metres) m vs \(reference.distance) m, "
                + "relative error \(relative)")
            #expect(abs(metres - reference.distance) <= max(1e-4 * reference.distance, 1e-3))
        }
    }
}
