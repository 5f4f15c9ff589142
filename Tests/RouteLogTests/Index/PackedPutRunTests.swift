import Foundation
import Testing
@testable import RouteLog

/// A run made into rows ahead of time (`PackedPutRun`, on the thread that reads a large
/// index ahead) is applied (`applyPackedRun`) exactly as its payload is applied entry
/// by entry (`applyPutRun`): the same routes, rows, metadata bytes, counters and
/// locations admitted, then the same error at the same offset; on valid runs and on
/// runs forged, cut and bit-flipped, with wide rows, ids repeated, a route already
/// there, and an index keeping totals (which takes every put the long way).
@Suite struct PackedPutRunTests {
    static let segment: UInt32 = 1

    static func segments() throws -> SegmentSet {
        let memory = MemoryFiles([FormatConstants.segmentName(segment): [UInt8](repeating: 0, count: 64)],
                                 directory: "/stores/walks.routelog")
        return SegmentSet([LogSegment(number: segment, file: try memory.file(FormatConstants.segmentName(segment)), end: 1 << 40)])
    }

    /// Everything of an index that applying a run changes, as text.
    struct Outcome: Equatable {
        var routes: [String] = []
        var counters = ""
        var admitted = ""
        var failure: String?
    }

    static func outcome(_ index: RouteIndex, _ order: inout LocationOrder, failure: (any Error)?) -> Outcome {
        var outcome = Outcome()
        for id in index.routes.ids.sorted(by: { $0.rawValue < $1.rawValue }) {
            let route = index.routes[id]!
            outcome.routes.append("\(id) \(route.location) \(route.shape) \(Array(index.routes.storedMetadata(id)!))")
        }
        #expect(index.routes.ids.count == index.routes.count)
        outcome.counters = "\(index.maxSeenID) \(index.coveredEnd[segment] ?? -1) \(index.liveBytes[segment] ?? -1) \(index.routes.count)"
        outcome.admitted = "\(order.finish())"
        switch failure {
        case let error as ByteReader.Malformed: outcome.failure = "\(error.reason) at \(error.offset)"
        case let error?: outcome.failure = "\(error)"
        case nil: break
        }
        return outcome
    }

    /// A run of `count` puts: some metadata forged (a layout that may break the rules),
    /// some rows wide (a duration past 2^37 ms), some ids repeated.
    static func run(_ g: inout SeededGenerator, count: Int, forged: Bool) -> [UInt8] {
        var entries: [(id: UInt64, location: RecordLocation, shape: RouteShape, metadata: [UInt8])] = []
        var offset: Int64 = 20
        for i in 0..<count {
            let wide = Int.random(in: 0..<5, using: &g) == 0
            let shape = RouteShape(firstMs: 1_700_000_000_000 + Int64(i) * 1000, durationMs: wide ? 1 << 38 : Int64(i) * 60_000,
                                   pointCount: UInt32.random(in: 1...5000, using: &g), distance: Double(i) * 12.5,
                                   south: 480_000_000, west: 110_000_000, north: 480_100_000, east: 110_100_000,
                                   startLat: 480_000_000, startLon: 110_000_000, endLat: 480_100_000, endLon: 110_100_000)
            let metadata = StoredMetadata(RouteMetadata(name: i % 3 == 0 ? "route \(i)" : nil))
            let bytes = forged && Int.random(in: 0..<4, using: &g) == 0
                ? IndexPutRunAttackTests.forgedMetadata(&g, extensionLimit: 60) : IndexPutRunTests.encoded(metadata)
            let length = Int.random(in: 16...300, using: &g)
            let id = Int.random(in: 0..<6, using: &g) == 0 ? UInt64.random(in: 1...UInt64(i + 1), using: &g) : UInt64(i + 1)
            entries.append((id, RecordLocation(segment: segment, offset: offset, length: length), shape, bytes))
            offset += Int64(length)
        }
        return IndexPutRunTests.specPayload(entries)
    }

