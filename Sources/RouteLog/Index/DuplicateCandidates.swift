/// The index's routes by what a duplicate of each must share with it, read from the
/// index alone (start and end time, point count, first and last position, bounding
/// box, at stored precision): ``RouteStore/existingRoute(equalTo:)`` looks up the few
/// routes a new one may equal instead of listing the routes of its start time. Each
/// route's points, once loaded for a comparison, are kept as a digest, so that routes
/// alike in all of those figures but one point are loaded once, not once a comparison.
/// Built the first time a duplicate is looked for (a store that never imports pays
/// nothing), then kept by the index as routes come and go.
struct DuplicateCandidates: Sendable {
    /// What two equal routes share, from the index.
    struct Key: Hashable, Sendable {
        var startMs: Int64, durationMs: Int64
        var pointCount: UInt32
        var south: Int32, west: Int32, north: Int32, east: Int32
        var startLat: Int32, startLon: Int32, endLat: Int32, endLon: Int32

        /// A stored route's key: its shape, with its time shift applied.
        init(_ route: IndexedRoute) {
            let shape = route.shape
            startMs = shape.firstMs &+ route.metadata.shiftMs
            durationMs = shape.durationMs
            pointCount = shape.pointCount
            (south, west, north, east) = (shape.south, shape.west, shape.north, shape.east)
            (startLat, startLon, endLat, endLon) = (shape.startLat, shape.startLon, shape.endLat, shape.endLon)
        }

        /// The key a stored copy of `positions` would have; nil when no stored route can
        /// have it (a value beyond what the index keeps).
        init?(_ positions: RoutePositions) {
            let count = positions.times.count
            guard count > 0, count <= Int(UInt32.max),
                  let south = Int32(exactly: positions.latitudes.min()!), let north = Int32(exactly: positions.latitudes.max()!),
                  let west = Int32(exactly: positions.longitudes.min()!), let east = Int32(exactly: positions.longitudes.max()!),
                  let startLat = Int32(exactly: positions.latitudes[0]), let startLon = Int32(exactly: positions.longitudes[0]),
                  let endLat = Int32(exactly: positions.latitudes[count - 1]),
                  let endLon = Int32(exactly: positions.longitudes[count - 1])
            else { return nil }
            startMs = positions.times[0]
            durationMs = max(0, positions.times[count - 1] &- positions.times[0])
            pointCount = UInt32(count)
            (self.south, self.west, self.north, self.east) = (south, west, north, east)
            (self.startLat, self.startLon, self.endLat, self.endLon) = (startLat, startLon, endLat, endLon)
        }
    }

    /// A route that may be a duplicate, and the digest of its positions once loaded.
    struct Candidate: Sendable, Equatable {
        var id: RouteID
        /// 0 while the route was not loaded (a digest of 0 is taken for unknown: that
        /// route is loaded again, nothing more).
        private var known: Int

        init(id: RouteID, digest: Int?) {
            self.id = id
            known = digest ?? 0
        }

        var digest: Int? {
            get { known == 0 ? nil : known }
            set { known = newValue ?? 0 }
        }
    }

    /// The candidates of one key: most keys have one route, kept inline (an array per
    /// route would cost its allocation).
    private enum Entry: Sendable {
        case one(Candidate)
        case many([Candidate])

        var candidates: [Candidate] {
            switch self {
            case .one(let candidate): return [candidate]
            case .many(let list): return list
            }
        }

        init?(_ list: [Candidate]) {
            switch list.count {
            case 0: return nil
            case 1: self = .one(list[0])
            default: self = .many(list)
            }
        }
    }

    /// By the key's hash, not the key (60 bytes): keys that share a hash share an entry,
    /// and the full comparison of a lookup tells their routes apart.
    private var routes: [Int: Entry] = [:]

    mutating func add(_ id: RouteID, _ route: IndexedRoute) {
        let hash = Key(route).hashValue
        let candidate = Candidate(id: id, digest: nil)
        switch routes[hash] {
        case nil: routes[hash] = .one(candidate)
        case .one(let first)?: routes[hash] = .many([first, candidate])
        case .many(var list)?:
            routes[hash] = nil  // the list's only reference now: appended in place, not copied
            list.append(candidate)
            routes[hash] = .many(list)
        }
    }

    mutating func remove(_ id: RouteID, _ route: IndexedRoute) {
        let hash = Key(route).hashValue
        switch routes[hash] {
        case .one(let only)? where only.id == id: routes[hash] = nil
        case .many(var list)?:
            guard let index = list.firstIndex(where: { $0.id == id }) else { return }
            routes[hash] = nil
            list.remove(at: index)
            routes[hash] = Entry(list)
        default: break
        }
    }

    /// The routes whose index figures are `key`'s (and, rarely, another key's of the
    /// same hash).
    func candidates(_ key: Key) -> [Candidate] { routes[key.hashValue]?.candidates ?? [] }

    /// Notes the digests of routes of key `key` loaded for a comparison (each loaded
    /// with that key), in one pass over the key's candidates.
    mutating func remember(_ digests: [RouteID: Int], key: Key) {
        let hash = key.hashValue
        guard let entry = routes[hash] else { return }
        routes[hash] = Entry(entry.candidates.map { candidate in
            var candidate = candidate
            if let digest = digests[candidate.id] { candidate.digest = digest }
            return candidate
        })
    }
}
