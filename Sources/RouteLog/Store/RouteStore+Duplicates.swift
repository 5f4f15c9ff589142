import Foundation

/// Finding a route that is already stored, so that importing the same file (or the same
/// activity from another file) twice adds it once.
extension RouteStore {
    /// The id of a stored route whose points are `route`'s at stored precision: the same
    /// number of points, each with the same latitude, longitude (1e-7 degree) and time
    /// (1 ms). Other channels, metadata and segment breaks are not compared, so a track
    /// imported from GPX and the same activity from its FIT file match when their
    /// positions and times agree. Nil when no stored route matches.
    ///
    /// Candidates come from the index: the routes that share the new route's start and
    /// end time, point count, first and last position and bounding box, looked up in a
    /// map the index keeps once a duplicate was first looked for. Only they are loaded
    /// and compared point by point, and each is loaded once: a digest of its positions
    /// is kept, so routes alike in all of those figures but one point (copies of one
    /// path with a point moved) cost a comparison of digests, not a load, after the first.
    /// - Throws: `.closed`; read errors of a candidate route (`.corrupted`, `.io`).
    public func existingRoute(equalTo route: Route) throws -> RouteID? {
        guard let positions = RoutePositions(route), let key = DuplicateCandidates.Key(positions) else { return nil }
        let digest = positions.hashValue
        let candidates = try state.withLock { s in
            try s.checkOpen()
            return s.index.withDuplicateCandidates { $0.candidates(key) }
        }
        // Digests learnt here are noted together at the end (one pass over the key's
        // candidates, not one a candidate).
        var learnt: [RouteID: Int] = [:]
        defer {
            if !learnt.isEmpty {
                state.withLock { s in s.index.withDuplicateCandidates { $0.remember(learnt, key: key) } }
            }
        }
        for candidate in candidates where candidate.digest == nil || candidate.digest == digest {
            let stored: Route
            do {
                stored = try self.route(candidate.id)
            } catch let error as RouteLogError where error.code == .notFound {
                continue  // deleted since the candidates were listed
            }
            // A route edited since it was listed (its times shifted) has another key: its
            // digest is not this key's, and it cannot equal this route.
            guard let storedPositions = RoutePositions(stored), DuplicateCandidates.Key(storedPositions) == key
            else { continue }
            learnt[candidate.id] = storedPositions.hashValue
            if storedPositions == positions { return candidate.id }
        }
        return nil
    }
}

/// A route's positions and times as the store keeps them: what two routes must share
/// to be the same route.
struct RoutePositions: Equatable, Hashable {
    var latitudes: [Int64] = []
    var longitudes: [Int64] = []
    var times: [Int64] = []

    /// Nil for a route without points or with a value a save would refuse.
    init?(_ route: Route) {
        guard !route.points.isEmpty else { return nil }
        latitudes.reserveCapacity(route.points.count)
        longitudes.reserveCapacity(route.points.count)
        times.reserveCapacity(route.points.count)
        for point in route.points {
            guard point.latitude.isFinite, point.longitude.isFinite, point.timestamp.timeIntervalSince1970.isFinite
            else { return nil }
            latitudes.append(Quantization.degrees(point.latitude))
            longitudes.append(Quantization.degrees(point.longitude))
            times.append(Quantization.milliseconds(point.timestamp))
        }
    }
}
