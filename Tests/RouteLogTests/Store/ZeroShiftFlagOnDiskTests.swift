import Foundation
import Testing
@testable import RouteLog

/// The flag ``MetadataLayout/zeroShiftLeftOut`` belongs to the index's in-memory form
/// of metadata only. A file whose metadata carries it (its time shift's 8 bytes left out
/// as the in-memory form leaves them, or kept) is damage wherever it is: a segment's
/// RoutePut or MetadataEdit, an index's IndexPut, IndexEdit or IndexPutRun. Never is it
/// read as a route with a zero shift; the store opens, the routes the files hold rightly
/// stay readable, and a writer goes on.
@Suite struct ZeroShiftFlagOnDiskTests {
    /// How the flag is forged into stored metadata (a walk's: shift zero).
    enum Forgery: CaseIterable {
        /// As the in-memory form keeps it: the flag set, the shift's 8 bytes left out.
        case shiftLeftOut
        /// The flag set beside the shift's 8 zero bytes.
        case shiftKept
    }

    static func forged(_ stored: [UInt8], _ forgery: Forgery) -> [UInt8] {
        precondition(stored.count >= 9 && stored[1..<9].allSatisfy { $0 == 0 }, "a zero shift")
        switch forgery {
        case .shiftLeftOut: return [stored[0] | MetadataLayout.zeroShiftLeftOut] + stored[9...]
        case .shiftKept: return [stored[0] | MetadataLayout.zeroShiftLeftOut] + stored[1...]
        }
    }

    /// Route 1's metadata renamed, and a MetadataEdit payload of route 1 holding
    /// `bytes` (those metadata as stored, or forged from them).
    static func renamed(_ record: RouteRecord) -> StoredMetadata {
        var metadata = record.metadata
        metadata.name = "Edited"
        return metadata
    }

    static func editPayload(_ bytes: [UInt8]) -> [UInt8] {
        var edit = ByteWriter(capacity: bytes.count + 8)
        edit.u64(1)
        edit.append(contentsOf: bytes)
        return edit.bytes
    }

    static func stored(_ metadata: StoredMetadata) -> [UInt8] {
        var w = ByteWriter(capacity: 256)
        metadata.write(to: &w)
        return w.bytes
    }

    /// The walks a test store holds: ids 1 and 2, named.
    static func routes() -> [Route] {
        (1...2).map { i in
            var route = Fixtures.sampleWalk(seed: UInt64(40 + i), points: 30)
            route.metadata.name = "Walk \(i)"
            return route
        }
    }

    /// The pieces of a store forged by hand: segment 1 holding `segmentFrames` (raw
    /// frames), index 2 holding `indexFrames` (nil: no index file). The store is made by
    /// saving the walks first, for its MANIFEST.
    static func make(_ dir: TemporaryDirectory, segmentFrames: [[UInt8]], indexFrames: [[UInt8]]?) throws -> URL {
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        try store.save(routes())
        try store.close()
        let segment = FileHeader(kind: .segment, fileNumber: 1, version: FormatConstants.version).encoded() + segmentFrames.joined()
        try Data(segment).write(to: url.appendingPathComponent(FormatConstants.segmentName(1)))
        let indexURL = url.appendingPathComponent(FormatConstants.indexName(2))
        #expect(FileManager.default.fileExists(atPath: indexURL.path), "the store's index is index 2")
        if let indexFrames {
            let index = FileHeader(kind: .index, fileNumber: 2, version: FormatConstants.version).encoded() + indexFrames.joined()
            try Data(index).write(to: indexURL)
        } else {
            try FileManager.default.removeItem(at: indexURL)
        }
        return url
    }

    /// Each walk's RoutePut record (id 1, 2), its payload and frame.
    static func records() throws -> [RouteRecord] {
        try routes().enumerated().map { i, route in
            var record = try EncodedRoute(route).record
            record.id = RouteID(UInt64(i + 1))
            return record
        }
    }

    /// Where each frame of `frames` lies in a segment that holds them in order.
    static func locations(_ frames: [[UInt8]]) -> [RecordLocation] {
        var offset = Int64(FormatConstants.fileHeaderSize)
        return frames.map { frame in
            defer { offset += Int64(frame.count) }
            return RecordLocation(segment: 1, offset: offset, length: frame.count)
        }
    }

