import Foundation
import Testing
@testable import RouteLog

/// Bugs the reliability tests (kill, crash-state replay, fault injection, bit flips,
/// fuzzing) found, each kept as the smallest case that showed it.
@Suite struct ReliabilityRegressionTests {
    /// Found by the kill test: compaction copied a batch-saved route's frame verbatim,
    /// "batch continues" flag included. When the rest of its batch was deleted (or went
    /// to the next segment), the copy ended its segment as the start of an unfinished
    /// batch: verify reported the index and segments disagreeing, and an index rebuild
    /// dropped the route as a torn tail.
    @Test func aBatchSavedRouteOutlivesItsBatchThroughCompaction() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        let ids = try store.save([Fixtures.sampleWalk(seed: 1, points: 50), Fixtures.sampleWalk(seed: 2, points: 50)])
        try store.delete(ids[1])
        let expected = try ExpectedStore(store, deleted: [ids[1]])
        try store.compact()
        #expect(try store.verify().isClean, "\((try? store.verify())?.problems.map(\.message) ?? [])")
        try store.close()
        try removeIndexFiles(of: url)
        let rebuilt = try RouteStore(at: url)
        #expect(expected.mismatches(in: rebuilt).isEmpty, "\(expected.mismatches(in: rebuilt))")
        #expect(try rebuilt.verify().isClean)
    }
}

extension ReliabilityRegressionTests {
    /// Rewrites route 1's RoutePut in `url` with `change` applied to it and a checksum
    /// that matches (a hostile writer, not a bad disk), and drops the index.
    static func forge(_ url: URL, _ change: (inout RouteRecord) -> Void) throws {
        let segmentURL = url.appendingPathComponent(FormatConstants.segmentName(1))
        var bytes = [UInt8](try Data(contentsOf: segmentURL))
        let start = FormatConstants.fileHeaderSize
        let length = Int(bytes[start + 8]) | Int(bytes[start + 9]) << 8 | Int(bytes[start + 10]) << 16
        var record = try RouteRecord(payload: bytes[(start + 16)..<(start + 16 + length)])
        change(&record)
        let frame = RecordFrame.encode(type: .routePut, payload: record.payload())
        bytes.replaceSubrange(start..<(start + 16 + length), with: frame)
        try Data(bytes).write(to: segmentURL)
        try FileManager.default.removeItem(at: url.appendingPathComponent(FormatConstants.indexName(2)))
    }

    /// A closed store at `url` of two routes: route 1 of one point, route 2 a walk of 30
    /// points; returns route 2 as loaded (for checking it outlives damage to route 1).
    static func twoRouteStore(at url: URL) throws -> Route {
        let store = try RouteStore(at: url)
        try store.save(Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 1_700_000_000))]))
        try store.save(Fixtures.sampleWalk(seed: 2, points: 30))
        try store.close()
        return try RouteStore(readOnlyAt: url).route(RouteID(2))
    }

    /// An uncompressed point block of one point at (1, 2) and time `ms`.
    static func onePointBlock(ms: Int64) -> [UInt8] {
        var columns = ByteWriter(capacity: 64)
        columns.varint(1)
        columns.varint(3)
        for (tag, value) in [(UInt8(1), Int64(10_000_000)), (2, 20_000_000), (3, ms)] {
            var body = ByteWriter(capacity: 16)
            body.varint(ByteWriter.zigzag(value))
            columns.u8(tag)
            columns.u8(0)
            columns.varint(body.count)
            columns.append(contentsOf: body.bytes)
        }
        var block = ByteWriter(capacity: 80)
        block.u8(FormatConstants.Compression.none.rawValue)
        block.varint(columns.count)
        block.append(contentsOf: columns.bytes)
        return block.bytes
    }

    /// Found by the log-scanner fuzz target once it fixed checksums: a RoutePut whose
    /// checksum is right but whose times are absurd (a first time or a shift near
    /// Int64.max, a point time past 2200) trapped on arithmetic overflow when the store
    /// listed or loaded it, and one with route id UInt64.max when the store opened (the
    /// next id). Such records are now damage.
    @Test(arguments: ["first time", "time shift", "point time", "route id"])
    func absurdTimesInAChecksummedRecordAreDamageNotACrash(_ field: String) throws {
        let dir = TemporaryDirectory("absurd\(field.filter(\.isLetter))")
        let url = dir.store()
        let good = try Self.twoRouteStore(at: url)
        try Self.forge(url) { record in
            switch field {
            case "first time": record.shape.firstMs = .max - 10
            case "time shift": record.metadata.shiftMs = .max - 10
            case "route id": record.id = RouteID(.max)  // found later: maxSeenID + 1 overflowed at open
            default:
                record.metadata.shiftMs = 1000
                record.pointBlock = Self.onePointBlock(ms: 1 << 62)[...]
            }
        }
        for store in [try RouteStore(readOnlyAt: url), try RouteStore(at: url)] {
            _ = try store.summaries()
            _ = try store.totals()
            #expect(try store.route(RouteID(2)) == good)
            if try store.summaries().contains(where: { $0.id == RouteID(1) }) {
                #expect(throws: RouteLogError.self) { try store.route(RouteID(1)) }
            }
            #expect(try !store.verify().isClean)
            try store.close()
        }
    }
}
