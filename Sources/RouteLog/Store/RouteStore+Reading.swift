import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RouteStore {
    /// The route with `id`, its points exactly as saved (at stored precision) and moved
    /// by any start-date edit. Reads its record outside every lock, where it is now when
    /// a compaction moved it meanwhile (``followingMoves(_:)``).
    /// - Throws: `.notFound` for an unknown or deleted id; `.corrupted` naming the file
    ///   and offset when its bytes are damaged (other routes stay readable); `.closed`.
    public func route(_ id: RouteID) throws -> Route {
        var (route, loaded) = try followingMoves {
            let (route, segments) = try state.withLock { s in
                try s.checkOpen()
                guard let route = s.index.routes[id] else { throw Self.notFound(id, s) }
                return (route, s.segments)
            }
            return (route, try RecordReader(segments: segments).route(id, route))
        }
        if loaded.metadata.uuid == nil { loaded.metadata.uuid = route.shape.derivedUUID(id: id) }
        return loaded
    }

    /// Runs `read`, which takes what it reads from the index and segments the handle
    /// lists when it starts, again when a segment it read is gone: a compaction removed
    /// a segment whose descriptor the segment file cache had closed, so what it read has
    /// moved; read where the index says now (a read-only handle first reads what the
    /// writer's compaction made of the store). Another compaction may move it again
    /// meanwhile, even during the catch-up: each move is followed, up to a bound.
    func followingMoves<T>(_ read: () throws -> T) throws -> T {
        var moves = 0
        while true {
            do {
                return try read()
            } catch let error as RouteLogError where error.errno == ENOENT && moves < Self.routeMovesFollowed {
                moves += 1
                guard isReadOnly else { continue }
                do {
                    try catchUpWithWriter()
                } catch let error as RouteLogError where error.errno == ENOENT {
                    continue  // the files it was reading went in the next compaction
                }
            }
        }
    }

    /// How many times one read follows a route that compactions moved while it read.
    static let routeMovesFollowed = 16

    /// The summary of route `id`, from the index.
    /// - Throws: `.notFound` for an unknown or deleted id; `.closed`.
    public func summary(_ id: RouteID) throws -> RouteSummary {
        try state.withLock { s in
            try s.checkOpen()
            guard let route = s.index.routes[id] else { throw Self.notFound(id, s) }
            return route.summary(id)
        }
    }

    /// Route `id`'s whole metadata (notes and values too), from the index: no points read.
    /// - Throws: `.notFound` for an unknown or deleted id; `.closed`.
    public func metadata(_ id: RouteID) throws -> RouteMetadata {
        try state.withLock { s in
            try s.checkOpen()
            guard let route = s.index.routes[id] else { throw Self.notFound(id, s) }
            var metadata = route.metadata.routeMetadata
            metadata.uuid = metadata.uuid ?? route.shape.derivedUUID(id: id)
            return metadata
        }
    }

    /// Every route's summary, oldest first (by start date, then id). Reads only the
    /// in-memory index.
    /// - Throws: `.closed`.
    public func summaries() throws -> [RouteSummary] {
        try state.withLock { s in
            try s.checkOpen()
            return s.index.sortedSummaries()
        }
    }

    /// The summaries of routes that start in `from..<to` (either bound may be nil), oldest first.
    /// - Throws: `.closed`.
    public func summaries(from: Date?, to: Date?) throws -> [RouteSummary] {
        let all = try summaries()
        let lower = from.map { bound in Self.firstIndex(all) { $0.startDate >= bound } } ?? 0
        let upper = to.map { bound in Self.firstIndex(all) { $0.startDate >= bound } } ?? all.count
        return lower < upper ? Array(all[lower..<upper]) : []
    }

    private static func firstIndex(_ sorted: [RouteSummary], where predicate: (RouteSummary) -> Bool) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(sorted[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// How many routes the store holds.
    /// - Throws: `.closed`.
    public var count: Int {
        get throws { try state.withLock { s in try s.checkOpen(); return s.index.routes.count } }
    }

    /// Totals over every route: what the home screen's header shows. Kept by the index
    /// as routes come and go (a pass over the days that have routes, not the routes).
    /// - Throws: `.closed`.
    public func totals() throws -> RouteTotals {
        try state.withLock { s in
            try s.checkOpen()
            // Any zone's days sum to the same routes: the ledger already kept, if any.
            return s.index.withTotalsLedger(zone: s.index.totalsZone ?? TimeZone(identifier: "UTC")!) { $0.all }
        }
    }

    /// Totals per week, newest first; weeks start on `calendar.firstWeekday` (Monday with
    /// the default calendar, whatever the locale) in `calendar`'s time zone. Kept by the
    /// index as routes come and go, per day of the last time zone asked for.
    /// - Throws: `.closed`.
    public func weeklyTotals(calendar: Calendar = .mondayFirst) throws -> [WeeklyTotals] {
        try state.withLock { s in
            try s.checkOpen()
            return s.index.withTotalsLedger(zone: calendar.timeZone) { ledger in
                ledger.grouped(.weeklyTotals, calendar: calendar).map { WeeklyTotals(weekStart: $0.start, totals: $0.totals) }
            }
        }
    }

    static func notFound(_ id: RouteID, _ directory: String) -> RouteLogError {
        RouteLogError(.notFound, "no route with id \(id) in this store (it may have been deleted)", path: directory)
    }

    /// Not found, saying so when the id is a recording not finished yet.
    static func notFound(_ id: RouteID, _ state: StoreState) -> RouteLogError {
        guard state.index.recordings[id] != nil else { return notFound(id, state.directory) }
        return RouteLogError(.notFound, "\(id) is a recording in progress, not a route yet; finish it (resumeRecording(\(id)).finish()) to make it one", path: state.directory)
    }
}
