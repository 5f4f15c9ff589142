import Foundation
import RouteLog

/// A route as `dump`, `export` and `render` show it: trimmed by the privacy zones (see
/// ``PrivacyTrim``), with a summary that describes the points shown.
struct ExportedRoute {
    /// The stored route and its summary, for the library's exporters (which trim again).
    let stored: Route
    let storedSummary: RouteSummary
    /// What is shown.
    let route: Route
    let summary: RouteSummary
    /// Points the zones removed; when any were, every figure of ``summary`` is computed
    /// from the points shown and the calories are withheld.
    let removedPoints: Int
    let zones: [PrivacyZone]

    /// Whether the stored calories may be shown (known, and not covering a removed part).
    var calories: Double? { removedPoints > 0 ? nil : route.metadata.calories }

    /// Route `id` of `store`, trimmed by `zones`.
    /// - Throws: ``CLIError`` when every point lies inside a zone; the store's errors.
    static func load(_ id: RouteID, in store: RouteStore, zones: [PrivacyZone]) throws -> ExportedRoute {
        guard let exported = try ExportedRoute(store.route(id), summary: store.summary(id), zones: zones) else {
            throw CLIError.failure("every point of route \(id) lies inside a privacy zone", path: store.url.path,
                                   todo: "nothing is left to show; give smaller zones, or none")
        }
        return exported
    }

    /// `stored` trimmed by `zones`, or nil when every point lies inside a zone.
    init?(_ stored: Route, summary: RouteSummary, zones: [PrivacyZone]) {
        let trim = PrivacyTrim(stored, zones: zones)
        guard let kept = trim.route else { return nil }
        self.stored = stored
        storedSummary = summary
        route = kept
        removedPoints = trim.removedPoints
        self.zones = zones
        self.summary = trim.removedPoints == 0 ? summary : Self.measuredSummary(kept, id: summary.id)
    }

    /// The route in a library export format (GPX, GeoJSON, CSV, JSON).
    func data(_ format: RouteExportFormat) throws -> Data {
        try RouteExporter.data(for: stored, summary: storedSummary, format: format, privacyZones: zones)
    }

    /// A summary computed from `route`'s points alone (calories 0: withheld).
    static func measuredSummary(_ route: Route, id: RouteID) -> RouteSummary {
        let points = route.points
        let lats = points.map(\.latitude), lons = points.map(\.longitude)
        return RouteSummary(
            id: id, startDate: points[0].timestamp, duration: RouteMetrics.duration(of: points),
            distance: RouteMetrics.distance(of: points, segmentStarts: route.segmentStarts), calories: 0,
            pointCount: points.count,
            boundingBox: BoundingBox(southWest: Coordinate(latitude: lats.min()!, longitude: lons.min()!),
                                     northEast: Coordinate(latitude: lats.max()!, longitude: lons.max()!)),
            startCoordinate: points[0].coordinate, endCoordinate: points[points.count - 1].coordinate,
            name: route.metadata.name)
    }
}

/// Where `dump`, `export` and `render` get their privacy zones: every `--privacy-zone`
/// (parsed before the store is opened, so that a bad one is a usage error) and the zones
/// kept in the store's settings, unless `--no-stored-zones`.
enum ExportPrivacy {
    static let option = OptionSpec(
        name: "privacy-zone", valueName: "LAT,LON,METRES",
        help: "leave out the points within METRES of LAT,LON at the route's start and end (repeatable, up to 64)", repeatable: true)
    static let options = [
        option,
        OptionSpec.flag("no-stored-zones", "leave the privacy zones kept in the store's settings out (see routelog settings)"),
    ]

    /// The zones to apply: `given` (the command line's), then the store's own.
    static func zones(given: [PrivacyZone], store: RouteStore, _ arguments: ParsedArguments) throws -> [PrivacyZone] {
        guard !arguments.has("no-stored-zones") else { return given }
        return given + (try store.settings().privacyZones).filter { !given.contains($0) }
    }
}
