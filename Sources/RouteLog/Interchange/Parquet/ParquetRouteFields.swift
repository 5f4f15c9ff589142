import Foundation

/// The routes table's fields that the store does not keep yet, read in this one place so
/// that the export switches to the store's own figures when it has them.
///
/// Until then a field the store does not know is written as null, never guessed:
/// - the route's stable UUID (`route_uuid`): not stored yet, so null;
/// - its activity kind (`activity`): not stored yet, so null;
/// - its moving time (`moving_time`): not stored yet, so null (computing it here would
///   give a figure the store's own may later disagree with);
/// - its simplified preview: none yet, so the geometry is the whole route.
enum ParquetRouteFields {
    /// The route's stable UUID, when the store keeps one.
    static func uuid(of summary: RouteSummary) -> UUID? { nil }

    /// The name of the route's activity kind ("walk", "run"...), when known.
    static func activityName(of summary: RouteSummary) -> String? { nil }

    /// Seconds in motion, when known.
    static func movingTime(of summary: RouteSummary) -> TimeInterval? { nil }

    /// The store's simplified preview of the route (its points and segment starts), when
    /// it has one; the geometry is drawn from the route's own points otherwise.
    static func preview(of summary: RouteSummary) -> (points: [TrackPoint], segmentStarts: [Int])? { nil }
}
