import Foundation
import Synchronization

/// A store of GPS routes in one directory: append-only segments of compressed,
/// checksummed routes, a small index of their summaries, and a lock that admits one
/// writer process at a time.
///
/// ```swift
/// let store = try RouteStore(at: URL(fileURLWithPath: "Routes.routelog"))
/// let id = try store.save(route)            // durable when it returns
/// let list = store.summaries()              // from the index, no coordinates read
/// let walk = try store.route(id)            // the points, exactly as saved
/// try store.edit(id, RouteEdit(shift: 7 * 86_400))
/// try store.delete(id)
/// ```
///
/// A `RouteStore` is safe to use from many threads at once. Saves cost the same
/// however many routes the store holds: nothing already written is rewritten.
public final class RouteStore: Sendable {
    /// The store's directory.
    public let url: URL
    /// True for a handle from ``openReadOnly(at:)``: it never writes.
    public let isReadOnly: Bool
    /// The options the store was opened with.
    public let options: Options

    let core: Mutex<StoreCore>
    let lock: StoreLock?
    let fileSystem: any FileSystem
    let compaction = CompactionGate()

    var directory: String { url.path }

    /// Opens the store at `url` for reading and writing, creating it if the directory
    /// does not exist or is empty. Recovers from a crash: a torn last record is cut,
    /// and the index is caught up or rebuilt from the segments.
    ///
    /// - Parameters:
    ///   - url: A directory (by convention named `*.routelog`).
    ///   - options: Durability, segment size and compaction policy.
    /// - Throws: ``RouteLogError`` `.locked` when another process has it open for
    ///   writing, `.unsupportedVersion` for a store from a newer RouteLog,
    ///   `.invalidArgument` for a directory that is not a store, `.corrupted` or `.io`.
    public convenience init(at url: URL, options: Options = Options()) throws {
        try self.init(at: url, options: options, fileSystem: PosixFileSystem.shared)
    }

    init(at url: URL, options: Options, fileSystem: any FileSystem) throws {
        guard options.segmentSizeLimit >= 4096 else {
            throw RouteLogError.invalid("segmentSizeLimit must be at least 4096 bytes, not \(options.segmentSizeLimit)")
        }
        let path = url.standardizedFileURL.path
        switch fileSystem.isDirectory(path) {
        case nil:
            try fileSystem.checked("mkdir", path) { try fileSystem.makeDirectory(path) }
            let parent = (path as NSString).deletingLastPathComponent
            try fileSystem.checked("fsync directory", parent) { try fileSystem.syncDirectory(parent.isEmpty ? "." : parent) }
        case false?:
            throw RouteLogError(.invalidArgument, "this is a file, not a RouteLog store directory; pass the store's directory", path: path)
        case true?:
            break
        }
        let lock = try StoreLock.acquire(in: path, fileSystem: fileSystem)
        let core = try StoreCore.open(directory: path, fileSystem: fileSystem, writable: true)
        self.url = URL(fileURLWithPath: path, isDirectory: true)
        self.isReadOnly = false
        self.options = options
        self.lock = lock
        self.fileSystem = fileSystem
        self.core = Mutex(core)
    }

    private init(readOnlyAt url: URL, fileSystem: any FileSystem) throws {
        let path = url.standardizedFileURL.path
        switch fileSystem.isDirectory(path) {
        case nil: throw RouteLogError(.notFound, "there is no RouteLog store here", path: path)
        case false?: throw RouteLogError(.invalidArgument, "this is a file, not a RouteLog store directory", path: path)
        case true?: break
        }
        self.url = URL(fileURLWithPath: path, isDirectory: true)
        self.isReadOnly = true
        self.options = Options(compaction: .manual)
        self.lock = nil
        self.fileSystem = fileSystem
        self.core = Mutex(try Self.openForReading(path, fileSystem: fileSystem))
    }

    /// Opens an existing store without ever writing to it. Works while another
    /// process writes; sees every route saved before it opened, and later ones after
    /// ``refresh()``.
    public static func openReadOnly(at url: URL) throws -> RouteStore {
        try RouteStore(readOnlyAt: url, fileSystem: PosixFileSystem.shared)
    }

