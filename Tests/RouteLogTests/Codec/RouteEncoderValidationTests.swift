import Foundation
import Testing
@testable import RouteLog

/// RouteEncoder refuses exactly what RouteValidation refuses, with the same message,
/// though it checks every point without a branch per check.
@Suite struct RouteEncoderValidationTests {
    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as RouteLogError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func everyKindOfBadPointIsNamedLikeRouteValidation() {
        let good = TrackPoint(latitude: 45, longitude: 9, timestamp: Date(timeIntervalSince1970: 1_700_000_000),
                              altitude: 10, horizontalAccuracy: 5, verticalAccuracy: 3, speed: 1, course: 90, heartRate: 100, cadence: 80)
        let changes: [(inout TrackPoint) -> Void] = [
            { $0.latitude = .nan }, { $0.latitude = 90.0000001 }, { $0.longitude = -180.5 }, { $0.longitude = .infinity },
            { $0.timestamp = Date(timeIntervalSince1970: -0.001) }, { $0.timestamp = Date(timeIntervalSince1970: 7_258_118_400) },
            { $0.timestamp = Date(timeIntervalSince1970: .nan) }, { $0.altitude = 1e7 + 1 }, { $0.horizontalAccuracy = .nan },
            { $0.verticalAccuracy = -.infinity }, { $0.speed = -1e8 }, { $0.course = .nan }, { $0.heartRate = -1 },
            { $0.heartRate = 1e6 + 1 }, { $0.cadence = .nan },
        ]
        for (i, change) in changes.enumerated() {
            var points = [TrackPoint](repeating: good, count: 20)
            change(&points[13])
            change(&points[17])
            let route = Route(points: points)
            let expected = Self.message { try RouteValidation.validate(route) }
            #expect(expected != nil, "change \(i) should be invalid")
            #expect(Self.message { _ = try RouteEncoder.encode(route) } == expected, "change \(i)")
        }
        // Limits themselves are valid.
        var edge = good
        edge.latitude = -90; edge.longitude = 180; edge.altitude = -1e7; edge.heartRate = 0; edge.cadence = 1e6
        #expect(Self.message { _ = try RouteEncoder.encode(Route(points: [edge])) } == nil)
    }

    @Test func routeLevelProblemsComeInTheSameOrder() {
        let point = TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 3))
        let routes = [
            Route(points: []),
            Route(points: [point], splits: [Split(unit: .kilometre, pointIndex: 3, elapsedTime: 1)]),
            Route(points: [point, point], segmentStarts: [0]),
            Route(points: [point], metadata: RouteMetadata(calories: -1)),
            Route(points: [TrackPoint(latitude: .nan, longitude: 2, timestamp: Date())], metadata: RouteMetadata(calories: -1)),
        ]
        for route in routes {
            let expected = Self.message { try RouteValidation.validate(route) }
            #expect(expected != nil)
            #expect(Self.message { _ = try RouteEncoder.encode(route) } == expected)
        }
    }
}
