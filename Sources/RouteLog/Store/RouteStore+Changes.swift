import Foundation

extension RouteStore {
    /// Saves a route and returns its new id. Validates it first: nothing is written
    /// for a bad route. With ``Durability/durable`` (the default) the route is on disk
    /// when this returns.
    ///
    /// - Throws: `.invalidArgument` naming the point and the problem (NaN, out-of-range
    ///   coordinate, timestamp outside 1970...2200, empty route); `.io` (disk full...);
    ///   `.closed`.
    @discardableResult
    public func save(_ route: Route) throws -> RouteID {
        try save([route])[0]
    }

    /// Saves several routes all or nothing (one sync): after a crash either all of them
    /// are in the store or none is.
    /// - Throws: as ``save(_:)-1h4hx``, naming the route of the batch at fault.
    @discardableResult
    public func save(_ routes: [Route]) throws -> [RouteID] {
        guard !routes.isEmpty else { return [] }
        try state.withLock { try $0.checkOpen() }
        // Validation and encoding, the CPU work of a save, happen here, outside every lock.
        let encoded = try routes.enumerated().map { i, route in try EncodedRoute(route, position: i, batchCount: routes.count) }
        let events = try commit { view in
            let first = try view.allocateIDs(encoded.count)
            return encoded.enumerated().map { i, route in route.prepared(id: RouteID(first + UInt64(i))) }
        }
        compaction.compactIfDue(self)
        return events.map(\.id)
    }

    /// Deletes route `id` by appending a delete record; its space is reclaimed by
    /// compaction. Durable when it returns (with `.full`).
    /// - Throws: `.notFound` for an unknown or already deleted id; `.io`; `.closed`.
    public func delete(_ id: RouteID) throws {
        try commit { view in
            guard view.route(id) != nil else { throw try self.notFoundForWriter(id, &view) }
            return [PreparedRecord(type: .routeDelete, payload: RouteDeleteRecord(id: id).payload()) { .delete(id, $0) }]
        }
        compaction.compactIfDue(self)
    }

    /// Changes route `id`'s metadata by appending an edit record (the points are not
    /// rewritten) and returns the new summary.
    /// - Throws: `.notFound`; `.invalidArgument` for a bad value or a move that takes
    ///   the route outside 1970...2200; `.io`; `.closed`.
    @discardableResult
    public func edit(_ id: RouteID, _ edit: RouteEdit) throws -> RouteSummary {
        let summary = PreparedValue<RouteSummary>()
        try commit { view in
            guard var current = view.route(id) else { throw try self.notFoundForWriter(id, &view) }
            let metadata = try Self.applying(edit, to: current)
            current.metadata = metadata
            summary.value = current.summary(id)
            return [PreparedRecord(type: .metadataEdit, payload: MetadataEditRecord(id: id, metadata: metadata).payload()) {
                .edit(id, metadata, $0)
            }]
        }
        compaction.compactIfDue(self)
        return summary.value!
    }

    private func notFoundForWriter(_ id: RouteID, _ view: inout WriteView) throws -> RouteLogError {
        guard view.recording(id) != nil else { return Self.notFound(id, directory) }
        return RouteLogError(.notFound, "\(id) is a recording in progress, not a route yet; finish it (resumeRecording(\(id)).finish()) to make it one", path: directory)
    }

    static func applying(_ edit: RouteEdit, to route: IndexedRoute) throws -> StoredMetadata {
        var metadata = route.metadata
        if edit.startDate != nil && edit.shift != nil {
            throw RouteLogError.invalid("give a new start date or a shift, not both")
        }
        if let start = edit.startDate {
            guard start.timeIntervalSince1970.isFinite else { throw RouteLogError.invalid("the new start date is not a finite date") }
            metadata.shiftMs = Quantization.milliseconds(start) - route.shape.firstMs
        }
        if let shift = edit.shift {
            guard shift.isFinite, abs(shift) < 1e11 else { throw RouteLogError.invalid("shift \(shift) s is not a finite span") }
            metadata.shiftMs += Quantization.milliseconds(shift)
        }
        let start = route.shape.firstMs + metadata.shiftMs
        guard start >= 0, start + route.shape.durationMs < FormatConstants.latestTimestampMs else {
            throw RouteLogError.invalid("the edit would move the route to \(Quantization.date(milliseconds: start)), outside 1970...2200")
        }
        if let name = edit.name { metadata.name = name.isEmpty ? nil : name }
        if let calories = edit.calories { metadata.calories = calories }
        if let distance = edit.distance { metadata.distance = distance }
        if edit.removesActivity {
            guard edit.activity == nil else { throw RouteLogError.invalid("give a new activity or remove it, not both") }
            metadata.activity = nil
        }
        if let activity = edit.activity { metadata.activity = activity }
        if let notes = edit.notes { metadata.notes = notes.isEmpty ? nil : notes }
        if let tags = edit.tags { metadata.tags = tags }
        if let values = edit.values { metadata.values = values }
        try RouteValidation.validate(metadata.routeMetadata)
        try metadata.checkStorable()
        return metadata
    }
}
