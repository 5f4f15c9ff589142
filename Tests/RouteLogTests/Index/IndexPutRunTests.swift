import Foundation
import Testing
@testable import RouteLog

/// IndexPutRun (format-spec.md, "Index records"): the writer lays a run out as the spec
/// says, a reader reads back what was written, refuses what is cut or changed or reads
/// it without stopping, takes a run exactly as the IndexPuts it stands for, and a forged
/// run whose metadata breaks a rule the open does not check still opens and is what
/// `verify` reports.
@Suite struct IndexPutRunTests {
    /// The live puts of a store of `count` routes (some named, with calories, tags,
    /// notes and values), with their locations, read from its index.
    static func puts(_ dir: TemporaryDirectory, count: Int, seed: UInt64 = 3) throws -> (URL, [IndexPutRun.Entry]) {
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var routes = RandomRoutes(seed: seed)
        for i in 0..<count {
            var route = routes.next()
            route.metadata.tags = i % 2 == 0 ? ["t\(i)"] : []
            route.metadata.notes = i % 3 == 0 ? "note \(i)" : nil
            route.metadata.values = i % 4 == 0 ? ["k": "\(i)"] : [:]
            try store.save(route)
        }
        let entries = store.state.withLock { s in
            s.index.liveEvents(segmentOrder: s.segments.numbers).compactMap { event -> IndexPutRun.Entry? in
                guard case .put(let id, let shape, let metadata, let location) = event else { return nil }
                return IndexPutRun.Entry(id: id, location: location, shape: shape, metadata: metadata)
            }
        }
        try store.close()
        return (url, entries)
    }

    static func encoded(_ metadata: StoredMetadata) -> [UInt8] {
        var w = ByteWriter(capacity: 128)
        metadata.write(to: &w)
        return w.bytes
    }

    /// A run's payload built byte by byte from format-spec.md: count, metadata length,
    /// each 88-byte entry, then the metadata, each given as bytes (so a test can forge it).
    static func specPayload(_ entries: [(id: UInt64, location: RecordLocation, shape: RouteShape, metadata: [UInt8])]) -> [UInt8] {
        func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var b = le(UInt32(entries.count)) + le(UInt32(entries.reduce(0) { $0 + $1.metadata.count }))
        for e in entries {
            b += le(e.id) + le(e.location.segment) + le(UInt64(e.location.offset)) + le(UInt32(e.location.length))
            let s = e.shape
            b += le(s.firstMs) + le(s.durationMs) + le(s.pointCount) + le(s.distance.bitPattern)
            for v in [s.south, s.west, s.north, s.east, s.startLat, s.startLon, s.endLat, s.endLon] { b += le(v) }
            b += le(UInt32(e.metadata.count))
        }
        for e in entries { b += e.metadata }
        return b
    }

    static func specEntries(_ entries: [IndexPutRun.Entry]) -> [(id: UInt64, location: RecordLocation, shape: RouteShape, metadata: [UInt8])] {
        entries.map { ($0.id.rawValue, $0.location, $0.shape, encoded($0.metadata)) }
    }

