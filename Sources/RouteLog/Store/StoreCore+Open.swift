#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Opening a store: read the manifest, check every file header, load the index, catch
/// up from the segments' tails, rebuild the index when it cannot be trusted, and (for a
/// writer) cut torn tails and remove files a crash left behind.
extension StoreCore {
    static func open(directory: String, fileSystem: any FileSystem, writable: Bool) throws -> StoreCore {
        guard let manifest = try Manifest.read(in: directory, fileSystem: fileSystem) else {
            guard writable else {
                throw RouteLogError(.notFound, "there is no RouteLog store here (no MANIFEST); create one by opening it for writing", path: directory)
            }
            try createFiles(directory: directory, fileSystem: fileSystem)
            return try open(directory: directory, fileSystem: fileSystem, writable: writable)
        }
        var core = StoreCore(directory: directory, fileSystem: fileSystem, writable: writable,
                             manifest: manifest, segments: [:], segmentEnds: [:])
        let flags = writable ? O_RDWR : O_RDONLY
        var sizes: [UInt32: Int64] = [:]
        for number in manifest.segments {
            let path = core.path(FormatConstants.segmentName(number))
            let file: DurableFile
            do {
                file = try DurableFile.open(path, flags: flags, fileSystem: fileSystem)
            } catch let error as RouteLogError where error.errno == ENOENT {
                throw RouteLogError.corrupted("segment \(number) is listed in the manifest but missing; restore it from a backup", path: path)
            }
            do {
                let header = try FileHeader.decode(try file.read(at: 0, count: FormatConstants.fileHeaderSize), path: path, expecting: .segment)
                guard header.fileNumber == number else {
                    throw RouteLogError.corrupted("the segment's header says file \(header.fileNumber), its name says \(number)", path: path, offset: 12)
                }
            } catch let error as RouteLogError where error.code == .corrupted {
                // The manifest vouches for this file; its records check themselves, so a
                // damaged header costs only the header.
                core.openDamage.append(DamagedRange(path: path, offset: 0, length: Int64(FormatConstants.fileHeaderSize)))
            }
            core.segments[number] = file
            sizes[number] = try file.size()
        }
        try core.loadState(sizes: sizes)
        core.nextRouteID = max(manifest.nextRouteID, core.state.maxSeenID + 1)
        if writable { core.removeLeftovers() }
        return core
    }

    /// Fills `state` from the index and the segments' tails, or from the segments alone.
    private mutating func loadState(sizes: [UInt32: Int64]) throws {
        let header = Int64(FormatConstants.fileHeaderSize)
        let indexed = loadIndex(sizes: sizes)
        var rebuild = indexed == nil
        var catchUp: [LogEvent] = []
        if let indexed {
            state = indexed.state
            // The index must be a prefix of the log: once a segment has records the index
            // lacks, no later segment may have any it holds.
            var gapSeen = false
            for number in manifest.segments {
                let covered = state.coveredEnd[number] ?? header
                if gapSeen && covered > header { rebuild = true; break }
                if let last = indexed.lastLocation[number], !recordIsValid(at: last) { rebuild = true; break }
                let scan = try scanSegment(number, from: covered, size: sizes[number]!)
                if !scan.events.isEmpty { gapSeen = true }
                catchUp += scan.events
            }
        }
        if rebuild {
            state = StoreState()
            openDamage = []
            tornTails = []
            catchUp = []
            for number in manifest.segments {
                catchUp += try scanSegment(number, from: header, size: sizes[number]!).events
            }
            // Events are applied below, in manifest order.
        }
        for event in catchUp { state.apply(event) }
        if writable {
            try repairTails(sizes: sizes)
            if rebuild || index == nil {
                try writeRebuiltIndex()
            } else {
                for event in catchUp { appendToIndex(event) }
                syncIndex()
            }
        }
    }

    private struct IndexedState {
        var state: StoreState
        var lastLocation: [UInt32: RecordLocation]
    }

