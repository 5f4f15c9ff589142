import Foundation
import Testing
@testable import RouteLog

/// Attacks on IndexPutRun (format-spec.md, "Index records"): runs a writer makes of
/// puts whose metadata is as large as the format allows, and runs forged with valid
/// checksums (any bytes in the extension, counts and lengths at their limits, ids at
/// the ends of their range, an id twice across runs and IndexPuts, runs mixed with the
/// other records). The process never stops, the store opens from the index or from the
/// segments, and every public read and change works on what it opened.
@Suite struct IndexPutRunAttackTests {
    // MARK: Runs a writer makes

    /// Puts whose metadata holds `fieldBytes` bytes of an unknown extension field (what a
    /// newer writer may store, up to the 64 KiB extension limit), every `escapeEvery`
    /// bytes starting an `AB 52 4C` (which escaping grows by a byte).
    static func largePuts(_ count: Int, fieldBytes: Int, escapeEvery: Int = 1 << 30) -> [LogEvent] {
        var field = ByteWriter(capacity: fieldBytes + 8)
        field.varint(99)
        field.varint(fieldBytes)
        var value = [UInt8](repeating: 0x20, count: fieldBytes)
        for i in stride(from: 0, to: fieldBytes - 2, by: max(3, escapeEvery)) { value[i...(i + 2)] = [0xAB, 0x52, 0x4C] }
        field.append(contentsOf: value)
        var metadata = StoredMetadata(RouteMetadata(name: "large"))
        metadata.unknownFields = field.bytes
        let shape = RouteShape(firstMs: 1_700_000_000_000, durationMs: 1000, pointCount: 2, distance: 10, south: 0, west: 0,
                               north: 1, east: 1, startLat: 0, startLon: 0, endLat: 1, endLon: 1)
        return (0..<count).map { i in
            .put(RouteID(UInt64(i + 1)), shape, metadata,
                 RecordLocation(segment: 1, offset: Int64(FormatConstants.fileHeaderSize) + Int64(i) * 100, length: 100))
        }
    }