    static func openReadOnly(at url: URL, fileSystem: any FileSystem) throws -> RouteStore {
        try RouteStore(readOnlyAt: url, fileSystem: fileSystem)
    }

    /// A compaction may replace the files between reading the manifest and opening
    /// them: try again with the new manifest.
    private static func openForReading(_ path: String, fileSystem: any FileSystem) throws -> StoreCore {
        var attempt = 0
        while true {
            do {
                return try StoreCore.open(directory: path, fileSystem: fileSystem, writable: false)
            } catch let error as RouteLogError where error.code == .corrupted && attempt < 5 {
                attempt += 1
                usleep(20_000)
                _ = error
            }
        }
    }

    /// The pid of the process that holds the store at `url` for writing, or nil.
    public static func writerProcess(at url: URL) -> Int32? {
        StoreLock.holder(in: url.standardizedFileURL.path, fileSystem: PosixFileSystem.shared)
    }

    // MARK: Saving

    /// Saves a route and returns its new id. Validates it first: nothing is written
    /// for a bad route. With ``Durability/durable`` (the default) the route is on disk
    /// when this returns.
    ///
    /// - Throws: `.invalidArgument` naming the point and the problem (NaN, out-of-range
    ///   coordinate, timestamp outside 1970...2200, empty route); `.io` (disk full...).
    @discardableResult
    public func save(_ route: Route) throws -> RouteID {
        try save([route])[0]
    }

    /// Saves several routes all or nothing (one sync): after a crash either all of them
    /// are in the store or none is.
    @discardableResult
    public func save(_ routes: [Route]) throws -> [RouteID] {
        guard !routes.isEmpty else { return [] }
        try core.withLock { try $0.checkWritable() }
        var payloads: [[UInt8]] = []
        var records: [RouteRecord] = []
        for (i, route) in routes.enumerated() {
            let record: RouteRecord
            do {
                // Checked in the order RouteValidation.validate checks, with the points
                // validated in the same pass that gathers their columns.
                try RouteValidation.validateCount(route)
                let columns = try PointColumns(route.points, validating: true)
                try RouteValidation.validateLayout(route)
                try RouteValidation.validate(route.metadata)
                record = RouteRecord(id: RouteID(0),
                                     shape: RouteShape(columns: columns, points: route.points, segmentStarts: route.segmentStarts),
                                     metadata: StoredMetadata(route.metadata), splits: route.splits,
                                     segmentStarts: route.segmentStarts, pointBlock: RouteCodec.encodePoints(columns)[...])
            } catch let error as RouteLogError where routes.count > 1 {
                throw RouteLogError(error.code, "route \(i): \(error.message)")
            }
            let payload = record.payload()
            guard payload.count <= FormatConstants.maxPayloadLength else {
                throw RouteLogError.invalid("route \(i) encodes to \(payload.count) bytes; one route may take at most 64 MiB")
            }
            payloads.append(payload)
            records.append(record)
        }
        let ids = try core.withLock { core -> [RouteID] in
            try core.checkWritable()
            let first = core.nextRouteID
            let frames = payloads.enumerated().map { i, payload -> [UInt8] in
                var bytes = payload
                let id = first + UInt64(i)
                for b in 0..<8 { bytes[b] = UInt8(truncatingIfNeeded: id >> (8 * UInt64(b))) }
                return RecordFrame.encode(type: .routePut, payload: bytes,
                                          flags: i < payloads.count - 1 ? RecordFrame.batchContinues : 0)
            }
            let events = try core.append(frames, events: { i, location in
                .put(RouteID(first + UInt64(i)), records[i].shape, records[i].metadata, location)
            }, durable: options.durability == .durable, segmentLimit: options.segmentSizeLimit)
            return events.map { if case .put(let id, _, _, _) = $0 { return id } else { fatalError("a save appends puts") } }
        }
        compactIfDue()
        return ids
    }

    // MARK: Reading

