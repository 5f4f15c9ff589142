import Foundation
import Testing
@testable import RouteLog

/// What each CoreLocation field becomes (Platform/LocationFields.swift): the logic
/// behind `TrackPoint(_: CLLocation)`, `CLLocation(_: TrackPoint)` and
/// `Route(locations:)`, which on Apple platforms only copy a CLLocation's fields.
@Suite struct LocationFieldsMappingTests {
    static let time = Date(timeIntervalSince1970: 1_767_225_600.25)

    /// A fix as an iPhone reports one while walking.
    static func walkingFix(_ change: (inout LocationFields) -> Void = { _ in }) -> LocationFields {
        var fix = LocationFields(latitude: 46.0512, longitude: 14.5060, altitude: 295.4,
                                 horizontalAccuracy: 4.7, verticalAccuracy: 3.1,
                                 speed: 1.42, course: 87.5, timestamp: time)
        change(&fix)
        return fix
    }

    @Test func aValidFixKeepsEveryField() throws {
        let point = try #require(TrackPoint(Self.walkingFix()))
        #expect(point == TrackPoint(latitude: 46.0512, longitude: 14.5060, timestamp: Self.time,
                                    altitude: 295.4, horizontalAccuracy: 4.7, verticalAccuracy: 3.1,
                                    speed: 1.42, course: 87.5))
    }

    @Test func aFixWithoutAValidCoordinateIsNoPoint() {
        #expect(TrackPoint(Self.walkingFix { $0.horizontalAccuracy = -1 }) == nil)
        #expect(TrackPoint(Self.walkingFix { $0.horizontalAccuracy = .nan }) == nil)
        // kCLLocationCoordinate2DInvalid is (-180, -180).
        #expect(TrackPoint(Self.walkingFix { $0.latitude = -180; $0.longitude = -180 }) == nil)
        #expect(TrackPoint(Self.walkingFix { $0.longitude = .infinity }) == nil)
        // The edges of the globe are valid.
        #expect(TrackPoint(Self.walkingFix { $0.latitude = 90; $0.longitude = -180 }) != nil)
    }

    @Test func aNegativeVerticalAccuracyMeansNoAltitude() throws {
        let point = try #require(TrackPoint(Self.walkingFix { $0.verticalAccuracy = -1 }))
        #expect(point.altitude == nil)
        #expect(point.verticalAccuracy == nil)
        #expect(point.horizontalAccuracy == 4.7)
    }

    @Test func negativeSpeedAndCourseAreUnknownButZeroIsKept() throws {
        let unknown = try #require(TrackPoint(Self.walkingFix { $0.speed = -1; $0.course = -1 }))
        #expect(unknown.speed == nil)
        #expect(unknown.course == nil)
        #expect(unknown.altitude == 295.4)
        // Standing still, heading due north: real values, not missing ones.
        let still = try #require(TrackPoint(Self.walkingFix { $0.speed = 0; $0.course = 0 }))
        #expect(still.speed == 0)
        #expect(still.course == 0)
    }

    @Test func aFullPointGoesToAFixAndBackUnchanged() throws {
        let point = TrackPoint(latitude: -33.8568, longitude: 151.2153, timestamp: Self.time,
                               altitude: 12.5, horizontalAccuracy: 8, verticalAccuracy: 6,
                               speed: 3.2, course: 270)
        #expect(TrackPoint(LocationFields(point)) == point)
    }

    @Test func absentFieldsBecomeCoreLocationsInvalidValues() throws {
        let bare = TrackPoint(latitude: 51.5, longitude: -0.12, timestamp: Self.time, heartRate: 128, cadence: 80)
        let fix = LocationFields(bare)
        #expect(fix == LocationFields(latitude: 51.5, longitude: -0.12, altitude: 0, horizontalAccuracy: 0,
                                      verticalAccuracy: -1, speed: -1, course: -1, timestamp: Self.time))
        // Back again: the coordinate is valid (accuracy 0), the rest stays absent;
        // heart rate and cadence have no place in a fix.
        let back = try #require(TrackPoint(fix))
        #expect(back == TrackPoint(latitude: 51.5, longitude: -0.12, timestamp: Self.time, horizontalAccuracy: 0))
    }

    @Test func anAltitudeWithoutAccuracyStaysValid() {
        let point = TrackPoint(latitude: 47.3, longitude: 8.5, timestamp: Self.time, altitude: 408)
        let fix = LocationFields(point)
        #expect(fix.altitude == 408)
        #expect(fix.verticalAccuracy == 0)
        #expect(TrackPoint(fix)?.altitude == 408)
    }

    @Test func aRouteKeepsTheValidFixesInOrder() throws {
        let fixes = (0..<6).map { i in
            Self.walkingFix {
                $0.latitude += Double(i) * 0.0001
                $0.timestamp = Self.time.addingTimeInterval(Double(i))
                if i == 2 || i == 4 { $0.horizontalAccuracy = -1 }
            }
        }
        let route = Route(fixes: fixes, metadata: RouteMetadata(name: "Tivoli"))
        #expect(route.points.map(\.timestamp) == [0, 1, 3, 5].map { Self.time.addingTimeInterval($0) })
        #expect(route.metadata.name == "Tivoli")
        #expect(route.splits.isEmpty)
        // And it is a route the store takes.
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store())
        let id = try store.save(route)
        #expect(try store.route(id).points == RouteCodec.quantize(route).points)
    }
}
