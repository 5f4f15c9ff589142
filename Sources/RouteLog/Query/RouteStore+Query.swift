import Foundation

extension RouteStore {
    /// The summaries of the routes `query` selects, sorted, offset and limited as it says.
    /// Reads the in-memory index; only routes at the edge of a pass-through area (or
    /// saved without grid cells) have their points read, outside every lock.
    /// - Throws: `.invalidArgument` for a bad query (inverted dates, a NaN or
    ///   out-of-range area, a negative limit or offset); `.corrupted` when a route that
    ///   must be read is damaged; `.closed`.
    public func summaries(matching query: RouteQuery) throws -> [RouteSummary] {
        let matcher = try QueryMatcher(query)
        return matcher.arranged(try selected(matcher).map { $0.route.summary($0.id) })
    }

    /// The summaries of the routes that start inside `interval` (its end excluded), oldest first.
    /// - Throws: `.closed`.
    public func summaries(in interval: DateInterval) throws -> [RouteSummary] {
        try summaries(matching: RouteQuery(interval))
    }

    /// The index entries `matcher` selects, unsorted; taken again from the index when a
    /// compaction moved a route whose points it was reading (``followingMoves(_:)``).
    private func selected(_ matcher: QueryMatcher) throws -> [(id: RouteID, route: IndexedRoute)] {
        try followingMoves { try selectedOnce(matcher) }
    }

    private func selectedOnce(_ matcher: QueryMatcher) throws -> [(id: RouteID, route: IndexedRoute)] {
        let (sure, unsure, segments) = try state.withLock { s in
            try s.checkOpen()
            var sure: [(id: RouteID, route: IndexedRoute)] = [], unsure: [(id: RouteID, route: IndexedRoute)] = []
            func sort(_ id: RouteID, _ route: IndexedRoute) {
                switch matcher.test(route) {
                case .no: break
                case .yes: sure.append((id, route))
                case .needsPoints: unsure.append((id, route))
                }
            }
            if let area = matcher.pass {
                // Only the routes of the cells the area meets can pass through it; of
                // those, only the ones whose dates and box pass are decoded.
                for id in s.index.withCellMap({ $0.candidates(area) }) {
                    guard let (shape, start) = s.index.routes.shapeAndStart(id), matcher.mayMatch(shape, startMs: start),
                          let route = s.index.routes[id] else { continue }
                    sort(id, route)
                }
            } else {
                // Dates and boxes are read from the index's rows; only the routes that
                // pass them have their metadata decoded.
                s.index.routes.forEachRow { id, shape, start in
                    if matcher.mayMatch(shape, startMs: start), let route = s.index.routes[id] { sort(id, route) }
                }
            }
            return (sure, unsure, s.segments)
        }
        guard !unsure.isEmpty else { return sure }
        let reader = RecordReader(segments: segments)
        return try sure + unsure.filter {
            let (latitudes, longitudes) = try reader.coordinates($0.id, $0.route)
            return matcher.passes(latitudes: latitudes, longitudes: longitudes)
        }
    }

    /// Deletes every route `query` selects (its sort, offset and limit included) in one
    /// all-or-nothing batch: after a failure or a crash either all of them are deleted or
    /// none is. Returns the ids deleted, in the query's order. A route saved while the
    /// query runs is not deleted; one deleted meanwhile is left out.
    /// - Throws: as ``summaries(matching:)``; `.io` (nothing is deleted); `.closed`.
    @discardableResult
    public func deleteRoutes(matching query: RouteQuery) throws -> [RouteID] {
        let matcher = try QueryMatcher(query)
        let ids = matcher.arranged(try selected(matcher).map { $0.route.summary($0.id) }).map(\.id)
        guard !ids.isEmpty else { return [] }
        let events = try commit { view in
            ids.filter { view.route($0) != nil }.map { id in
                PreparedRecord(type: .routeDelete, payload: RouteDeleteRecord(id: id).payload()) { .delete(id, $0) }
            }
        }
        compaction.compactIfDue(self)
        return events.map(\.id)
    }

    /// Totals per week, month or year, newest first, over the routes `query` selects
    /// (all by default; its sort, offset and limit are ignored). Weeks start on
    /// `calendar.firstWeekday` (the default calendar starts them on Monday); periods are
    /// the calendar's own (its months and years), in its time zone.
    /// - Throws: as ``summaries(matching:)``.
    public func totals(by period: TotalsPeriod, calendar: Calendar = .mondayFirst,
                       matching query: RouteQuery = RouteQuery()) throws -> [PeriodTotals] {
        var all = query
        all.limit = nil
        all.offset = 0
        let matcher = try QueryMatcher(all)
        if matcher.selectsEverything {
            // Every route: the index's totals ledger, a pass over days rather than routes.
            return try state.withLock { s in
                try s.checkOpen()
                return s.index.withTotalsLedger(zone: calendar.timeZone) { ledger in
                    ledger.grouped(.period(period), calendar: calendar).map { PeriodTotals(start: $0.start, period: period, totals: $0.totals) }
                }
            }
        }
        return PeriodTotals.group(try selected(matcher).map { $0.route.summary($0.id) }, by: period, calendar: calendar)
    }
}
