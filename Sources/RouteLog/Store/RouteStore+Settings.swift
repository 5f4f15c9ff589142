/// The store's settings (``StoreSettings``): kept in the manifest, so a change is one
/// atomic manifest rewrite, and every handle that opens the store afterwards sees it.
extension RouteStore {
    /// The store's settings: as the writer last committed them, or for a read-only
    /// handle as they were when it opened (or last refreshed).
    /// - Throws: `.closed` after ``close()``.
    public func settings() throws -> StoreSettings {
        try state.withLock { s in
            try s.checkOpen()
            return s.settings
        }
    }

    /// Changes the store's settings durably: the manifest is rewritten with them (one
    /// atomic rename, synced), and every later open sees them. A privacy zone given more
    /// than once is kept once.
    ///
    /// ```swift
    /// let home = try PrivacyZone(center: Coordinate(latitude: 45.4642, longitude: 9.19), radius: 200)
    /// try store.updateSettings { $0.privacyZones = [home] }
    /// ```
    /// - Parameter change: Edits a copy of the current settings.
    /// - Throws: `.invalidArgument` for a read-only handle or settings that cannot be
    ///   stored (more than ``StoreSettings/maximumPrivacyZones`` distinct zones); `.io` when the
    ///   manifest cannot be written (the settings are then unchanged); `.closed`;
    ///   what `change` throws.
    public func updateSettings(_ change: (inout StoreSettings) throws -> Void) throws {
        try withWriter { writer in
            try state.withLock { try $0.checkOpen() }
            try writer.checkWritable()
            var settings = writer.manifest.current.settings
            try change(&settings)
            settings = settings.withoutRepeatedZones()
            try settings.validate()
            guard settings != writer.manifest.current.settings else { return }
            var next = writer.manifest.current
            next.settings = settings
            // Settings a newer RouteLog kept could bring the manifest past what readers accept.
            guard next.encoded().count <= Manifest.maximumSize else {
                throw RouteLogError.invalid("these settings would make the manifest larger than \(Manifest.maximumSize) bytes")
            }
            try writer.manifest.commit(nextRouteID: writer.nextRouteID) { $0.settings = settings }
            let generation = writer.manifest.current.generation
            state.withLock { s in
                s.settings = settings
                s.generation = generation
            }
        }
    }
}

extension RouteStore {
    /// The zones a store-based export applies: `given`, then those of the store's
    /// settings not among them (when `stored`).
    /// - Throws: `.closed` after ``close()``.
    func exportZones(adding given: [PrivacyZone], stored: Bool) throws -> [PrivacyZone] {
        guard stored else { return given }
        return given + (try settings().privacyZones).filter { !given.contains($0) }
    }
}