    /// The route with `id`, its points exactly as saved (at stored precision) and moved
    /// by any start-date edit.
    /// - Throws: `.notFound` for an unknown or deleted id; `.corrupted` naming the file
    ///   and offset when its bytes are damaged (other routes stay readable).
    public func route(_ id: RouteID) throws -> Route {
        let (file, location, metadata, recorded) = try core.withLock { core -> (DurableFile, RecordLocation, StoredMetadata, RecordedRouteFiles?) in
            guard !core.closed else { throw RouteLogError(.invalidArgument, "the store is closed", path: core.directory) }
            guard let route = core.state.routes[id] else { throw Self.notFound(id, core) }
            let recorded = route.recorded.map { _ in RecordedRouteFiles(route: route, files: core.segments) }
            return (core.segments[route.location.segment]!, route.location, route.metadata, recorded)
        }
        if let recorded {
            let (finish, points) = try Self.readRecordedRoute(id, recorded)
            return metadata.route(points: points, splits: finish.layout.splits, segmentStarts: finish.layout.segmentStarts)
        }
        var record = try Self.readRouteRecord(file, at: location, id: id)
        record.metadata = metadata
        do {
            return try record.route()
        } catch let error as ByteReader.Malformed {
            throw RouteLogError.corrupted("route \(id)'s points do not decode: \(error.reason)", path: file.path, offset: location.offset)
        }
    }

    /// Reads the RoutePut frame of route `id` at `location` and checks its header,
    /// checksum and id; returns the whole frame.
    static func readRouteFrame(_ file: DurableFile, at location: RecordLocation, id: RouteID) throws -> [UInt8] {
        let bytes = try file.read(at: location.offset, count: location.length)
        let headerSize = FormatConstants.recordHeaderSize
        guard bytes.count == location.length,
              let header = bytes.withUnsafeBytes({ RecordFrame.header($0, at: 0) }),
              header.length + headerSize == location.length,
              header.type == FormatConstants.RecordType.routePut.rawValue, header.length >= 8
        else {
            throw RouteLogError.corrupted("route \(id)'s record header is damaged", path: file.path, offset: location.offset)
        }
        guard Checksum.masked(bytes, 8..<bytes.count) == header.checksum else {
            throw RouteLogError.corrupted("route \(id)'s record fails its checksum", path: file.path, offset: location.offset)
        }
        var stored: UInt64 = 0
        for i in 0..<8 { stored |= UInt64(bytes[headerSize + i]) << (8 * UInt64(i)) }
        guard stored == id.rawValue else {
            throw RouteLogError.corrupted("the record where route \(id) should be holds route \(stored)", path: file.path, offset: location.offset)
        }
        return bytes
    }

    /// Reads, checks and parses the RoutePut of route `id` at `location`.
    static func readRouteRecord(_ file: DurableFile, at location: RecordLocation, id: RouteID) throws -> RouteRecord {
        let bytes = try readRouteFrame(file, at: location, id: id)
        do {
            return try RouteRecord(payload: bytes[FormatConstants.recordHeaderSize...])
        } catch let error as ByteReader.Malformed {
            throw RouteLogError.corrupted("route \(id)'s record makes no sense: \(error.reason)", path: file.path, offset: location.offset)
        }
    }

    static func notFound(_ id: RouteID, _ directory: String) -> RouteLogError {
        RouteLogError(.notFound, "no route with id \(id) in this store (it may have been deleted)", path: directory)
    }

    /// Not found, saying so when the id is a recording not finished yet.
    static func notFound(_ id: RouteID, _ core: StoreCore) -> RouteLogError {
        guard core.state.recordings[id] != nil else { return notFound(id, core.directory) }
        return RouteLogError(.notFound, "\(id) is a recording in progress, not a route yet; finish it (resumeRecording(\(id)).finish()) to make it one", path: core.directory)
    }

    /// The summary of route `id`, from the index.
    public func summary(_ id: RouteID) throws -> RouteSummary {
        try core.withLock { core in
            guard let route = core.state.routes[id] else { throw Self.notFound(id, core) }
            return route.summary(id)
        }
    }

    /// Every route's summary, oldest first (by start date, then id). Reads only the
    /// in-memory index.
    public func summaries() -> [RouteSummary] {
        core.withLock { $0.state.sortedSummaries() }
    }

