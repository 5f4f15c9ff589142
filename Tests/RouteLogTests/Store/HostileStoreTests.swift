import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Forged stores (checksums right where it matters, contents absurd) against the
/// bounds of format-spec.md, "Bounds on hostile files": each is refused or reported
/// quickly, without a large allocation, and the honest routes still load.
@Suite struct HostileStoreTests {
    static func makeStore(_ url: URL) throws -> ExpectedStore {
        let store = try RouteStore(at: url)
        try store.save(Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 1_700_000_000))]))
        try store.save(Fixtures.sampleWalk(seed: 2, points: 30))
        let expected = try ExpectedStore(store)
        try store.close()
        return expected
    }

    /// Runs `body` and reports it when it takes over a minute: a forged size that
    /// were believed would read or fill gigabytes, far beyond that, while the work
    /// itself takes milliseconds, with room for a slow shared disk in between.
    static func timed(_ what: String, _ body: () throws -> Void) rethrows {
        let start = Date()
        try body()
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed < 60, "\(what) took \(elapsed) s")
    }

    @Test(arguments: [UInt32.max, UInt32.max - 15, UInt32(Int32.max), UInt32(64 << 20) + 1, UInt32(64 << 20)])
    func aRecordLengthNearTheLimitsIsATornTailOrDamage(_ length: UInt32) throws {
        let dir = TemporaryDirectory("length\(length)")
        let url = dir.store()
        let expected = try Self.makeStore(url)
        // A frame header with that length appended after the two routes: as a torn
        // tail, then followed by a valid record (so as damage in the middle).
        let segmentURL = url.appendingPathComponent(FormatConstants.segmentName(1))
        var bytes = [UInt8](try Data(contentsOf: segmentURL))
        var header = FormatConstants.recordSync + [0, 0, 0, 0]
        for i in 0..<4 { header.append(UInt8(truncatingIfNeeded: length >> (8 * UInt32(i)))) }
        header += [1, 0, 0, 0]
        for followed in [false, true] {
            var forged = bytes + header + [UInt8](repeating: 0x55, count: 40)
            if followed {
                var payload = ByteWriter(capacity: 8)
                payload.u64(99)
                forged += RecordFrame.encode(type: .routeDelete, payload: payload.bytes)
            }
            try Data(forged).write(to: segmentURL)
            try Self.timed("opening with a \(length)-byte record") {
                let reader = try RouteStore(readOnlyAt: url)
                #expect(expected.mismatches(in: reader).isEmpty)
                let report = try reader.verify()
                #expect(!report.isClean || !report.tornTails.isEmpty, "length \(length) was not reported")
            }
        }
        bytes = [UInt8](try Data(contentsOf: segmentURL))
        _ = bytes
    }

    @Test(arguments: [UInt64(64 << 20), UInt64(64 << 20) + 1, UInt64.max, 1 << 40])
    func anLZ4BlockClaimingAHugeSizeIsRefusedBeforeAllocating(_ claimed: UInt64) throws {
        let dir = TemporaryDirectory("lz4\(claimed)")
        let url = dir.store()
        let expected = try Self.makeStore(url)
        try ReliabilityRegressionTests.forge(url) { record in
            var block = ByteWriter(capacity: 32)
            block.u8(FormatConstants.Compression.lz4.rawValue)
            block.varint(claimed)
            block.append(contentsOf: [0x1F, 0x00, 0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x50, 0x00])
            record.pointBlock = block.bytes[...]
        }
        try Self.timed("loading a route claiming \(claimed) bytes") {
            let store = try RouteStore(readOnlyAt: url)
            do {
                _ = try store.route(RouteID(1))
                Issue.record("a forged LZ4 block decoded")
            } catch let error as RouteLogError {
                #expect(error.code == .corrupted)
            }
            #expect(try store.route(RouteID(2)) == expected.routes[RouteID(2)]!.route)
            #expect(try !store.verify().isClean)
        }
    }

    @Test func columnCountsLargerThanTheBlockAreRefused() throws {
        for (count, columns) in [(UInt64(1_000_000), UInt64(3)), (UInt64.max, 3), (1, 1 << 40), (5, 3)] {
            var block = ByteWriter(capacity: 32)
            block.varint(count)
            block.varint(columns)
            block.append(contentsOf: [1, 0, 0x7F, 0, 0, 0])  // a column claiming 127 bytes
            #expect(throws: ByteReader.Malformed.self) { try ColumnCodec.decode(block.bytes) }
        }
    }

    @Test(arguments: [(UInt64(1) << 40, UInt32(100)), (UInt64.max, UInt32.max), (UInt64(20), UInt32.max), (UInt64(1) << 61, UInt32(64 << 20) + 16)])
    func anIndexLocationPastTheEndMakesTheIndexBeRebuilt(_ location: (offset: UInt64, length: UInt32)) throws {
        let dir = TemporaryDirectory("location\(location.offset)")
        let url = dir.store()
        let expected = try Self.makeStore(url)
        let indexURL = url.appendingPathComponent(FormatConstants.indexName(2))
        var bytes = [UInt8](try Data(contentsOf: indexURL))
        // Route 1's IndexPut: id, then the location (segment u32, offset u64, length u32).
        let start = FormatConstants.fileHeaderSize
        let length = Int(bytes[start + 8]) | Int(bytes[start + 9]) << 8
        var payload = Array(bytes[(start + 16)..<(start + 16 + length)])
        for i in 0..<8 { payload[12 + i] = UInt8(truncatingIfNeeded: location.offset >> (8 * UInt64(i))) }
        for i in 0..<4 { payload[20 + i] = UInt8(truncatingIfNeeded: location.length >> (8 * UInt32(i))) }
        bytes.replaceSubrange(start..<(start + 16 + length), with: RecordFrame.encode(type: .indexPut, payload: payload))
        try Data(bytes).write(to: indexURL)
        try Self.timed("opening with a location at \(location)") {
            let reader = try RouteStore(readOnlyAt: url)
            #expect(expected.mismatches(in: reader).isEmpty)
            // Not necessarily reported: an index ahead of its segment is also what a
            // crash leaves when the index's page reached the disk and the segment's did
            // not (durability off). What matters is that it is not believed.
            let writer = try RouteStore(at: url)
            #expect(expected.mismatches(in: writer).isEmpty)
            #expect(try writer.verify().isClean)
        }
    }

    @Test func aManifestClaimingHugeCountsOrSizesIsRefused() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        _ = try Self.makeStore(url)
        let manifestURL = url.appendingPathComponent(FormatConstants.manifestName)
        let original = [UInt8](try Data(contentsOf: manifestURL))
        var forgeries: [[UInt8]] = []
        // Segment count u32 (payload offset 28) of UInt32.max, with the checksum made right.
        var payload = Array(original[(20 + 16)...])
        for i in 0..<4 { payload[28 + i] = 0xFF }
        forgeries.append(FileHeader(kind: .manifest, fileNumber: 0).encoded() + RecordFrame.encode(type: .manifestState, payload: payload))
        // A next route id of UInt64.max (payload offset 12): the next save would overflow.
        payload = Array(original[(20 + 16)...])
        for i in 0..<8 { payload[12 + i] = 0xFF }
        forgeries.append(FileHeader(kind: .manifest, fileNumber: 0).encoded() + RecordFrame.encode(type: .manifestState, payload: payload))
        // A manifest of 2 MiB.
        forgeries.append(original + [UInt8](repeating: 0, count: 2 << 20))
        for forged in forgeries {
            try Data(forged).write(to: manifestURL)
            try Self.timed("opening a forged manifest") {
                do {
                    _ = try RouteStore(at: url)
                    Issue.record("a forged manifest opened")
                } catch let error as RouteLogError {
                    #expect(error.code == .corrupted)
                    #expect(error.path == manifestURL.path)
                }
            }
        }
    }
}
