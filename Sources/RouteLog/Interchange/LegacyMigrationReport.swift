import Foundation

/// What a migration from the old app's keyed archive did.
public struct LegacyMigrationReport: Sendable, Equatable {
    /// The archive.
    public var source: String
    /// Route objects found in the archive.
    public var routesFound = 0
    /// Routes saved by this run (0 on a second run over the same archive).
    public var routesMigrated = 0
    /// Points in the routes saved.
    public var pointsMigrated = 0
    /// Ids of the saved routes, in archive order.
    public var routeIDs: [RouteID] = []
    /// Routes already in the store (same start time to the millisecond and same number
    /// of points), or repeated in the archive, so not saved again.
    public var routesAlreadyPresent = 0
    /// Routes left out, each with the reason ("route 3: no locations").
    public var skippedRoutes: [String] = []
    /// Locations in the archive left out because CoreLocation marked them invalid
    /// (negative horizontal accuracy), or their coordinate or timestamp is missing or
    /// out of range. Counted over every route object read, repeats included.
    public var pointsSkipped = 0
    /// Splits taken from the archive's `kmCoordinates`/`kmTimes` and `mileCoordinates`/`mileTimes`.
    public var splitsFromArchive = 0
    /// Splits computed by ``RouteMetrics`` because the archive had none for that unit.
    public var splitsComputed = 0

    /// Creates an empty report.
    public init(source: String) { self.source = source }

    /// One line per thing worth saying, such as "2 routes already in the store".
    public var notes: [String] {
        var lines = ["\(routesMigrated) route(s) and \(pointsMigrated) point(s) migrated of \(routesFound) route(s) found"]
        if routesAlreadyPresent > 0 { lines.append("\(routesAlreadyPresent) route(s) already in the store, not added again") }
        if pointsSkipped > 0 { lines.append("\(pointsSkipped) invalid location(s) skipped") }
        lines += skippedRoutes.map { "skipped \($0)" }
        return lines
    }
}
