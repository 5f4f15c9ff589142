import Foundation

/// The fields of a CoreLocation fix (`CLLocation`) as plain values. The conveniences in
/// TrackPoint+CoreLocation.swift only copy a `CLLocation` into or out of these; the
/// mapping is here, in plain Swift, so that every platform builds and tests it.
///
/// CoreLocation marks what it does not know with negative numbers: a negative
/// `horizontalAccuracy` means the coordinate is invalid, a negative `verticalAccuracy`
/// that the altitude is, and a negative `speed` or `course` that it is unknown.
/// RouteLog says the same with an absent (nil) field.
struct LocationFields: Equatable {
    var latitude: Double
    var longitude: Double
    var altitude: Double
    var horizontalAccuracy: Double
    var verticalAccuracy: Double
    var speed: Double
    var course: Double
    var timestamp: Date
}

extension TrackPoint {
    /// The point of a fix, or nil when the fix has no valid coordinate (a negative
    /// horizontal accuracy, or a latitude or longitude out of range). Negative (invalid)
    /// speed and course become absent; a negative vertical accuracy makes both the
    /// altitude and the vertical accuracy absent.
    init?(_ fix: LocationFields) {
        guard fix.horizontalAccuracy >= 0, fix.horizontalAccuracy.isFinite,
              fix.latitude.isFinite, fix.longitude.isFinite,
              abs(fix.latitude) <= 90, abs(fix.longitude) <= 180 else { return nil }
        let altitudeIsValid = fix.verticalAccuracy >= 0 && fix.verticalAccuracy.isFinite && fix.altitude.isFinite
        self.init(latitude: fix.latitude, longitude: fix.longitude, timestamp: fix.timestamp,
                  altitude: altitudeIsValid ? fix.altitude : nil,
                  horizontalAccuracy: fix.horizontalAccuracy,
                  verticalAccuracy: altitudeIsValid ? fix.verticalAccuracy : nil,
                  speed: Self.known(fix.speed), course: Self.known(fix.course))
    }

    private static func known(_ value: Double) -> Double? {
        value >= 0 && value.isFinite ? value : nil
    }
}

extension LocationFields {
    /// The fix of a point. Absent speed and course become -1 (invalid); an absent
    /// altitude becomes 0 with a vertical accuracy of -1 (invalid). CoreLocation cannot
    /// say "known, accuracy unknown", so an altitude without a vertical accuracy gets 0,
    /// and so does a coordinate without a horizontal accuracy. Heart rate and cadence
    /// have no place in a fix and are left out.
    init(_ point: TrackPoint) {
        self.init(latitude: point.latitude, longitude: point.longitude,
                  altitude: point.altitude ?? 0,
                  horizontalAccuracy: point.horizontalAccuracy ?? 0,
                  verticalAccuracy: point.altitude == nil ? -1 : point.verticalAccuracy ?? 0,
                  speed: point.speed ?? -1, course: point.course ?? -1,
                  timestamp: point.timestamp)
    }
}

extension Route {
    /// A route of the fixes that have a valid coordinate, in the order given.
    init(fixes: [LocationFields], metadata: RouteMetadata = .init()) {
        self.init(points: fixes.compactMap(TrackPoint.init), metadata: metadata)
    }
}
