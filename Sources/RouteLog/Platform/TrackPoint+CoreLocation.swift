// Apple platforms only: CLLocation in and out of RouteLog's model. Only copying happens
// here; what each field becomes is LocationFields.swift, built and tested everywhere.
#if canImport(CoreLocation)
import CoreLocation

extension LocationFields {
    init(_ location: CLLocation) {
        self.init(latitude: location.coordinate.latitude, longitude: location.coordinate.longitude,
                  altitude: location.altitude, horizontalAccuracy: location.horizontalAccuracy,
                  verticalAccuracy: location.verticalAccuracy, speed: location.speed,
                  course: location.course, timestamp: location.timestamp)
    }
}

extension TrackPoint {
    /// The point of a CoreLocation fix: coordinate, altitude, timestamp, horizontal and
    /// vertical accuracy, speed and course. CoreLocation's negative "invalid" values
    /// become absent fields (a negative vertical accuracy: no altitude). Nil when the fix
    /// has no valid coordinate (a negative horizontal accuracy).
    public init?(_ location: CLLocation) {
        self.init(LocationFields(location))
    }
}

extension CLLocation {
    /// A CoreLocation fix of a point. Absent speed, course and altitude become
    /// CoreLocation's invalid values (-1); a known altitude or coordinate without an
    /// accuracy gets an accuracy of 0. Heart rate and cadence are left out.
    public convenience init(_ point: TrackPoint) {
        let fix = LocationFields(point)
        self.init(coordinate: CLLocationCoordinate2D(latitude: fix.latitude, longitude: fix.longitude),
                  altitude: fix.altitude, horizontalAccuracy: fix.horizontalAccuracy,
                  verticalAccuracy: fix.verticalAccuracy, course: fix.course, speed: fix.speed,
                  timestamp: fix.timestamp)
    }
}

extension Route {
    /// A route of CoreLocation fixes, in the order given, leaving out those without a
    /// valid coordinate. No splits or segment starts; RouteLog computes the distance.
    public init(locations: [CLLocation], metadata: RouteMetadata = .init()) {
        self.init(fixes: locations.map(LocationFields.init), metadata: metadata)
    }
}
#endif