    /// The state the index describes, or nil when it is missing or cannot be trusted.
    private mutating func loadIndex(sizes: [UInt32: Int64]) -> IndexedState? {
        let path = self.path(FormatConstants.indexName(manifest.indexFile))
        guard let file = try? DurableFile.open(path, flags: writable ? O_RDWR : O_RDONLY, fileSystem: fileSystem),
              let size = try? file.size(),
              let headerBytes = try? file.read(at: 0, count: FormatConstants.fileHeaderSize),
              let header = try? FileHeader.decode(headerBytes, path: path, expecting: .index),
              header.fileNumber == manifest.indexFile
        else {
            indexDamaged = !writable
            return nil
        }
        var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: size)
        var result = IndexedState(state: StoreState(), lastLocation: [:])
        result.state.reserve(Int(min(size / 100, 10_000_000)))
        do {
            while let record = try scanner.next() {
                let event = try LogEvent.fromIndex(record)
                let location = event.location
                guard let segmentSize = sizes[location.segment], location.end <= segmentSize,
                      location.offset >= (result.lastLocation[location.segment]?.end ?? Int64(FormatConstants.fileHeaderSize))
                else { return nil }
                result.lastLocation[location.segment] = location
                result.state.apply(event)
            }
        } catch {
            indexDamaged = !writable
            return nil
        }
        guard scanner.damage.isEmpty else {
            indexDamaged = !writable
            return nil
        }
        if scanner.tailLength > 0 {
            tornTails.append(DamagedRange(path: path, offset: scanner.validEnd, length: scanner.tailLength))
        }
        if writable && scanner.tailLength > 0 {
            guard (try? file.truncate(to: scanner.validEnd)) != nil else { return nil }
        }
        index = file
        indexEnd = scanner.validEnd
        return result
    }

    /// Whether the record an index entry points at is really there, whole.
    private func recordIsValid(at location: RecordLocation) -> Bool {
        guard let file = segments[location.segment],
              let bytes = try? file.read(at: location.offset, count: location.length),
              bytes.count == location.length,
              let header = bytes.withUnsafeBytes({ RecordFrame.header($0, at: 0) }),
              header.length + FormatConstants.recordHeaderSize == location.length
        else { return false }
        return Checksum.masked(bytes, 8..<bytes.count) == header.checksum
    }

    struct SegmentScan {
        var events: [LogEvent] = []
    }

    /// Reads the records of segment `number` from `start`, noting damage and torn tails.
    mutating func scanSegment(_ number: UInt32, from start: Int64, size: Int64) throws -> SegmentScan {
        let file = segments[number]!
        var scanner = LogScanner(file: file, from: start, fileSize: size)
        var scan = SegmentScan()
        while let record = try scanner.next() {
            do {
                if let event = try LogEvent.fromSegment(record, segment: number) { scan.events.append(event) }
            } catch let error as ByteReader.Malformed {
                openDamage.append(DamagedRange(path: file.path, offset: record.offset, length: Int64(record.frameLength)))
                _ = error
            }
        }
        openDamage += scanner.damage
        if scanner.tailLength > 0 {
            tornTails.append(DamagedRange(path: file.path, offset: scanner.validEnd, length: scanner.tailLength))
        }
        segmentEnds[number] = scanner.validEnd
        return scan
    }

    /// A writer cuts the torn tail of the segment it will append to.
    private mutating func repairTails(sizes: [UInt32: Int64]) throws {
        let active = activeSegment
        let end = segmentEnds[active]!
        if end < sizes[active]! {
            let file = segments[active]!
            try file.truncate(to: end)
            try file.syncData()
        }
    }

    /// Writes a fresh index for the current state and switches the manifest to it.
    private mutating func writeRebuiltIndex() throws {
        let number = manifest.nextFileNumber
        let file = try createLogFile(kind: .index, number: number)
        var bytes: [UInt8] = []
        for event in rebuiltEvents() { bytes += event.indexRecord() }
        try file.write(bytes, at: Int64(FormatConstants.fileHeaderSize))
        try file.syncData()
        var next = manifest
        next.generation += 1
        next.nextFileNumber = number + 1
        next.indexFile = number
        next.nextRouteID = max(next.nextRouteID, state.maxSeenID + 1)
        do {
            try next.write(in: directory, fileSystem: fileSystem)
        } catch let uncertain as Manifest.SwitchUncertain {
            throw uncertain.underlying
        }
        manifest = next
        index = file
        indexEnd = Int64(FormatConstants.fileHeaderSize + bytes.count)
        indexUnsynced = 0
        indexRebuilt = true
    }

    /// Index records that reproduce the current state: every live route's put (or a
    /// recorded route's start, chunks and finish) and latest edit, and every unfinished
    /// recording's start and chunks, in log order per segment.
    func rebuiltEvents() -> [LogEvent] {
        var events: [LogEvent] = []
        func recordingEvents(_ id: RouteID, _ recording: IndexedRecording) {
            events.append(.recordingStart(id, startedMs: recording.startedMs, recording.metadata, recording.start))
            for chunk in recording.chunks {
                events.append(.recordingChunk(id, firstPoint: chunk.firstPoint, pointCount: chunk.pointCount, chunk.location))
            }
        }
        for (id, route) in state.routes {
            if let recording = route.recorded {
                recordingEvents(id, recording)
                events.append(.recordingFinish(id, route.shape, route.metadata, route.location))
            } else {
                events.append(.put(id, route.shape, route.metadata, route.location))
            }
            if let edit = route.editLocation { events.append(.edit(id, route.metadata, edit)) }
        }
        for (id, recording) in state.recordings { recordingEvents(id, recording) }
        let order = Dictionary(uniqueKeysWithValues: manifest.segments.enumerated().map { ($1, $0) })
        return events.sorted {
            (order[$0.location.segment] ?? 0, $0.location.offset) < (order[$1.location.segment] ?? 0, $1.location.offset)
        }
    }

    /// Deletes files of this store that the manifest does not name: old segments and
    /// indexes after a compaction, and work files of an interrupted one.
    mutating func removeLeftovers() {
        guard let names = try? fileSystem.listDirectory(directory) else { return }
        let live = Set(manifest.segments.map(FormatConstants.segmentName)
            + [FormatConstants.indexName(manifest.indexFile), FormatConstants.manifestName, FormatConstants.lockName])
        var removed = false
        for name in names where !live.contains(name) && StoreFiles.isStoreFile(name) {
            if (try? fileSystem.unlink(path(name))) != nil { removed = true }
        }
        if removed { try? fileSystem.syncDirectory(directory) }
    }

    /// Makes a new, empty store's files (format-spec.md, "Manifest"), after checking the
    /// directory holds nothing else.
    private static func createFiles(directory: String, fileSystem: any FileSystem) throws {
        let names = try fileSystem.checked("list", directory) { try fileSystem.listDirectory(directory) }
        if let foreign = names.first(where: { !StoreFiles.isStoreFile($0) }) {
            throw RouteLogError(.invalidArgument, "the directory is not a RouteLog store: it holds \"\(foreign)\" and no MANIFEST; choose an empty or new directory", path: directory)
        }
        for name in names where name.hasPrefix(FormatConstants.segmentPrefix) && name.hasSuffix(FormatConstants.segmentSuffix) {
            let path = directory + "/" + name
            if let file = try? DurableFile.open(path, flags: O_RDONLY, fileSystem: fileSystem),
               let size = try? file.size(), size > Int64(FormatConstants.fileHeaderSize) {
                throw RouteLogError.corrupted("MANIFEST is missing but segments hold routes; restore MANIFEST from a backup rather than start a new store over them", path: path)
            }
        }
        for name in names where name != FormatConstants.lockName {
            try fileSystem.checked("unlink", directory + "/" + name) { try fileSystem.unlink(directory + "/" + name) }
        }
        let core = StoreCore(directory: directory, fileSystem: fileSystem, writable: true,
                             manifest: Manifest(generation: 1, nextFileNumber: 3, nextRouteID: 1, indexFile: 2, segments: [1]),
                             segments: [:], segmentEnds: [:])
        _ = try core.createLogFile(kind: .segment, number: 1)
        _ = try core.createLogFile(kind: .index, number: 2)
        do {
            try core.manifest.write(in: directory, fileSystem: fileSystem)
        } catch let uncertain as Manifest.SwitchUncertain {
            throw uncertain.underlying
        }
    }
}

/// Names of the files a store may hold (format-spec.md, "Files of a store").
enum StoreFiles {
    static func isStoreFile(_ name: String) -> Bool {
        var base = name
        for suffix in [FormatConstants.temporarySuffix] where base.hasSuffix(suffix) {
            base.removeLast(suffix.count)
        }
        if base == FormatConstants.manifestName || base == FormatConstants.lockName { return true }
        func numbered(_ prefix: String, _ suffix: String) -> Bool {
            guard base.hasPrefix(prefix), base.hasSuffix(suffix), base.count > prefix.count + suffix.count else { return false }
            let digits = base.dropFirst(prefix.count).dropLast(suffix.count)
            return digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
        }
        return numbered(FormatConstants.segmentPrefix, FormatConstants.segmentSuffix)
            || numbered(FormatConstants.indexPrefix, FormatConstants.indexSuffix)
    }
}
