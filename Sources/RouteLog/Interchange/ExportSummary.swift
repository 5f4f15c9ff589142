import Foundation

/// The figures every export carries: the store's summary when there is one, else the
/// same figures computed from the route. For a route trimmed by privacy zones
/// (``PrivacyTrim``) every figure is computed from the points left, and the calories,
/// which cover the removed part, are left out.
struct ExportSummary {
    var id: RouteID?
    var name: String?
    var startDate: Date
    var duration: TimeInterval
    var distance: Double
    var movingTime: TimeInterval
    /// Nil when withheld (a trimmed route): the member is then left out.
    var calories: Double?
    var pointCount: Int
    var boundingBox: BoundingBox

    init(route: Route, summary: RouteSummary?, trimmed: Bool = false) {
        // Distance, duration and moving time only: splits (one a kilometre) are not
        // shown, and a route hopping round the globe would make millions of them.
        let points = route.points, starts = route.segmentStarts
        let lats = route.points.map(\.latitude), lons = route.points.map(\.longitude)
        id = summary?.id
        name = summary?.name ?? route.metadata.name
        // The store's figures describe the whole stored route; a trimmed one has its own.
        let summary = trimmed ? nil : summary
        startDate = summary?.startDate ?? route.points.first?.timestamp ?? Date(timeIntervalSince1970: 0)
        duration = summary?.duration ?? RouteMetrics.duration(of: points)
        distance = summary?.distance ?? route.metadata.distance ?? RouteMetrics.distance(of: points, segmentStarts: starts)
        movingTime = RouteMetrics.movingTime(of: points, segmentStarts: starts)
        calories = trimmed ? nil : summary?.calories ?? route.metadata.calories ?? 0
        pointCount = route.points.count
        boundingBox = summary?.boundingBox ?? BoundingBox(
            southWest: Coordinate(latitude: lats.min() ?? 0, longitude: lons.min() ?? 0),
            northEast: Coordinate(latitude: lats.max() ?? 0, longitude: lons.max() ?? 0))
    }

    var averageSpeed: Double { duration > 0 ? distance / duration : 0 }

    /// `"key":value` pairs for a JSON object.
    func jsonMembers() -> [String] {
        var members: [String] = []
        if let id { members.append("\"id\":\(id.rawValue)") }
        if let name { members.append("\"name\":" + TextEscaping.json(name)) }
        members.append("\"startDate\":\"" + ISO8601Time.format(startDate) + "\"")
        members.append("\"endDate\":\"" + ISO8601Time.format(startDate.addingTimeInterval(duration)) + "\"")
        members.append("\"duration\":" + DecimalText.format(duration, places: 3))
        members.append("\"distance\":" + DecimalText.format(distance, places: 3))
        members.append("\"movingTime\":" + DecimalText.format(movingTime, places: 3))
        members.append("\"averageSpeed\":" + DecimalText.format(averageSpeed, places: 4))
        if let calories { members.append("\"calories\":" + DecimalText.format(calories, places: 3)) }
        members.append("\"pointCount\":\(pointCount)")
        return members
    }
}
