import Foundation
import Testing
@testable import RouteLog

/// Stored metadata that keeps every rule as stored but grows when decoded and encoded
/// again (a name of invalid UTF-8: each byte becomes a three-byte replacement
/// character): the index keeps such a route and reads it back whichever way it came in
/// (its index record, the replay of its segment, a writer's change), as a store read
/// with decoded metadata always did, instead of stopping the process.
@Suite struct HostileMetadataTests {
    /// The name of the route a test forges: 1024 bytes, the most a name may hold.
    static let plainName = String(repeating: "A", count: FormatConstants.maxNameBytes)

    /// A store with a route named ``plainName`` and a walk; returns their ids.
    static func makeStore(_ url: URL) throws -> (named: RouteID, other: RouteID) {
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var route = Fixtures.sampleWalk(seed: 5, points: 40)
        route.metadata.name = plainName
        let named = try store.save(route)
        let other = try store.save(Fixtures.sampleWalk(seed: 6, points: 40))
        try store.close()
        return (named, other)
    }

    /// Rewrites, in every file of the store, the frame whose payload holds the name's
    /// bytes, with each of those bytes 0xFF (invalid UTF-8 of the same length), the
    /// frame's checksum right. Returns how many frames were rewritten.
    @discardableResult
    static func makeTheNameInvalidUTF8(in url: URL) throws -> Int {
        let run = [UInt8](plainName.utf8)
        var rewritten = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            let fileURL = url.appendingPathComponent(name)
            var bytes = [UInt8](try Data(contentsOf: fileURL))
            var at = FormatConstants.fileHeaderSize
            var changed = false
            while at + FormatConstants.recordHeaderSize <= bytes.count, Array(bytes[at..<at + 4]) == FormatConstants.recordSync {
                let length = (8..<12).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * ($1 - 8)) }
                let end = at + FormatConstants.recordHeaderSize + length
                guard end <= bytes.count,
                      let type = FormatConstants.RecordType(rawValue: bytes[at + 12]),
                      var payload = PayloadEscaping.unescape(bytes[(at + FormatConstants.recordHeaderSize)..<end]).map(Array.init)
                else { break }
                if let start = (0...max(0, payload.count - run.count)).first(where: { payload[$0..<min(payload.count, $0 + run.count)].elementsEqual(run) }) {
                    payload.replaceSubrange(start..<start + run.count, with: [UInt8](repeating: 0xFF, count: run.count))
                    let frame = RecordFrame.encode(type: type, payload: payload, flags: bytes[at + 13])
                    bytes.replaceSubrange(at..<end, with: frame)
                    changed = true
                    rewritten += 1
                    at += frame.count
                } else {
                    at = end
                }
            }
            if changed { try Data(bytes).write(to: fileURL) }
        }
        return rewritten
    }

    /// The name a reader sees: one replacement character a byte.
    static let readName = String(repeating: "\u{FFFD}", count: FormatConstants.maxNameBytes)

    @Test func aRouteReadFromTheIndexFileCanBeEditedAndDeleted() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (named, other) = try Self.makeStore(url)
        try Self.makeTheNameInvalidUTF8(in: url)
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        defer { try? store.close() }
        #expect(try store.metadata(named).name == Self.readName)
        let edited = try store.edit(named, RouteEdit(name: "renamed", calories: 12))
        #expect(edited.name == "renamed" && edited.calories == 12)
        try store.delete(named)
        #expect(try store.summaries().map(\.id) == [other])
    }

    @Test func aRouteReplayedFromItsSegmentIsListed() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (named, other) = try Self.makeStore(url)
        #expect(try Self.makeTheNameInvalidUTF8(in: url) >= 2)
        try Fixtures.removeIndexFiles(in: url)
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        defer { try? store.close() }
        let summaries = try store.summaries()
        #expect(Set(summaries.map(\.id)) == [named, other])
        #expect(summaries.first { $0.id == named }?.name == Self.readName)
        #expect(try store.metadata(named).name == Self.readName)
        try store.delete(named)
        #expect(try store.summaries().map(\.id) == [other])
    }

    /// The index rewritten at close keeps a route's metadata as its index file stored
    /// it: encoded again, the name would grow past the limit, the rewritten index would
    /// fail its checks, and every open would replay the segments.
    @Test func anIndexRewrittenAtCloseKeepsTheStoredBytesAndIsUsed() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (named, other) = try Self.makeStore(url)
        #expect(try Self.makeTheNameInvalidUTF8(in: url) >= 2)
        let writer = try RouteStore(at: url, options: .init(durability: .ordered, compaction: .manual), fileSystem: InterceptingFileSystem.unsynced())
        #expect(!writer.state.withLock { $0.indexRebuilt })
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for i in 0..<(StoreWriter.sprawlingRecords + 10) {
            try writer.save(Route(points: [TrackPoint(latitude: 10, longitude: Double(i) / 1e3, timestamp: start + Double(i) * 60)]))
        }
        try writer.close()
        #expect(try IndexPutRunTests.indexRecordTypes(url).allSatisfy { $0 == FormatConstants.RecordType.indexPutRun.rawValue })
        try Self.expectIndexUsed(url, routes: StoreWriter.sprawlingRecords + 12, named: named, other: other)
    }

    /// A read-only open of `url` uses its index (no replay), holds `routes` routes, reads
    /// the named route's name as stored, and verifies clean.
    static func expectIndexUsed(_ url: URL, routes: Int, named: RouteID, other: RouteID) throws {
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        defer { try? reader.close() }
        #expect(!reader.state.withLock { $0.indexRebuilt })
        #expect(try reader.count == routes)
        #expect(try reader.metadata(named).name == readName)
        #expect(try reader.summary(other).id == other)
        #expect(try reader.verify().problems.isEmpty)
    }

    /// An index rebuilt from the segments keeps a route's metadata as its RoutePut
    /// stored it, so the rebuilt index is used by the next open instead of failing its
    /// checks (a name grown past the limit) and sending every open to the segments.
    @Test func anIndexRebuiltFromTheSegmentsKeepsTheStoredBytesAndIsUsed() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (named, other) = try Self.makeStore(url)
        #expect(try Self.makeTheNameInvalidUTF8(in: url) >= 2)
        try Fixtures.removeIndexFiles(in: url)
        let writer = try RouteStore(at: url, options: .init(compaction: .manual))
        #expect(writer.state.withLock { $0.indexRebuilt })
        try writer.close()
        try Self.expectIndexUsed(url, routes: 2, named: named, other: other)
    }

    /// Stored metadata whose extension keeps the 64 KiB limit, its notes, keys and values
    /// invalid UTF-8: decoded and encoded again, its extension is about twice the limit.
    static func growingMetadata() throws -> (bytes: [UInt8], metadata: StoredMetadata) {
        var fields = ByteWriter(capacity: 48 << 10)
        func field(_ tag: FormatConstants.MetadataField, _ value: [UInt8]) {
            fields.varint(tag.rawValue)
            fields.varint(value.count)
            fields.append(contentsOf: value)
        }
        let invalid = { (count: Int) in [UInt8](repeating: 0xFF, count: count) }
        field(.notes, invalid(FormatConstants.maxNotesBytes))
        for i in 0..<FormatConstants.maxValues {
            let key = Array("k\(i)-".utf8) + invalid(FormatConstants.maxValueKeyBytes - 5)
            field(.value, [UInt8(key.count)] + key + invalid(FormatConstants.maxValueBytes))
        }
        var w = ByteWriter(capacity: fields.bytes.count + 16)
        w.u8(FormatConstants.MetadataFlag.extensionFields)
        w.i64(0)
        w.varint(fields.bytes.count)
        w.append(contentsOf: fields.bytes)
        var r = ByteReader(w.bytes[...])
        let metadata = try StoredMetadata(from: &r)
        return (w.bytes, metadata)
    }

    @Test func decodedMetadataLongerThanTheLimitsOnceEncodedIsKept() throws {
        var (bytes, metadata) = try Self.growingMetadata()
        #expect(bytes.count <= FormatConstants.maxExtensionBytes + 16)
        #expect(metadata.values.count == FormatConstants.maxValues)
        // Edited (its values no longer those stored), it is encoded from its values.
        metadata.calories = 1
        var again = ByteWriter(capacity: 128 << 10)
        metadata.write(to: &again)
        #expect(again.bytes.count > FormatConstants.maxExtensionBytes)

        let shape = RouteShape(points: Fixtures.sampleWalk(seed: 3, points: 5).points, segmentStarts: [])
        let route = IndexedRoute(shape: shape, metadata: metadata, location: RecordLocation(segment: 1, offset: 20, length: 100))
        var table = RouteTable()
        table.updateValue(route, forKey: RouteID(7))
        #expect(table[RouteID(7)] == route)
        #expect(table.summary(RouteID(7)) == route.summary(RouteID(7)))
    }
}
