import Foundation
import Testing
@testable import RouteLog

/// A run checked whole ahead of time (`IndexPutRun.check`, on the thread reading a
/// large index ahead) is read with that check (`withPuts(checked:)`) exactly as it is
/// read checking entry by entry: the same puts, then the same error at the same offset,
/// on valid runs and on runs forged, cut and bit-flipped.
@Suite struct IndexPutRunCheckTests {
    struct Read: Equatable {
        var puts: [String] = []
        var failure: String?
    }

    static func read(_ payload: ArraySlice<UInt8>, checked: IndexPutRun.Check?) -> Read {
        var read = Read()
        do {
            try IndexPutRun.withPuts(in: payload, checked: checked) { puts in
                while try puts.next() {
                    let p = puts.put
                    read.puts.append("\(p.id) \(p.location) \(p.shape) \(p.shiftMs) \(Array(p.metadata))")
                }
            }
        } catch let error as ByteReader.Malformed {
            read.failure = "\(error.reason) at \(error.offset)"
        } catch {
            read.failure = "\(error)"
        }
        return read
    }

    /// A run of `count` puts, some with forged metadata (a layout that may break the rules).
    static func run(_ g: inout SeededGenerator, count: Int, forged: Bool) -> [UInt8] {
        var entries: [(id: UInt64, location: RecordLocation, shape: RouteShape, metadata: [UInt8])] = []
        var offset: Int64 = 20
        for i in 0..<count {
            let shape = RouteShape(points: [TrackPoint(latitude: 48, longitude: 11, timestamp: Date(timeIntervalSince1970: 1.7e9 + Double(i)))],
                                   segmentStarts: [0])
            let metadata = StoredMetadata(RouteMetadata(name: i % 3 == 0 ? "route \(i)" : nil))
            let bytes = forged && Int.random(in: 0..<4, using: &g) == 0
                ? IndexPutRunAttackTests.forgedMetadata(&g, extensionLimit: 60) : IndexPutRunTests.encoded(metadata)
            let length = Int.random(in: 16...300, using: &g)
            entries.append((UInt64(i + 1), RecordLocation(segment: 1, offset: offset, length: length), shape, bytes))
            offset += Int64(length)
        }
        return IndexPutRunTests.specPayload(entries)
    }

    @Test func aCheckedRunReadsAsAnUncheckedOne() {
        var g = SeededGenerator(seed: 41)
        var failures = 0, whole = 0
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
            let check = IndexPutRun.check(payload[...])
            let expected = Self.read(payload[...], checked: nil)
            #expect(Self.read(payload[...], checked: check) == expected, "round \(round)")
            #expect(check.validEntries == expected.puts.count && (check.failure == nil) == (expected.failure == nil),
                    "round \(round)")
            if expected.failure == nil { whole += 1 } else { failures += 1 }
        }
        // Both kinds were met often.
        #expect(whole > 100 && failures > 100)
    }
}
