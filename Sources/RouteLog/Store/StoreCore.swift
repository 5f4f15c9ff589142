#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Everything a store handle holds behind its mutex: the manifest, the open files,
/// the in-memory index, and the writer's position.
struct StoreCore: Sendable {
    let directory: String
    let fileSystem: any FileSystem
    let writable: Bool
    var manifest: Manifest
    var segments: [UInt32: DurableFile]
    /// Where the valid records of each segment end (the append position of the last one).
    var segmentEnds: [UInt32: Int64]
    var index: DurableFile?
    var indexEnd: Int64 = 0
    var indexUnsynced = 0
    /// An index append failed: stop appending; the next open catches up from the segments.
    var indexBroken = false
    var state = StoreState()
    var nextRouteID: UInt64 = 1
    /// Set when a write or sync failed in a way that leaves the file's state unknown:
    /// every later write fails with it until the store is opened again.
    var failure: RouteLogError?
    var closed = false
    /// Damage and torn tails met while opening (verify() reports these too).
    var openDamage: [DamagedRange] = []
    var tornTails: [DamagedRange] = []
    var indexRebuilt = false
    /// A read-only handle found the index file damaged or missing, and took its state
    /// from the segments alone. (A writer rewrites such an index as it opens.)
    var indexDamaged = false
    /// Recordings a ``RouteRecorder`` of this handle is appending to: one recorder each.
    var attachedRecordings: Set<RouteID> = []

    var activeSegment: UInt32 { manifest.segments[manifest.segments.count - 1] }

    func path(_ name: String) -> String { directory + "/" + name }

    // MARK: Writing

    /// Appends framed segment records as one all-or-nothing batch, makes them durable
    /// when `durable`, then appends their index records. `events` builds the event of
    /// record i from its location.
    mutating func append(_ frames: [[UInt8]], events: (Int, RecordLocation) -> LogEvent,
                         durable: Bool, segmentLimit: Int) throws -> [LogEvent] {
        try checkWritable()
        let total = frames.reduce(0) { $0 + $1.count }
        let header = Int64(FormatConstants.fileHeaderSize)
        if segmentEnds[activeSegment]! > header, segmentEnds[activeSegment]! + Int64(total) > Int64(segmentLimit) {
            try roll()
        }
        let segment = activeSegment
        let file = segments[segment]!
        let start = segmentEnds[segment]!
        var bytes = [UInt8]()
        bytes.reserveCapacity(total)
        var located: [LogEvent] = []
        var offset = start
        for (i, frame) in frames.enumerated() {
            located.append(events(i, RecordLocation(segment: segment, offset: offset, length: frame.count)))
            offset += Int64(frame.count)
            bytes += frame
        }
        do {
            try file.write(bytes, at: start)
        } catch {
            // Take the partial append back so no later record follows garbage. If even
            // that fails, stop writing: the next open treats the rest as a torn tail.
            if (try? file.truncate(to: start)) == nil {
                failure = RouteLogError(.io, "a write failed and could not be undone; reopen the store to recover",
                                        path: file.path, errno: (error as? RouteLogError)?.errno)
            }
            throw error
        }
        if durable {
            do {
                try file.syncData()
            } catch {
                // After a failed sync the kernel may have dropped the dirty pages: what was
                // written since the last good sync cannot be trusted, so stop writing; the
                // next open reads back what really is on disk.
                failure = RouteLogError(.io, "a sync failed; reopen the store to recover",
                                        path: file.path, errno: (error as? RouteLogError)?.errno)
                try? file.truncate(to: start)
                throw error
            }
        }
        segmentEnds[segment] = offset
        for event in located {
            state.apply(event)
            appendToIndex(event)
        }
        nextRouteID = max(nextRouteID, state.maxSeenID + 1)
        return located
    }

    /// Best effort: the segment is the truth, so an index failure only costs a slower
    /// next open.
    mutating func appendToIndex(_ event: LogEvent) {
        guard !indexBroken, let index else { return }
        let record = event.indexRecord()
        do {
            try index.write(record, at: indexEnd)
            indexEnd += Int64(record.count)
            indexUnsynced += 1
            if indexUnsynced >= 1024 {
                try index.syncData()
                indexUnsynced = 0
            }
        } catch {
            indexBroken = true
            try? index.truncate(to: indexEnd)
        }
    }

    func checkWritable() throws {
        guard !closed else { throw RouteLogError(.invalidArgument, "the store is closed", path: directory) }
        guard writable else {
            throw RouteLogError(.invalidArgument, "the store was opened read-only; open it with RouteStore(at:) to change it", path: directory)
        }
        if let failure { throw failure }
    }

    /// Starts a new segment and records it in the manifest (format-spec.md, "Roll").
    mutating func roll() throws {
        let number = manifest.nextFileNumber
        // Whatever the durability setting, a segment is whole on disk before the next
        // one exists, so a crash never keeps later records and loses earlier ones.
        do {
            try segments[activeSegment]!.syncData()
        } catch {
            // As after any failed sync, what was written since the last good one cannot
            // be trusted: refuse further writes until the store is opened again.
            failure = RouteLogError(.io, "a sync failed; reopen the store to recover",
                                    path: segments[activeSegment]!.path, errno: (error as? RouteLogError)?.errno)
            throw error
        }
        let file = try createLogFile(kind: .segment, number: number)
        var next = manifest
        next.generation += 1
        next.nextFileNumber = number + 1
        next.nextRouteID = max(next.nextRouteID, nextRouteID)
        next.segments.append(number)
        do {
            try next.write(in: directory, fileSystem: fileSystem)
        } catch let uncertain as Manifest.SwitchUncertain {
            failure = RouteLogError(.io, "the manifest could not be made durable; reopen the store to recover",
                                    path: directory, errno: uncertain.underlying.errno)
            throw uncertain.underlying
        } catch {
            try? fileSystem.unlink(file.path)
            throw error
        }
        manifest = next
        segments[number] = file
        segmentEnds[number] = Int64(FormatConstants.fileHeaderSize)
    }

    /// Creates a segment or index file holding only its header, synced, with the
    /// directory synced so the file survives a crash.
    func createLogFile(kind: FormatConstants.FileKind, number: UInt32, suffix: String = "") throws -> DurableFile {
        let name = (kind == .segment ? FormatConstants.segmentName(number) : FormatConstants.indexName(number)) + suffix
        let file = try DurableFile.open(path(name), flags: O_RDWR | O_CREAT | O_TRUNC, fileSystem: fileSystem)
        try file.write(FileHeader(kind: kind, fileNumber: number).encoded(), at: 0)
        try file.syncAll()
        try fileSystem.checked("fsync directory", directory) { try fileSystem.syncDirectory(directory) }
        return file
    }

    /// Syncs the index (called at close and before compaction's switch).
    mutating func syncIndex() {
        guard !indexBroken, let index, indexUnsynced > 0 else { return }
        if (try? index.syncData()) != nil { indexUnsynced = 0 } else { indexBroken = true }
    }
}