    /// Replaces the store's index file with one holding `records` (type, payload).
    static func forgeIndex(_ url: URL, _ records: [(FormatConstants.RecordType, [UInt8])]) throws {
        let manifest = try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared))
        var bytes = FileHeader(kind: .index, fileNumber: manifest.indexFile, version: FormatConstants.version).encoded()
        for (type, payload) in records { bytes += RecordFrame.encode(type: type, payload: payload) }
        try Data(bytes).write(to: url.appendingPathComponent(FormatConstants.indexName(manifest.indexFile)))
    }

    /// The record types of the store's index file, in order.
    static func indexRecordTypes(_ url: URL) throws -> [UInt8] {
        let manifest = try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared))
        let path = url.appendingPathComponent(FormatConstants.indexName(manifest.indexFile)).path
        let file = try DurableFile.open(path, flags: O_RDONLY, fileSystem: PosixFileSystem.shared)
        var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: try file.size())
        var types: [UInt8] = []
        while let record = try scanner.next() { types.append(record.type) }
        #expect(scanner.damage.isEmpty)
        return types
    }

    @Test func theWriterLaysOutARunAsTheFormatSays() throws {
        let dir = TemporaryDirectory()
        let (_, entries) = try Self.puts(dir, count: 12)
        #expect(entries.count == 12)
        #expect(IndexPutRun.payload(entries) == Self.specPayload(Self.specEntries(entries)))
        #expect(FormatConstants.indexPutRunEntrySize == 88)
    }

    @Test func aRunReadsBackWhatWasWritten() throws {
        let dir = TemporaryDirectory()
        let (_, entries) = try Self.puts(dir, count: 40)
        var read: [IndexPutRun.Put] = []
        var decoded: [StoredMetadata] = []
        try IndexPutRun.forEachPut(in: IndexPutRun.payload(entries)[...]) { put in
            read.append(put)
            decoded.append(StoredMetadata(MetadataView(checked: ArraySlice(put.metadata))))
        }
        #expect(read.map(\.id) == entries.map(\.id))
        #expect(read.map(\.location) == entries.map(\.location))
        #expect(read.map(\.shape) == entries.map(\.shape))
        #expect(read.map(\.shiftMs) == entries.map(\.metadata.shiftMs))
        #expect(decoded == entries.map(\.metadata))
        // Checked against every rule, as verify does, the same run passes.
        var count = 0
        try IndexPutRun.forEachPut(in: IndexPutRun.payload(entries)[...], everyRule: true) { _ in count += 1 }
        #expect(count == entries.count)
    }

    /// Every cut is refused; every flipped bit is refused or reads as puts whose
    /// metadata decodes (fully and for a summary) without stopping the process.
    @Test func everyCutIsRefusedAndEveryFlipReadsSafely() throws {
        let dir = TemporaryDirectory()
        let (_, entries) = try Self.puts(dir, count: 3)
        let payload = IndexPutRun.payload(entries)
        for cut in 0..<payload.count {
            #expect(throws: ByteReader.Malformed.self) { try IndexPutRun.forEachPut(in: payload[..<cut]) { _ in } }
        }
        var accepted = 0
        for bit in 0..<(payload.count * 8) {
            var forged = payload
            forged[bit / 8] ^= 1 << UInt8(bit % 8)
            do {
                try IndexPutRun.forEachPut(in: forged[...]) { put in
                    let bytes = ArraySlice(put.metadata)
                    let metadata = StoredMetadata(MetadataView(checked: bytes))
                    _ = StoredMetadata(MetadataView(checked: bytes), summaryOnly: true)
                    _ = put.shape.summary(id: put.id, metadata: metadata)
                    #expect(metadata.shiftMs == put.shiftMs)
                }
                accepted += 1
            } catch is ByteReader.Malformed {
            }
        }
        // Some flips land in values no check covers (a coordinate, a name's letter).
        #expect(accepted > 0)
    }

    @Test func aRebuiltIndexIsRunsAndOpensToTheSameStore() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var routes = RandomRoutes(seed: 21)
        var ids: [RouteID] = []
        for i in 0..<300 {
            var route = routes.next()
            route.metadata.activity = i % 2 == 0 ? .walk : .custom("kayak \(i)")
            ids.append(try store.save(route))
        }
        for (i, id) in ids.enumerated() where i % 9 == 0 { _ = try store.edit(id, RouteEdit(name: "edited \(i)", tags: ["e"])) }
        for (i, id) in ids.enumerated() where i % 13 == 0 { try store.delete(id) }
        try store.close()
        try Fixtures.removeIndexFiles(in: url)
        try RouteStore(at: url).close()
        let types = try Self.indexRecordTypes(url)
        #expect(types.contains(FormatConstants.RecordType.indexPutRun.rawValue))
        #expect(types.contains(FormatConstants.RecordType.indexEdit.rawValue))
        try IndexLoadTests.bothWays(url, dir)
        let report = try RouteStore(at: url, options: .init(mode: .readOnly)).verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
    }

    /// A run whose metadata keeps the layout but breaks rules the open does not check
    /// (an unknown activity code, a three-byte uuid, a preview of five points holding
    /// one, stats with unknown bits) opens and lists; those fields are left out; verify
    /// reports the index; without the index the store reads the segments' metadata.
    @Test func aForgedRunBreakingRulesOpensAndVerifyReportsIt() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try Self.puts(dir, count: 3)
        var forged = Self.specEntries(entries)
        func field(_ tag: UInt64, _ value: [UInt8]) -> [UInt8] { [UInt8(tag), UInt8(value.count)] + value }
        let fields = field(1, [200]) + field(5, [1, 2, 3]) + field(18, [0, 5, 2, 2]) + field(16, [0x80, 1, 1])
        forged[1].metadata = [FormatConstants.MetadataFlag.extensionFields] + [UInt8](repeating: 0, count: 8)
            + [UInt8(fields.count)] + fields
        try Self.forgeIndex(url, [(.indexPutRun, Self.specPayload(forged))])

        let store = try RouteStore(at: url, options: .init(mode: .readOnly))
        let summaries = try store.summaries()
        #expect(summaries.count == 3)
        let second = try #require(summaries.first { $0.id == entries[1].id })
        #expect(second.activity == nil && second.stats == nil && second.preview == nil)
        _ = try store.metadata(entries[1].id)
        #expect(try store.metadata(entries[0].id) == entries[0].metadata.routeMetadata)
        let report = try store.verify()
        #expect(report.problems.contains { $0.kind == .damagedIndex && $0.message.contains("breaks a rule") }, "\(report.problems)")
        try store.close()

        try Fixtures.removeIndexFiles(in: url)
        let rebuilt = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try rebuilt.metadata(entries[1].id) == entries[1].metadata.routeMetadata)
        try rebuilt.close()
    }

    /// A run replays as the IndexPuts it stands for, even a forged one that names an
    /// id twice: the last put wins both ways.
    @Test func aRunIsTheSameAsItsPutsEvenWithAnIDTwice() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try Self.puts(dir, count: 4)
        var twice = entries
        twice[2].id = entries[1].id
        twice[2].metadata.name = "second of two"
        try Self.forgeIndex(url, [(.indexPutRun, IndexPutRun.payload(twice))])
        let fromRun = try IndexLoadTests.view(url)
        try Self.forgeIndex(url, twice.map { entry in
            let record = LogEvent.put(entry.id, entry.shape, entry.metadata, entry.location).indexRecord()
            return (record.type, record.payload)
        })
        let fromPuts = try IndexLoadTests.view(url)
        #expect(fromRun.0 == fromPuts.0 && fromRun.1 == fromPuts.1 && fromRun.2 == fromPuts.2)
        #expect(fromRun.0.count == 3)
        #expect(fromRun.1[entries[1].id]?.name == "second of two")
    }

    /// A run whose locations go back in a segment is ahead of the segments: the store
    /// reads the segments instead (the run's forged names are not seen).
    @Test func aRunWithLocationsOutOfOrderIsNotUsed() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try Self.puts(dir, count: 4)
        var swapped = entries
        swapped.swapAt(1, 2)
        for i in swapped.indices { swapped[i].metadata.name = "forged \(i)" }
        try Self.forgeIndex(url, [(.indexPutRun, IndexPutRun.payload(swapped))])
        let store = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(store.state.withLock { $0.indexRebuilt })
        #expect(try store.summaries().allSatisfy { !($0.name ?? "").hasPrefix("forged") })
        try store.close()
    }

    /// Counts and lengths that do not add up make the record damage, and the store
    /// reads its segments.
    @Test func aRunWhoseCountsDoNotAddUpIsDamage() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try Self.puts(dir, count: 3)
        let good = IndexPutRun.payload(entries)
        var badCount = good
        badCount[0] = 4
        var badLength = good
        badLength[4] &+= 1
        var longerEntry = Self.specEntries(entries)
        longerEntry[0].metadata += [0]
        for payload in [badCount, badLength, Self.specPayload(longerEntry), Array(good.prefix(8)), good + [0]] {
            try Self.forgeIndex(url, [(.indexPutRun, payload)])
            let store = try RouteStore(at: url, options: .init(mode: .readOnly))
            #expect(store.state.withLock { $0.indexRebuilt })
            #expect(try store.count == 3)
            try store.close()
        }
    }
}