    /// The summaries of routes that start in `from..<to` (either bound may be nil), oldest first.
    public func summaries(from: Date?, to: Date?) -> [RouteSummary] {
        let all = summaries()
        let lower = from.map { bound in firstIndex(all) { $0.startDate >= bound } } ?? 0
        let upper = to.map { bound in firstIndex(all) { $0.startDate >= bound } } ?? all.count
        return lower < upper ? Array(all[lower..<upper]) : []
    }

    private func firstIndex(_ sorted: [RouteSummary], where predicate: (RouteSummary) -> Bool) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(sorted[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// How many routes the store holds.
    public var count: Int { core.withLock { $0.state.routes.count } }

    /// Totals over every route: what the home screen's header shows.
    public func totals() -> RouteTotals {
        var totals = RouteTotals()
        for summary in summaries() { totals.add(summary) }
        return totals
    }

    /// Totals per week, newest first; weeks start on Monday in `calendar`'s time zone.
    public func weeklyTotals(calendar: Calendar = .current) -> [WeeklyTotals] {
        WeeklyTotals.group(summaries(), calendar: calendar)
    }

    // MARK: Changing

    /// Deletes route `id` by appending a delete record; its space is reclaimed by
    /// compaction. Durable when it returns (with `.durable`).
    /// - Throws: `.notFound` for an unknown or already deleted id.
    public func delete(_ id: RouteID) throws {
        try core.withLock { core in
            try core.checkWritable()
            guard core.state.routes[id] != nil else { throw Self.notFound(id, core) }
            var payload = ByteWriter(capacity: 8)
            payload.u64(id.rawValue)
            _ = try core.append([RecordFrame.encode(type: .routeDelete, payload: payload.bytes)],
                                events: { _, location in .delete(id, location) },
                                durable: options.durability == .durable, segmentLimit: options.segmentSizeLimit)
        }
        compactIfDue()
    }

    /// Changes route `id`'s metadata by appending an edit record (the points are not
    /// rewritten) and returns the new summary.
    /// - Throws: `.notFound`; `.invalidArgument` for a bad value or a move that takes
    ///   the route outside 1970...2200.
    @discardableResult
    public func edit(_ id: RouteID, _ edit: RouteEdit) throws -> RouteSummary {
        let summary = try core.withLock { core -> RouteSummary in
            try core.checkWritable()
            guard let current = core.state.routes[id] else { throw Self.notFound(id, core) }
            let metadata = try Self.applying(edit, to: current)
            var payload = ByteWriter(capacity: 32)
            payload.u64(id.rawValue)
            metadata.write(to: &payload)
            _ = try core.append([RecordFrame.encode(type: .metadataEdit, payload: payload.bytes)],
                                events: { _, location in .edit(id, metadata, location) },
                                durable: options.durability == .durable, segmentLimit: options.segmentSizeLimit)
            return core.state.routes[id]!.summary(id)
        }
        compactIfDue()
        return summary
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
        try RouteValidation.validate(metadata.routeMetadata)
        return metadata
    }

    // MARK: Lifecycle

    /// For a read-only handle: picks up what the writer saved, deleted or compacted
    /// since the handle opened (or last refreshed). A no-op for the writer's own handle.
    public func refresh() throws {
        guard isReadOnly else { return }
        let fresh = try Self.openForReading(directory, fileSystem: fileSystem)
        core.withLock { $0 = fresh }
    }

    /// Syncs the index (and, with buffered durability, the segment being appended to),
    /// then releases the files and the writer's lock. Further calls on this handle fail.
    /// Dropping the last reference without calling it releases them too.
    public func close() throws {
        compaction.waitUntilIdle()
        try core.withLock { core in
            guard !core.closed else { return }
            core.syncIndex()
            // With buffered durability, close is the moment the app expects its saves
            // to reach the disk.
            if core.writable, core.failure == nil, options.durability == .buffered {
                try core.segments[core.activeSegment]?.syncData()
            }
            core.closed = true
            core.segments = [:]
            core.index = nil
        }
        lock?.release()
    }

    deinit {
        compaction.waitUntilIdle()
        core.withLock { core in
            if !core.closed { core.syncIndex() }
        }
    }
}