    /// Applies `payload` both ways to indexes set up alike by `prepare`.
    static func bothWays(_ payload: [UInt8], _ prepare: (inout RouteIndex) -> Void) throws -> (direct: Outcome, packed: Outcome) {
        let segments = try Self.segments()
        var byEntry = RouteIndex(), packed = RouteIndex()
        prepare(&byEntry)
        prepare(&packed)
        var entryOrder = LocationOrder(segments: segments), packedOrder = LocationOrder(segments: segments)
        var entryFailure: (any Error)?, packedFailure: (any Error)?
        do { try byEntry.applyPutRun(payload[...], order: &entryOrder) } catch { entryFailure = error }
        do { try packed.applyPackedRun(PackedPutRun(payload[...]), order: &packedOrder) } catch { packedFailure = error }
        return (outcome(byEntry, &entryOrder, failure: entryFailure), outcome(packed, &packedOrder, failure: packedFailure))
    }

    @Test func aPackedRunAppliesAsItsEntriesDo() throws {
        var g = SeededGenerator(seed: 41)
        var failures = 0, whole = 0, wideSeen = 0, repeatsSeen = 0
        for round in 0..<600 {
            var payload = Self.run(&g, count: Int.random(in: 1...12, using: &g), forged: round % 2 == 0)
            switch Int.random(in: 0..<5, using: &g) {
            case 0: break
            case 1: payload[Int.random(in: 0..<payload.count, using: &g)] ^= 1 << UInt8.random(in: 0...7, using: &g)
            case 2: payload.removeLast(Int.random(in: 1...min(payload.count, 40), using: &g))
            case 3: payload += (0..<Int.random(in: 1...9, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            default:  // an entry's id, location or shape forged
                let entry = IndexPutRun.headSize + IndexPutRun.entrySize * Int.random(in: 0..<Int(payload[0]), using: &g)
                let at = entry + Int.random(in: 0..<IndexPutRun.entrySize, using: &g)
                payload[at] = UInt8.random(in: 0...255, using: &g)
            }
            // Half the rounds: route 1 is there already (a put of it is a second put of
            // one id), and a quarter of them keep totals.
            let setUp = round % 4
            let outcome = try Self.bothWays(payload) { index in
                guard setUp != 0 else { return }
                if setUp >= 2 {
                    let shape = RouteShape(firstMs: 1_600_000_000_000, durationMs: 1000, pointCount: 2, distance: 3,
                                           south: 0, west: 0, north: 1, east: 1, startLat: 0, startLon: 0, endLat: 1, endLon: 1)
                    index.apply(.put(RouteID(1), shape, StoredMetadata(RouteMetadata(name: "there first")),
                                     RecordLocation(segment: 9, offset: 20, length: 100)))
                }
                if setUp == 3 { _ = index.withTotalsLedger(zone: TimeZone(identifier: "UTC")!) { _ in 0 } }
            }
            #expect(outcome.packed == outcome.direct, "round \(round)")
            if outcome.direct.failure == nil { whole += 1 } else { failures += 1 }
            let packed = PackedPutRun(payload[...])
            wideSeen += packed.rows.filter(\.isWide).count
            repeatsSeen += packed.rows.count - Set(packed.rows.map(\.id)).count
        }
        // Every kind was met often.
        #expect(whole > 100 && failures > 100 && wideSeen > 100 && repeatsSeen > 50, "\(whole) \(failures) \(wideSeen) \(repeatsSeen)")
    }

    /// The packed rows' metadata is the table's form: a zero shift left out, stored
    /// bytes back exactly.
    @Test func aPackedRunHoldsTheTablesForm() throws {
        var g = SeededGenerator(seed: 7)
        let payload = Self.run(&g, count: 30, forged: false)
        let packed = PackedPutRun(payload[...])
        #expect(packed.failure == nil && packed.rows.count == 30)
        var stored: [[UInt8]] = []
        try IndexPutRun.forEachPut(in: payload[...]) { stored.append(Array($0.metadata)) }
        for (i, bytes) in stored.enumerated() { #expect(Array(packed.storedMetadata(i)) == bytes) }
        #expect(packed.metadata.count == stored.reduce(0) { $0 + $1.count } - 8 * stored.count)
    }
}
