import Foundation

/// The figures every export carries: the store's summary when there is one, else the
/// same figures computed from the route.
struct ExportSummary {
    var id: RouteID?
    var name: String?
    var startDate: Date
    var duration: TimeInterval
    var distance: Double
    var movingTime: TimeInterval
    var calories: Double
    var pointCount: Int
    var boundingBox: BoundingBox

    init(route: Route, summary: RouteSummary?) {
        let measures = RouteMetrics.measure(route)
        let lats = route.points.map(\.latitude), lons = route.points.map(\.longitude)
        id = summary?.id
        name = summary?.name ?? route.metadata.name
        startDate = summary?.startDate ?? route.points.first?.timestamp ?? Date(timeIntervalSince1970: 0)
        duration = summary?.duration ?? measures.duration
        distance = summary?.distance ?? route.metadata.distance ?? measures.distance
        movingTime = measures.movingTime
        calories = summary?.calories ?? route.metadata.calories ?? 0
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
        members.append("\"calories\":" + DecimalText.format(calories, places: 3))
        members.append("\"pointCount\":\(pointCount)")
        return members
    }
}
