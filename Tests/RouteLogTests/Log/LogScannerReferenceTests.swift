import Foundation
import Testing
@testable import RouteLog

/// `LogScanner` finds what the plain reading of format-spec.md finds
/// (``ReferenceLogScanner``): the same records (offsets, types, flags, payloads), the
/// same damage and the same tail, on logs of real records cut, flipped and spliced with
/// garbage, many seeds of each.
@Suite struct LogScannerReferenceTests {
    @Test(arguments: [UInt16(1), 2])
    func sameRecordsAsTheReference(version: UInt16) throws {
        for seed in UInt64(1)...1000 {
            var g = SeededGenerator(seed: seed &* 7919 &+ UInt64(version))
            try Self.expectSameAsReference(Self.damagedLog(&g, version: version), version: version, "seed \(seed), version \(version)")
        }
    }

    /// Scans `bytes` and expects the records, damage, valid end and tail the reference
    /// gives; returns the scan. Not partitioned: damage found before a batch that the
    /// end then cuts is reported, and lies in the tail too (as the reference has it).
    @discardableResult
    static func expectSameAsReference(_ bytes: [UInt8], version: UInt16, _ context: String) throws -> LogScannerTests.Scan {
        let scan = try LogScannerTests.scan(bytes, version: version, partitioned: false)
        let expected = ReferenceLogScanner(bytes: bytes, version: version).scan()
        #expect(scan.records == expected.records, "\(context)")
        #expect(scan.damage == expected.damage && scan.validEnd == expected.validEnd && scan.tail == expected.tail, "\(context)")
        return scan
    }

    /// Real records (some batches, payloads holding sync markers and escapes), then damage.
    static func damagedLog(_ g: inout SeededGenerator, version: UInt16) -> [UInt8] {
        var frames: [[UInt8]] = []
        for _ in 0..<Int.random(in: 1...12, using: &g) {
            let records = (0..<(Int.random(in: 0...3, using: &g) == 0 ? Int.random(in: 2...3, using: &g) : 1)).map { _ in
                payload(&g)
            }
            for (i, payload) in records.enumerated() {
                let flags = i < records.count - 1 ? RecordFrame.batchContinues : 0
                frames.append(version >= 2 ? RecordFrame.encode(type: .routePut, payload: payload, flags: flags)
                                           : ForgedFrame(payload, flags: flags).bytes)
            }
        }
        var bytes = frames.flatMap { $0 }
        for _ in 0..<Int.random(in: 0...4, using: &g) {
            switch Int.random(in: 0..<7, using: &g) {
            case 0:  // a bit flipped
                if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &g)] ^= 1 << UInt8.random(in: 0...7, using: &g) }
            case 1:  // cut short
                bytes.removeLast(Int.random(in: 0...min(bytes.count, 40), using: &g))
            case 2:  // bytes lost in the middle
                if bytes.count > 2 {
                    let at = Int.random(in: 0..<bytes.count - 1, using: &g)
                    bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...64, using: &g)))
                }
            case 3:  // garbage spliced in
                splice(&bytes, (0..<Int.random(in: 1...200, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }, &g)
            case 4:  // markers and headers claiming lengths, spliced in
                var claim = ForgedFrame([], flags: UInt8.random(in: 0...1, using: &g))
                claim.length = UInt32.random(in: 0...UInt32(bytes.count + 64), using: &g)
                claim.checksummed = Bool.random(using: &g)
                splice(&bytes, Bool.random(using: &g) ? claim.bytes : FormatConstants.recordSync, &g)
            case 5:  // a piece of another frame, or a whole one, spliced in
                let frame = frames[Int.random(in: 0..<frames.count, using: &g)]
                let from = Int.random(in: 0..<frame.count, using: &g)
                splice(&bytes, Bool.random(using: &g) ? frame : Array(frame[from...]), &g)
            default:  // a frame's length field changed, its checksum made right again
                guard let at = (0..<max(0, bytes.count - 16)).filter({ Array(bytes[$0..<($0 + 4)]) == FormatConstants.recordSync })
                    .randomElement(using: &g) else { break }
                let length = UInt32.random(in: 0...UInt32(bytes.count - at - 16), using: &g)
                for i in 0..<4 { bytes[at + 8 + i] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(i))) }
                let crc = Checksum.masked(bytes, (at + 8)..<(at + 16 + Int(length)))
                for i in 0..<4 { bytes[at + 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
            }
        }
        return bytes
    }

    static func payload(_ g: inout SeededGenerator) -> [UInt8] {
        var payload = (0..<Int.random(in: 0...300, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
        for _ in 0..<Int.random(in: 0...3, using: &g) where payload.count >= 5 {
            let at = Int.random(in: 0...(payload.count - 5), using: &g)
            let pieces: [[UInt8]] = [FormatConstants.recordSync, [0xAB, 0x52, 0x4C, 0x00], [0xAB, 0x52, 0x4C, 0x52, 0x00]]
            let piece = pieces.randomElement(using: &g)!
            payload.replaceSubrange(at..<(at + piece.count), with: piece)
        }
        return payload
    }

    static func splice(_ bytes: inout [UInt8], _ piece: [UInt8], _ g: inout SeededGenerator) {
        bytes.insert(contentsOf: piece, at: Int.random(in: 0...bytes.count, using: &g))
    }
}
