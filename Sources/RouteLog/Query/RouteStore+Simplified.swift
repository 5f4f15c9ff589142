import Foundation

extension RouteStore {
    /// Route `id` with only the points a map at this zoom needs: Douglas-Peucker on each
    /// segment, so that no point left out is further than `tolerance` metres from the
    /// line through the points kept. Both ends of every segment are kept, with all their
    /// fields; splits move to the first point kept at or after theirs. A tolerance of 0
    /// returns every point. A segment longer than 512 points is simplified in pieces of
    /// 512 that share their ends (a point kept every 512 at most, as a bound on the work:
    /// a line can be built so that Douglas-Peucker on it takes time n²).
    ///
    /// - Parameter tolerance: metres, finite and at least 0 (about 1 screen pixel: 150 m
    ///   at zoom 10, 2.4 m at zoom 16 on a 256-pixel tile near the equator).
    /// - Throws: `.invalidArgument` for a negative or non-finite tolerance; then as
    ///   ``route(_:)``.
    public func route(_ id: RouteID, tolerance: Double) throws -> Route {
        guard tolerance.isFinite, tolerance >= 0 else {
            throw RouteLogError.invalid("tolerance \(tolerance) m: give a finite number of metres, 0 or more")
        }
        return Self.simplified(try route(id), tolerance: tolerance)
    }

    /// The most points one Douglas-Peucker run of ``route(_:tolerance:)`` sees.
    static let simplificationPiece = 512

    /// The points of one segment to keep: Douglas-Peucker on pieces of at most
    /// ``simplificationPiece`` points, each piece starting at the last point of the one
    /// before; and the points the scans looked at, at most about 256 per point.
    static func keptIndices(_ coordinates: [Coordinate], tolerance: Double) -> (indices: [Int], work: Int) {
        var kept: [Int] = [], work = 0, start = 0
        repeat {
            let end = min(coordinates.count, start + simplificationPiece)
            let piece = PreviewSimplifier(Array(coordinates[start..<end])).keep(tolerance: tolerance, work: &work).indices
            // Each piece's first point is the last kept of the piece before.
            kept += piece.dropFirst(kept.isEmpty ? 0 : 1).map { $0 + start }
            start = end - 1
        } while start < coordinates.count - 1
        return (kept, work)
    }

    /// `route` simplified as ``route(_:tolerance:)`` describes.
    static func simplified(_ route: Route, tolerance: Double) -> Route {
        guard tolerance > 0, route.points.count > 2 else { return route }
        let bounds = ([0] + route.segmentStarts.filter { $0 > 0 && $0 < route.points.count } + [route.points.count])
        var kept: [Int] = []
        for (start, end) in zip(bounds, bounds.dropFirst()) where end > start {
            kept += keptIndices(route.points[start..<end].map(\.coordinate), tolerance: tolerance).indices.map { $0 + start }
        }
        // position[i]: the new index of the first kept point at or after i (the last
        // point is always kept, so there is one).
        var position = [Int](repeating: 0, count: route.points.count)
        var j = 0
        for i in 0..<route.points.count {
            while kept[j] < i { j += 1 }
            position[i] = j
        }
        var result = route
        result.points = kept.map { route.points[$0] }
        result.segmentStarts = route.segmentStarts.filter { $0 > 0 && $0 < route.points.count }.map { position[$0] }
        result.splits = route.splits.map { split in
            var moved = split
            moved.pointIndex = position[min(split.pointIndex, route.points.count - 1)]
            return moved
        }
        return result
    }
}