    /// The puts of index records `bytes` (as ``IndexFile/records(_:)`` makes them), read
    /// back through a file as an open reads them; every frame checked to fit the format.
    static func readBack(_ bytes: [UInt8], _ dir: TemporaryDirectory) throws -> [(RouteID, RecordLocation, StoredMetadata)] {
        let url = dir.url.appendingPathComponent("index-00000002.rlidx")
        try Data(FileHeader(kind: .index, fileNumber: 2).encoded() + bytes).write(to: url)
        let file = try DurableFile.open(url.path, flags: O_RDONLY, fileSystem: PosixFileSystem.shared)
        var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: try file.size())
        var puts: [(RouteID, RecordLocation, StoredMetadata)] = []
        while let record = try scanner.next() {
            #expect(record.frameLength <= FormatConstants.recordHeaderSize + FormatConstants.maxPayloadLength)
            if record.type == FormatConstants.RecordType.indexPutRun.rawValue {
                try IndexPutRun.forEachPut(in: record.payload, everyRule: true) { put in
                    puts.append((put.id, put.location, StoredMetadata(MetadataView(checked: ArraySlice(put.metadata)))))
                }
            } else if case .put(let id, _, let metadata, let location) = try LogEvent.fromIndex(record) {
                puts.append((id, location, metadata))
            }
        }
        #expect(scanner.damage.isEmpty && !scanner.tailIsTorn)
        return puts
    }

    /// 1,100 puts of 60,000-byte metadata are 66 MB of run, past the 64 MiB a record may
    /// hold (more once escaped): the writer splits them into runs that fit, which read
    /// back as the same puts. (Rebuilding, compacting or rewriting at close the index of
    /// such a store, or saving such routes in one batch, stopped the process on the
    /// frame encoder's precondition.)
    @Test func aRunOfLargeMetadataIsSplitToFitARecord() throws {
        let dir = TemporaryDirectory()
        let events = Self.largePuts(1_100, fieldBytes: 60_000)
        let (bytes, singles) = IndexFile.records(events)
        #expect(singles == 0)
        let puts = try Self.readBack(bytes, dir)
        #expect(puts.map(\.0) == events.map(\.id))
        #expect(puts.map(\.1) == events.map(\.location))
        guard case .put(_, _, let metadata, _) = events[0] else { return }
        #expect(puts.allSatisfy { $0.2 == metadata })
    }

    /// Metadata as large as an app may give (a 1 KiB name, 4 KiB of notes, 32 tags, 32
    /// values of 1 KiB), on 1,600 routes saved in one batch: their index records are
    /// puts in a row, 68 MB of them. The save, the close and the reopen work (the
    /// save's index append stopped the process before runs were split).
    @Test func aBatchOfRoutesWithTheLargestMetadataSavesAndReopens() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        let kilobyte = String(repeating: "v", count: FormatConstants.maxValueBytes)
        var metadata = RouteMetadata(name: String(repeating: "n", count: FormatConstants.maxNameBytes))
        metadata.notes = String(repeating: "o", count: FormatConstants.maxNotesBytes)
        metadata.tags = (0..<FormatConstants.maxTags).map { String(format: "%064d", $0) }
        metadata.values = Dictionary(uniqueKeysWithValues: (0..<FormatConstants.maxValues).map { (String(format: "%064d", $0), kilobyte) })
        let routes = (0..<1_600).map { i in
            let t = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 600)
            return Route(points: [TrackPoint(latitude: 45, longitude: 9, timestamp: t),
                                  TrackPoint(latitude: 45.001, longitude: 9.001, timestamp: t + 60)], metadata: metadata)
        }
        let ids = try store.save(routes)
        try store.close()
        let reopened = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(!reopened.state.withLock { $0.indexRebuilt })
        #expect(try reopened.count == ids.count)
        #expect(try reopened.metadata(ids[ids.count - 1]).values == metadata.values)
        try reopened.close()
    }

    /// The split leaves room for escaping: a run as large as a writer makes grows by at
    /// most a third, which still fits a record; 54 MB of puts whose metadata holds an
    /// `AB 52 4C` every 300 bytes are split and read back whole.
    @Test func aSplitRunFitsOnceEscaped() throws {
        #expect(IndexPutRun.maxPayloadBytes + IndexPutRun.maxPayloadBytes / 3 <= FormatConstants.maxPayloadLength)
        let dir = TemporaryDirectory()
        let events = Self.largePuts(900, fieldBytes: 60_000, escapeEvery: 300)
        let puts = try Self.readBack(IndexFile.records(events).bytes, dir)
        #expect(puts.map(\.0) == events.map(\.id))
    }

    // MARK: Ids at the ends of their range

    /// A run may name ids 1 and 2^62, the largest a record may hold. The store opens
    /// from it; a save then either gets an id a reader accepts or is refused, and the
    /// store opens again afterwards with every save it acknowledged. (The writer gave
    /// the next route id 2^62 + 1, which no reader accepts: the save's record read back
    /// as damage, and a MANIFEST holding it made the store refuse to open at all.)
    @Test func aRunNamingTheLargestIDLeavesAStoreThatOpensAgain() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 3)
        var forged = entries
        forged[0].id = RouteID(1)
        forged[2].id = RouteID(FormatConstants.maxRouteID)
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRun.payload(forged))])

        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        #expect(!store.state.withLock { $0.indexRebuilt })
        #expect(Set(try store.summaries().map(\.id)) == Set(forged.map(\.id)))
        let saved = try? store.save(Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 1e9))]))
        if let saved { #expect(saved.rawValue <= FormatConstants.maxRouteID) }
        // A roll writes the manifest with the writer's next route id.
        try store.withWriter { try $0.roll() }
        try store.close()

        let reopened = try RouteStore(at: url, options: .init(compaction: .manual))
        if let saved { #expect(try reopened.summary(saved).pointCount == 1) }
        #expect(try reopened.summary(RouteID(FormatConstants.maxRouteID)).id == RouteID(FormatConstants.maxRouteID))
        #expect(try reopened.verify().problems.allSatisfy { $0.kind != .damagedBytes })
        try reopened.close()
    }

    /// A segment whose RoutePut has id 2^62 (valid, if no writer's): the open rebuilds
    /// the index and writes the manifest, and the store opens again, more than once.
    @Test func aRouteOfTheLargestIDInTheSegmentsLeavesAStoreThatOpensAgain() throws {
        let dir = TemporaryDirectory()
        let route = Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 1e9))])
        let url = try ForgedRouteStore.make(dir, route: route, withIndex: false) { $0.id = RouteID(FormatConstants.maxRouteID) }
        for _ in 0..<3 {
            let store = try RouteStore(at: url, options: .init(compaction: .manual))
            #expect(try store.summaries().map(\.id) == [RouteID(FormatConstants.maxRouteID)])
            #expect(throws: RouteLogError.self) { try store.save(route) }
            try store.close()
        }
        let manifest = try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared))
        #expect(manifest.nextRouteID <= FormatConstants.maxRouteID)
    }

    // MARK: Compaction from a forged index

    /// The ids the segments of the store at `url` hold live, read with its index files
    /// removed (in a copy).
    static func idsInSegments(_ url: URL, _ dir: TemporaryDirectory) throws -> Set<RouteID> {
        let copy = dir.store("segments-\(UUID().uuidString.prefix(8)).routelog")
        try FileManager.default.copyItem(at: url, to: copy)
        try Fixtures.removeIndexFiles(in: copy)
        let store = try RouteStore(at: copy, options: .init(mode: .readOnly))
        defer { try? store.close() }
        return Set(try store.summaries().map(\.id))
    }

    /// Compacts the store at `url` (everything worth any bytes rewritten) and returns
    /// the ids its segments hold live afterwards.
    static func compactAndReadSegments(_ url: URL, _ dir: TemporaryDirectory) throws -> Set<RouteID> {
        let options = RouteStore.Options.rewritingEverySegment
        let store = try RouteStore(at: url, options: options)
        _ = try store.compact()
        try store.close()
        return try idsInSegments(url, dir)
    }

    /// A run that names one route's id at another's record (an id twice, the last
    /// winning): the index then takes the first route's record for dead. Compacting
    /// keeps both routes in the segments. (The compaction copied the second record as
    /// the first route and dropped the first route's record: a route the segments held
    /// was lost for good.)
    @Test func compactingFromARunThatNamesAnIDTwiceLosesNoRoute() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 4)
        let before = try Self.idsInSegments(url, dir)
        var forged = entries
        forged[2].id = entries[1].id
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRun.payload(forged))])
        #expect(try Self.compactAndReadSegments(url, dir) == before)
    }

    /// A run that leaves out a route whose record is between two it names (no catch-up
    /// scan finds it): compacting keeps it in the segments. (It was dropped as dead.)
    @Test func compactingFromARunThatLeavesARouteOutLosesNoRoute() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 4)
        let before = try Self.idsInSegments(url, dir)
        var forged = entries
        forged.remove(at: 1)
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRun.payload(forged))])
        #expect(try Self.compactAndReadSegments(url, dir) == before)
    }

    // MARK: Forged runs: nothing stops the process

    /// Metadata bytes whose layout passes an open's checks (flags, shift, calories,
    /// distance, name and extension lengths) and whose name and extension are anything:
    /// random bytes, or fields of every known tag with values that break its rules
    /// (lengths past the end, varints of ten bytes, cells and previews out of range...).
    static func forgedMetadata(_ g: inout SeededGenerator, extensionLimit: Int = 600) -> [UInt8] {
        typealias Flag = FormatConstants.MetadataFlag
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) } }
        var w = ByteWriter(capacity: 256)
        let flags = UInt8.random(in: 0...Flag.all, using: &g)
        w.u8(flags)
        let latest = FormatConstants.latestTimestampMs
        w.i64([0, latest, -latest, Int64.random(in: -latest...latest, using: &g)][Int.random(in: 0..<4, using: &g)])
        if flags & Flag.calories != 0 { w.f64([0, 1e300, Double.random(in: 0...1e6, using: &g)].randomElement(using: &g)!) }
        if flags & Flag.distance != 0 { w.f64([0, .greatestFiniteMagnitude, Double.random(in: 0...1e6, using: &g)].randomElement(using: &g)!) }
        if flags & Flag.name != 0 {
            let n = [0, FormatConstants.maxNameBytes, Int.random(in: 0...40, using: &g)].randomElement(using: &g)!
            w.u16(UInt16(n))
            w.append(contentsOf: bytes(n))
        }
        if flags & Flag.extensionFields != 0 {
            var fields = ByteWriter(capacity: 256)
            while fields.count < Int.random(in: 0...extensionLimit, using: &g) {
                let tag = [1, 2, 3, 4, 5, 16, 17, 18, 99, UInt64.max].randomElement(using: &g)!
                fields.varint(tag)
                var value: [UInt8]
                switch Int.random(in: 0..<6, using: &g) {
                case 0: value = []
                case 1: value = bytes(Int.random(in: 1...80, using: &g))
                case 2: value = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]  // a ten-byte varint
                case 3: value = [UInt8.random(in: 0...30, using: &g), 0xFF, 0xFF, 0xFF, 0xFF, 0x0F] + bytes(4)
                case 4: value = [0, 5] + bytes(3)  // a preview or stats of too few bytes
                default: value = [UInt8.random(in: 0...7, using: &g)] + bytes(Int.random(in: 0...20, using: &g))
                }
                if Int.random(in: 0..<8, using: &g) == 0 {
                    fields.varint(value.count + 50)  // a length past the extension's end
                } else {
                    fields.varint(value.count)
                }
                fields.append(contentsOf: value)
            }
            if Bool.random(using: &g) { fields.append(contentsOf: bytes(Int.random(in: 1...5, using: &g))) }  // a cut field
            w.varint(fields.count)
            w.append(contentsOf: fields.bytes)
        }
        return w.bytes
    }

    /// Every public read of `store`, and with `writable` an edit of each route, a
    /// compaction and a verify: none may stop the process (errors are fine).
    static func exercise(_ store: RouteStore, writable: Bool, dir: TemporaryDirectory) throws {
        let summaries = try store.summaries()
        for (i, summary) in summaries.enumerated() {
            _ = try store.metadata(summary.id)
            _ = try store.summary(summary.id)
            guard i % 4 == 0 else { continue }
            _ = try? store.route(summary.id)
            for format in RouteExportFormat.allCases { _ = try? RouteExporter.data(for: summary.id, in: store, format: format) }
        }
        var query = RouteQuery()
        query.passesThrough = BoundingBox(southWest: .init(latitude: -90, longitude: -180), northEast: .init(latitude: 90, longitude: 180))
        query.tags = ["t0"]
        for sort in [RouteQuery.Sort.startDate, .distance, .duration, .name] {
            query.sort = sort
            _ = try store.summaries(matching: query)
            _ = try store.summaries(matching: RouteQuery(from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 7e9)))
        }
        var kinds = RouteQuery()
        kinds.activities = [.walk, .custom(""), .custom("kayak")]
        kinds.nameContains = "a"
        _ = try store.summaries(matching: kinds)
        _ = try store.totals()
        _ = try store.weeklyTotals()
        for period in TotalsPeriod.allCases { _ = try store.totals(by: period) }
        _ = try store.statistics()
        if !writable { _ = try? ParquetExporter.export(store, to: dir.url.appendingPathComponent("parquet-\(UUID().uuidString.prefix(8))")) }
        guard writable else {
            _ = try store.verify()
            return
        }
        for summary in summaries {
            _ = try? store.edit(summary.id, RouteEdit(name: "edited"))
            _ = try? store.edit(summary.id, RouteEdit(shift: 60))
        }
        _ = try store.compact()
        _ = try store.summaries()
        _ = try store.verify()
    }

    /// Runs of 24 routes whose metadata is forged (seeded, every layout the open
    /// accepts), read-only and writable: every read, edit, compaction and verify works,
    /// and the segments keep every route they held.
    @Test(arguments: [1, 2, 3, 4] as [UInt64]) func forgedRunMetadataNeverStopsTheProcess(seed: UInt64) throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 24, seed: seed)
        let before = try Self.idsInSegments(url, dir)
        var g = SeededGenerator(state: seed)
        var forged = IndexPutRunTests.specEntries(entries)
        for i in forged.indices { forged[i].metadata = Self.forgedMetadata(&g, extensionLimit: i == 7 ? FormatConstants.maxExtensionBytes - 64 : 600) }
        // Split into runs of random sizes, some of one put.
        var records: [(FormatConstants.RecordType, [UInt8])] = []
        var rest = forged[...]
        while !rest.isEmpty {
            let n = min(rest.count, [1, 2, 5, 17].randomElement(using: &g)!)
            records.append((.indexPutRun, IndexPutRunTests.specPayload(Array(rest.prefix(n)))))
            rest = rest.dropFirst(n)
        }
        try IndexPutRunTests.forgeIndex(url, records)

        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(!reader.state.withLock { $0.indexRebuilt })
        #expect(try reader.count == entries.count)
        try Self.exercise(reader, writable: false, dir: dir)
        try reader.close()

        let options = RouteStore.Options.rewritingEverySegment
        let writer = try RouteStore(at: url, options: options)
        try Self.exercise(writer, writable: true, dir: dir)
        try writer.close()
        #expect(try Self.idsInSegments(url, dir) == before)
        let reopened = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try reopened.count == entries.count)
        _ = try reopened.verify()
        try reopened.close()
    }

    // MARK: What verify sees

    /// A run whose shape of a route is not its record's (a start an hour later, a
    /// kilometre more): listing and queries show the run's figures, and verify reports
    /// that the index and the segments disagree about that route. (It reported nothing:
    /// it compared each route's location, metadata and recording, not its shape.)
    @Test func verifyReportsARunWhoseShapeIsNotTheSegments() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 3)
        var forged = entries
        forged[1].shape.firstMs += 3_600_000
        forged[1].shape.distance += 1000
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRun.payload(forged))])
        let store = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(!store.state.withLock { $0.indexRebuilt })
        let report = try store.verify()
        #expect(report.problems.map(\.routeID) == [forged[1].id], "\(report.problems)")
        #expect(report.problems.allSatisfy { $0.kind == .indexMismatch })
        try store.close()
    }

    // MARK: Runs mixed with the other records

    /// A seeded history of index events over a few ids (puts, an id put twice, edits,
    /// deletes, recordings started, chunked, finished and discarded, events of ids that
    /// are no route), at increasing locations past the segment's end.
    static func mixedEvents(seed: UInt64, base: [IndexPutRun.Entry]) -> [LogEvent] {
        var g = SeededGenerator(state: seed)
        var offset = base.map(\.location.end).max()!
        var events: [LogEvent] = []
        for _ in 0..<120 {
            let length = Int.random(in: 20...300, using: &g)
            let location = RecordLocation(segment: base[0].location.segment, offset: offset, length: length)
            offset += Int64(length) + Int64.random(in: 0...50, using: &g)
            let id = RouteID(UInt64.random(in: 1...9, using: &g))
            var template = base.randomElement(using: &g)!
            template.metadata.name = "m\(events.count)"
            template.metadata.shiftMs = Int64.random(in: -100_000...100_000, using: &g)
            switch Int.random(in: 0..<12, using: &g) {
            case 0..<6: events.append(.put(id, template.shape, template.metadata, location))
            case 6: events.append(.edit(id, template.metadata, location))
            case 7: events.append(.delete(id, location))
            case 8: events.append(.recordingStart(id, startedMs: 5, template.metadata, location))
            case 9: events.append(.recordingChunk(id, firstPoint: Int.random(in: 0...4, using: &g), pointCount: 2, location))
            case 10: events.append(.recordingFinish(id, template.shape, template.metadata, location))
            default: events.append(.recordingDiscard(id, location))
            }
        }
        return events
    }

    /// The same events stored as runs (wherever puts are in a row) and one record each
    /// open to the same store: every route, metadata, recording, tombstone and counter.
    @Test(arguments: Array(UInt64(1)...8)) func runsMixedWithOtherRecordsOpenAsTheirPuts(seed: UInt64) throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 3, seed: seed)
        let events = Self.mixedEvents(seed: seed, base: entries)
        func state(_ records: [(FormatConstants.RecordType, [UInt8])]) throws -> IndexRunEquivalenceTests.IndexState {
            try IndexPutRunTests.forgeIndex(url, records)
            let store = try RouteStore(at: url, options: .init(mode: .readOnly))
            defer { try? store.close() }
            #expect(!store.state.withLock { $0.indexRebuilt })
            return try IndexRunEquivalenceTests.IndexState(store)
        }
        let singles = events.map { event in
            let record = event.indexRecord()
            return (record.type, record.payload)
        }
        // Runs as the writer makes them, and runs of every length down to one.
        var runs: [(FormatConstants.RecordType, [UInt8])] = []
        var pending: [IndexPutRun.Entry] = []
        var g = SeededGenerator(state: seed)
        func flush() {
            if !pending.isEmpty { runs.append((.indexPutRun, IndexPutRun.payload(pending))) }
            pending = []
        }
        for event in events {
            if case .put(let id, let shape, let metadata, let location) = event {
                pending.append(IndexPutRun.Entry(id: id, location: location, shape: shape, metadata: metadata))
                if Int.random(in: 0..<3, using: &g) == 0 { flush() }
            } else {
                flush()
                let record = event.indexRecord()
                runs.append((record.type, record.payload))
            }
        }
        flush()
        let written = IndexFile.records(events).bytes
        var scanned: [(FormatConstants.RecordType, [UInt8])] = []
        try Data(FileHeader(kind: .index, fileNumber: 2).encoded() + written).write(to: dir.url.appendingPathComponent("scan.rlidx"))
        let file = try DurableFile.open(dir.url.appendingPathComponent("scan.rlidx").path, flags: O_RDONLY, fileSystem: PosixFileSystem.shared)
        var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: try file.size())
        while let record = try scanner.next() { scanned.append((FormatConstants.RecordType(rawValue: record.type)!, Array(record.payload))) }
        #expect(scanned.contains { $0.0 == .indexPutRun })

        let fromSingles = try state(singles)
        #expect(try state(runs) == fromSingles)
        #expect(try state(scanned) == fromSingles)
    }

    // MARK: Heads and lengths at their limits

    /// Runs whose head or entry lengths are at the limits of their fields, or add up
    /// wrong in ways each check alone would miss: each is damage, and the store reads its
    /// segments (three routes). A run of one entry is no damage: it is used.
    @Test func runHeadsAndLengthsAtTheirLimits() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 3)
        let spec = IndexPutRunTests.specEntries(entries)
        let good = IndexPutRunTests.specPayload(spec)
        func withHead(count: UInt32? = nil, metadata: UInt32? = nil, _ payload: [UInt8] = good) -> [UInt8] {
            var p = payload
            if let count { p.replaceSubrange(0..<4, with: withUnsafeBytes(of: count.littleEndian, Array.init)) }
            if let metadata { p.replaceSubrange(4..<8, with: withUnsafeBytes(of: metadata.littleEndian, Array.init)) }
            return p
        }
        func entryLength(_ i: Int, _ length: UInt32, _ payload: [UInt8] = good) -> [UInt8] {
            var p = payload
            let at = 8 + 88 * i + 84
            p.replaceSubrange(at..<(at + 4), with: withUnsafeBytes(of: length.littleEndian, Array.init))
            return p
        }
        let m0 = UInt32(spec[0].metadata.count), m1 = UInt32(spec[1].metadata.count)
        // Two entries' lengths that still add up, the boundary between them moved.
        let shifted = entryLength(1, m1 - 1, entryLength(0, m0 + 1))
        let forged: [[UInt8]] = [
            withHead(count: 0), withHead(count: .max), withHead(count: 1 << 26), withHead(count: 2),
            withHead(metadata: .max), withHead(metadata: 0), withHead(count: .max, metadata: .max),
            entryLength(0, .max), entryLength(0, 0), entryLength(2, UInt32(spec[2].metadata.count) + 1), shifted,
            [UInt8](repeating: 0xFF, count: 8), [], Array(good.dropLast()),
        ]
        for payload in forged {
            try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, payload)])
            let store = try RouteStore(at: url, options: .init(mode: .readOnly))
            #expect(store.state.withLock { $0.indexRebuilt })
            #expect(try store.count == 3)
            try store.close()
        }
        // One run of one entry, then the rest as a run: the index is used.
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRunTests.specPayload(Array(spec.prefix(1)))),
                                              (.indexPutRun, IndexPutRunTests.specPayload(Array(spec.dropFirst())))])
        let store = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(!store.state.withLock { $0.indexRebuilt })
        #expect(try store.count == 3)
        #expect(try store.verify().problems.isEmpty)
        try store.close()
    }

    // MARK: Size

    /// One run of 680,000 puts (as many as a record holds with the smallest metadata,
    /// each a distinct id, all in one segment): the open reads it in one pass and holds
    /// every route. Then a second run naming 100,000 of those ids again: each replaces
    /// its route in place, none is listed twice. Both stay linear (a few seconds in a
    /// debug build).
    @Test func aRunOfAsManyPutsAsARecordHolds() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 1)
        // One entry's bytes as a template, its id and offset patched for each.
        let template = IndexPutRunTests.specPayload([(1, RecordLocation(segment: entries[0].location.segment, offset: 0, length: 20),
                                                      entries[0].shape, [0, 0, 0, 0, 0, 0, 0, 0, 0])])
        let entry = Array(template[8..<(8 + 88)])
        func run(_ count: Int, firstOffset: Int64) -> [UInt8] {
            var payload = [UInt8](repeating: 0, count: 8 + count * (88 + 9))
            payload.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: UInt32(count).littleEndian, toByteOffset: 0, as: UInt32.self)
                raw.storeBytes(of: UInt32(count * 9).littleEndian, toByteOffset: 4, as: UInt32.self)
                entry.withUnsafeBytes { e in
                    for i in 0..<count {
                        let at = 8 + 88 * i
                        raw.baseAddress!.advanced(by: at).copyMemory(from: e.baseAddress!, byteCount: 88)
                        raw.storeBytes(of: UInt64(i + 1).littleEndian, toByteOffset: at, as: UInt64.self)
                        raw.storeBytes(of: UInt64(firstOffset + Int64(i) * 20).littleEndian, toByteOffset: at + 12, as: UInt64.self)
                    }
                }
            }
            return payload
        }
        let count = 680_000
        let first = run(count, firstOffset: Int64(FormatConstants.fileHeaderSize))
        #expect(first.count <= FormatConstants.maxPayloadLength)
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, first)])
        var store = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(!store.state.withLock { $0.indexRebuilt })
        #expect(try store.count == count)
        try store.close()

        let again = 100_000
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, first),
                                              (.indexPutRun, run(again, firstOffset: Int64(FormatConstants.fileHeaderSize) + Int64(count) * 20))])
        store = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(!store.state.withLock { $0.indexRebuilt })
        #expect(try store.count == count)
        #expect(try store.summary(RouteID(UInt64(again))).id == RouteID(UInt64(again)))
        try store.close()
    }

    // MARK: Fields that cannot be read

    /// Derived fields that read whole but are followed by a byte more in their value
    /// (stats, cells, a preview): a run's metadata holding them decodes with each left
    /// out, as the format says of a field that cannot be read, and verify reports the
    /// index. (Each was kept, read up to the stray byte.)
    @Test func aDerivedFieldWithTrailingBytesIsLeftOut() throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 2)
        func field(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] { [tag, UInt8(value.count)] + value }
        // stats: nothing present, moving 1 ms, max speed 2 cm/s; cells: level 13, one
        // cell; preview: tolerance 0, one point at 0, 0. Each with a byte more.
        let fields = field(16, [0, 1, 2, 0]) + field(17, [13, 1, 5, 0]) + field(18, [0, 1, 0, 0, 0])
        var forged = IndexPutRunTests.specEntries(entries)
        forged[1].metadata = [FormatConstants.MetadataFlag.extensionFields] + [UInt8](repeating: 0, count: 8)
            + [UInt8(fields.count)] + fields
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRunTests.specPayload(forged))])
        let store = try RouteStore(at: url, options: .init(mode: .readOnly))
        let summary = try store.summary(entries[1].id)
        #expect(summary.stats == nil)
        #expect(summary.preview == nil)
        let route = try #require(store.state.withLock { $0.index.routes[entries[1].id] })
        #expect(route.metadata.derived.cells == nil)
        #expect(try store.verify().problems.contains { $0.kind == .damagedIndex })
        try store.close()
    }

    /// Metadata of a run at each layout limit an open checks, and one past it: a name
    /// of 1,024 bytes, an extension of 64 KiB, a time shift of the whole 1970...2200 span
    /// are used; a name of 1,025 or 65,535 bytes, an extension of 64 KiB + 1, a shift a
    /// millisecond longer, calories that are infinite or not a number, an unknown flag,
    /// metadata cut before its shift: damage, the segments read.
    @Test func runMetadataAtTheLayoutLimits() throws {
        typealias Flag = FormatConstants.MetadataFlag
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 2)
        func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
        let noShift = [UInt8](repeating: 0, count: 8)
        func name(_ n: Int) -> [UInt8] { [Flag.name] + noShift + le(UInt16(truncatingIfNeeded: n)) + [UInt8](repeating: 0x61, count: n) }
        func unknownField(_ total: Int) -> [UInt8] {
            // One field of tag 99 whose varint length takes 3 bytes: `total` bytes in all.
            var w = ByteWriter(capacity: total + 8)
            w.varint(99)
            w.varint(total - 4)
            w.append(contentsOf: [UInt8](repeating: 7, count: total - 4))
            var m = ByteWriter(capacity: total + 16)
            m.u8(Flag.extensionFields)
            m.append(contentsOf: noShift)
            m.varint(w.count)
            m.append(contentsOf: w.bytes)
            return m.bytes
        }
        let latest = FormatConstants.latestTimestampMs
        let used: [[UInt8]] = [name(FormatConstants.maxNameBytes), unknownField(FormatConstants.maxExtensionBytes),
                               [0] + le(latest), [0] + le(-latest), [Flag.calories] + noShift + le(Double(0).bitPattern)]
        let refused: [[UInt8]] = [name(FormatConstants.maxNameBytes + 1), name(0xFFFF), unknownField(FormatConstants.maxExtensionBytes + 1),
                                  [0] + le(latest + 1), [0] + le(Int64.min),
                                  [Flag.calories] + noShift + le(Double.infinity.bitPattern),
                                  [Flag.distance] + noShift + le(Double.nan.bitPattern),
                                  [Flag.calories] + noShift + le((-1.0).bitPattern), [0x10] + noShift, [0, 0, 0]]
        for (metadata, isUsed) in used.map({ ($0, true) }) + refused.map({ ($0, false) }) {
            var forged = IndexPutRunTests.specEntries(entries)
            forged[1].metadata = metadata
            try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRunTests.specPayload(forged))])
            let store = try RouteStore(at: url, options: .init(mode: .readOnly))
            #expect(store.state.withLock { $0.indexRebuilt } == !isUsed, "\(metadata.prefix(12))")
            #expect(try store.count == 2)
            _ = try store.summaries()
            _ = try store.metadata(entries[1].id)
            try store.close()
        }
    }

    /// A store of routes 0, 1 and 2 saved, with `change` (an edit or delete of route 0)
    /// between the saves of routes 1 and 2, and its index forged as one run of the three
    /// puts: the change left out, where no catch-up scan finds it.
    static func storeWithAChangeLeftOut(_ dir: TemporaryDirectory, _ change: (RouteStore, RouteID) throws -> Void) throws -> (URL, [RouteID]) {
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var routes = RandomRoutes(seed: 5)
        var ids = [try store.save(routes.next()), try store.save(routes.next())]
        try change(store, ids[0])
        ids.append(try store.save(routes.next()))
        let puts = store.state.withLock { s in
            s.index.liveEvents(segmentOrder: s.segments.numbers).compactMap { event -> IndexPutRun.Entry? in
                guard case .put(let id, let shape, let metadata, let location) = event else { return nil }
                return IndexPutRun.Entry(id: id, location: location, shape: shape, metadata: metadata)
            }
        }
        try store.close()
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRun.payload(puts))])
        return (url, ids)
    }

    /// An edit the forged index leaves out stays in the segments through a compaction.
    /// (It was dropped as dead: the route lost its edited metadata for good.)
    @Test func compactingFromARunThatLeavesAnEditOutKeepsTheEdit() throws {
        let dir = TemporaryDirectory()
        let (url, ids) = try Self.storeWithAChangeLeftOut(dir) { store, id in _ = try store.edit(id, RouteEdit(name: "edited")) }
        _ = try Self.compactAndReadSegments(url, dir)
        let copy = dir.store("read.routelog")
        try FileManager.default.copyItem(at: url, to: copy)
        try Fixtures.removeIndexFiles(in: copy)
        let store = try RouteStore(at: copy, options: .init(mode: .readOnly))
        #expect(try store.metadata(ids[0]).name == "edited")
        try store.close()
    }

    /// A delete the forged index leaves out stays in the segments through a compaction.
    /// (It was dropped as dead while the route's RoutePut was copied: the deleted route
    /// came back.)
    @Test func compactingFromARunThatLeavesADeleteOutKeepsTheRouteDeleted() throws {
        let dir = TemporaryDirectory()
        let (url, ids) = try Self.storeWithAChangeLeftOut(dir) { store, id in try store.delete(id) }
        #expect(try Self.compactAndReadSegments(url, dir) == Set(ids.dropFirst()))
    }

    /// A segment holding, besides dead and live routes, a RoutePut that passes its
    /// checksum but makes no sense (no points): damage a replay skips, not a route.
    /// Compaction still rewrites the segment, keeping the record's bytes in lost/.
    @Test func aRecordThatMakesNoSenseDoesNotStopACompaction() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        var store = try RouteStore(at: url, options: .init(compaction: .manual))
        var routes = RandomRoutes(seed: 8)
        let dead = try store.save(routes.next())
        let live = try store.save(routes.next())
        try store.delete(dead)
        try store.close()
        var record = try EncodedRoute(routes.next()).record
        record.id = RouteID(99)
        record.shape.pointCount = 0
        let manifest = try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared))
        let segment = url.appendingPathComponent(FormatConstants.segmentName(manifest.segments[0]))
        let handle = try FileHandle(forWritingTo: segment)
        try handle.seekToEnd()
        try handle.write(contentsOf: RecordFrame.encode(type: .routePut, payload: record.payload()))
        try handle.close()

        let options = RouteStore.Options.rewritingEverySegment
        store = try RouteStore(at: url, options: options)
        let report = try store.compact()
        #expect(report.segmentsCompacted >= 1)
        #expect(!report.segmentsSkipped.contains { $0.name == FormatConstants.segmentName(manifest.segments[0]) }, "\(report.segmentsSkipped)")
        #expect(try store.summaries().map(\.id) == [live])
        let lost = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent(LostAndFound.directoryName).path)
        #expect(lost.contains { $0.hasPrefix(FormatConstants.segmentName(manifest.segments[0]) + "@") }, "\(lost)")
        try store.close()
    }
}
