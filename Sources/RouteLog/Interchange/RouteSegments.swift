/// A route's recording segments as index ranges of its points.
enum RouteSegments {
    static func ranges(of route: Route) -> [Range<Int>] {
        let count = route.points.count
        guard count > 0 else { return [] }
        let starts = route.segmentStarts.filter { $0 > 0 && $0 < count }
        var bounds = [0] + starts + [count]
        bounds = bounds.enumerated().filter { $0.offset == 0 || $0.element > bounds[$0.offset - 1] }.map(\.element)
        return zip(bounds, bounds.dropFirst()).map { $0..<$1 }
    }
}