    /// A RoutePut's payload with its metadata (after id and shape) forged.
    static func forgedPut(_ record: RouteRecord, _ forgery: Forgery) -> [UInt8] {
        let payload = record.payload()
        let start = 8 + FormatConstants.routeShapeSize
        let metadata = stored(record.metadata)
        #expect(Array(payload[start..<start + metadata.count]) == metadata)
        return Array(payload[..<start]) + forged(metadata, forgery) + payload[(start + metadata.count)...]
    }

    /// Where walk `i` starts, as stored (whole milliseconds).
    static func start(_ i: Int) -> Date {
        Quantization.date(milliseconds: Quantization.milliseconds(routes()[i].points[0].timestamp))
    }

    /// What every open of a store whose walk 2 is intact and walk 1 is `expectedOne`
    /// (nil: not live) must see, the index rebuilt or not: then a writer saves, edits
    /// and deletes, and a read-only open after it sees the same and verifies clean of
    /// everything but `allowedKinds`.
    static func exercise(_ url: URL, expectedOne: StoredMetadata?, damageKinds: Set<VerificationReport.Problem.Kind>,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let names = routes().map(\.metadata.name)
        // A read-only open first: nothing changed on disk, the damage reported.
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        func check(_ store: RouteStore) throws {
            #expect(try store.metadata(RouteID(2)).name == names[1], sourceLocation: sourceLocation)
            #expect(try store.summary(RouteID(2)).startDate == Self.start(1), sourceLocation: sourceLocation)
            if let expectedOne {
                #expect(try store.metadata(RouteID(1)).name == expectedOne.name, sourceLocation: sourceLocation)
                #expect(try store.summary(RouteID(1)).startDate == Self.start(0), sourceLocation: sourceLocation)
            } else {
                #expect(throws: RouteLogError.self, sourceLocation: sourceLocation) { try store.summary(RouteID(1)) }
            }
            #expect(try store.count == (expectedOne == nil ? 1 : 2), sourceLocation: sourceLocation)
        }
        try check(reader)
        let report = try reader.verify()
        #expect(Set(report.problems.map(\.kind)) == damageKinds, "\(report.problems.map(\.message))", sourceLocation: sourceLocation)
        try reader.close()
        // A writer: the same routes, then changes of its own.
        let writer = try RouteStore(at: url, options: .init(compaction: .manual))
        try check(writer)
        let added = try writer.save(Fixtures.sampleWalk(seed: 77, points: 25))
        _ = try writer.edit(RouteID(2), RouteEdit(name: "Renamed"))
        let shifted = try writer.edit(added, RouteEdit(shift: 120))
        let before = try writer.summaries()
        try writer.close()
        let after = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try after.summaries() == before, sourceLocation: sourceLocation)
        #expect(try after.summary(added) == shifted, sourceLocation: sourceLocation)
        #expect(try after.metadata(RouteID(2)).name == "Renamed", sourceLocation: sourceLocation)
        // The index the writer left holds no flag: it opens as it is.
        #expect(InvalidUTF8IndexTests.indexState(after) == (false, false), sourceLocation: sourceLocation)
        let problems = try after.verify().problems
        #expect(Set(problems.map(\.kind)).isSubset(of: [.damagedBytes]), "\(problems.map(\.message))", sourceLocation: sourceLocation)
        try after.close()
    }

    /// A segment's RoutePut with the flag: damage, its route not live.
    @Test(arguments: Forgery.allCases) func aRoutePutCarryingTheFlagIsDamage(_ forgery: Forgery) throws {
        let dir = TemporaryDirectory()
        let records = try Self.records()
        let frames = [RecordFrame.encode(type: .routePut, payload: Self.forgedPut(records[0], forgery)),
                      RecordFrame.encode(type: .routePut, payload: records[1].payload())]
        let url = try Self.make(dir, segmentFrames: frames, indexFrames: nil)
        try Self.exercise(url, expectedOne: nil, damageKinds: [.damagedBytes, .damagedIndex])
    }

    /// A segment's MetadataEdit with the flag: damage, the route keeps what it had.
    @Test(arguments: Forgery.allCases) func aMetadataEditCarryingTheFlagIsDamage(_ forgery: Forgery) throws {
        let dir = TemporaryDirectory()
        let records = try Self.records()
        let edit = Self.editPayload(Self.forged(Self.stored(Self.renamed(records[0])), forgery))
        let frames = records.map { RecordFrame.encode(type: .routePut, payload: $0.payload()) }
            + [RecordFrame.encode(type: .metadataEdit, payload: edit)]
        let url = try Self.make(dir, segmentFrames: frames, indexFrames: nil)
        try Self.exercise(url, expectedOne: records[0].metadata, damageKinds: [.damagedBytes, .damagedIndex])
    }

    /// An index record or run with the flag (the segments right): the index is damaged,
    /// the store reads the segments, and a writer rebuilds it.
    @Test(arguments: Forgery.allCases, ["indexPut", "indexPutRun", "indexEdit"])
    func anIndexRecordCarryingTheFlagIsDamage(_ forgery: Forgery, _ kind: String) throws {
        let dir = TemporaryDirectory()
        let records = try Self.records()
        let renamed = Self.renamed(records[0])
        let frames = records.map { RecordFrame.encode(type: .routePut, payload: $0.payload()) }
            + (kind == "indexEdit" ? [RecordFrame.encode(type: .metadataEdit, payload: Self.editPayload(Self.stored(renamed)))] : [])
        let at = Self.locations(frames)
        var index: [[UInt8]] = []
        switch kind {
        case "indexPut":
            for (i, record) in records.enumerated() {
                let metadata = Self.stored(record.metadata)
                let entry = LogEvent.put(record.id, record.shape, record.metadata, at[i])
                    .indexRecord(encodedMetadata: (i == 0 ? Self.forged(metadata, forgery) : metadata)[...])
                index.append(RecordFrame.encode(type: entry.type, payload: entry.payload))
            }
        case "indexPutRun":
            var run = IndexPutRun.Builder()
            for (i, record) in records.enumerated() {
                let metadata = Self.stored(record.metadata)
                run.add(id: record.id, location: at[i], shape: record.shape,
                        encodedMetadata: i == 1 ? Self.forged(metadata, forgery) : metadata)
            }
            index.append(RecordFrame.encode(type: .indexPutRun, payload: run.payload()))
        default:
            for (i, record) in records.enumerated() {
                let entry = LogEvent.put(record.id, record.shape, record.metadata, at[i]).indexRecord()
                index.append(RecordFrame.encode(type: entry.type, payload: entry.payload))
            }
            let entry = LogEvent.edit(RouteID(1), renamed, at[2]).indexRecord(encodedMetadata: Self.forged(Self.stored(renamed), forgery)[...])
            index.append(RecordFrame.encode(type: entry.type, payload: entry.payload))
        }
        let url = try Self.make(dir, segmentFrames: frames, indexFrames: index)
        try Self.exercise(url, expectedOne: kind == "indexEdit" ? renamed : records[0].metadata, damageKinds: [.damagedIndex])
    }

    /// The same index records without the flag open as they are: the forgery, not the
    /// way the test builds the files, is what the tests above find.
    @Test func theSameIndexWithoutTheFlagOpensClean() throws {
        let dir = TemporaryDirectory()
        let records = try Self.records()
        let frames = records.map { RecordFrame.encode(type: .routePut, payload: $0.payload()) }
        let at = Self.locations(frames)
        var run = IndexPutRun.Builder()
        for (i, record) in records.enumerated() {
            run.add(id: record.id, location: at[i], shape: record.shape, encodedMetadata: Self.stored(record.metadata))
        }
        let url = try Self.make(dir, segmentFrames: frames, indexFrames: [RecordFrame.encode(type: .indexPutRun, payload: run.payload())])
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(InvalidUTF8IndexTests.indexState(reader) == (false, false))
        #expect(try reader.verify().problems.isEmpty)
        try reader.close()
        try Self.exercise(url, expectedOne: records[0].metadata, damageKinds: [])
    }
}
