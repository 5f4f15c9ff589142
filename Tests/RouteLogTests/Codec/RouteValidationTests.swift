import Foundation
import Testing
@testable import RouteLog

@Suite struct RouteValidationTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func route(_ bad: TrackPoint) -> Route {
        Route(points: [TrackPoint(latitude: 1, longitude: 1, timestamp: t0), bad])
    }

    static let badRoutes: [(String, Route, String)] = [
        ("empty", Route(points: []), "no points"),
        ("NaN latitude", route(TrackPoint(latitude: .nan, longitude: 0, timestamp: t0)), "point 1: latitude"),
        ("latitude 91", route(TrackPoint(latitude: 91, longitude: 0, timestamp: t0)), "point 1: latitude 91"),
        ("longitude -180.5", route(TrackPoint(latitude: 0, longitude: -180.5, timestamp: t0)), "point 1: longitude"),
        ("infinite longitude", route(TrackPoint(latitude: 0, longitude: .infinity, timestamp: t0)), "point 1: longitude"),
        ("before 1970", route(TrackPoint(latitude: 0, longitude: 0, timestamp: Date(timeIntervalSince1970: -1))), "point 1: timestamp"),
        ("after 2200", route(TrackPoint(latitude: 0, longitude: 0, timestamp: Date(timeIntervalSince1970: 7_258_118_400))), "point 1: timestamp"),
        ("NaN altitude", route(TrackPoint(latitude: 0, longitude: 0, timestamp: t0, altitude: .nan)), "point 1: altitude"),
        ("infinite speed", route(TrackPoint(latitude: 0, longitude: 0, timestamp: t0, speed: -.infinity)), "point 1: speed"),
        ("huge heart rate", route(TrackPoint(latitude: 0, longitude: 0, timestamp: t0, heartRate: 2e6)), "point 1: heart rate"),
        ("split past the end", Route(points: [TrackPoint(latitude: 0, longitude: 0, timestamp: t0)],
                                     splits: [Split(unit: .kilometre, pointIndex: 1, elapsedTime: 1)]), "split 0"),
        ("segment start 0", Route(points: [TrackPoint(latitude: 0, longitude: 0, timestamp: t0),
                                           TrackPoint(latitude: 0, longitude: 0, timestamp: t0)], segmentStarts: [0]), "segment start"),
        ("negative calories", Route(points: [TrackPoint(latitude: 0, longitude: 0, timestamp: t0)],
                                    metadata: RouteMetadata(calories: -5)), "calories"),
        ("long name", Route(points: [TrackPoint(latitude: 0, longitude: 0, timestamp: t0)],
                            metadata: RouteMetadata(name: String(repeating: "é", count: 600))), "name"),
    ]

    @Test(arguments: badRoutes.indices)
    func badRouteIsRejectedAndNothingIsWritten(_ index: Int) throws {
        let (label, route, reason) = Self.badRoutes[index]
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        try store.save(Fixtures.sampleWalk(points: 20))
        let before = directorySnapshot(dir.store())
        do {
            try store.save(route)
            Issue.record("\(label) was accepted")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument, "\(label)")
            #expect(error.message.contains(reason), "\(label): \(error.message)")
        }
        // In a batch, the route's position is named and the good route is not written either.
        #expect(throws: RouteLogError.self) { try store.save([Fixtures.sampleWalk(points: 5), route]) }
        #expect(directorySnapshot(dir.store()) == before, "\(label) changed the store's files")
        #expect(try store.count == 1)
    }
}
