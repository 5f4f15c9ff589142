import Foundation
import Testing
@testable import RouteLog

/// `RecordFrame.payload(of:type:)`, the one check every reader of a located record
/// makes: the bytes of a location are one whole record of the expected type, or they
/// are not, and why.
@Suite struct RecordFramePayloadTests {
    static let payload = ForgedFrame.payload(48, seed: 3)

    /// Forged frames carry their payload unescaped, as format version 1 stored it.
    static func mismatch(_ bytes: [UInt8], _ type: FormatConstants.RecordType = .routePut,
                         version: UInt16 = 1) -> RecordFrame.Mismatch? {
        do throws(RecordFrame.Mismatch) {
            _ = try RecordFrame.payload(of: bytes, type: type, version: version)
            return nil
        } catch {
            return error
        }
    }

    @Test func aWholeFrameOfItsTypeGivesItsPayload() throws {
        #expect(Array(try RecordFrame.payload(of: ForgedFrame(Self.payload).bytes, type: .routePut, version: 1)) == Self.payload)
        #expect(try RecordFrame.payload(of: ForgedFrame([]).bytes, type: .routePut, version: 1).isEmpty)
        let batched = ForgedFrame(Self.payload, flags: RecordFrame.batchContinues).bytes
        #expect(Array(try RecordFrame.payload(of: batched, type: .routePut, version: 1)) == Self.payload)
        // Version 2 escapes the payload; the encoder and the check agree on it.
        let encoded = RecordFrame.encode(type: .indexEdit, payload: Self.payload)
        #expect(Array(try RecordFrame.payload(of: encoded, type: .indexEdit, version: 2)) == Self.payload)
        let marker = Array(FormatConstants.recordSync) + Self.payload
        let escaped = RecordFrame.encode(type: .routePut, payload: marker)
        #expect(Array(try RecordFrame.payload(of: escaped, type: .routePut, version: 2)) == marker)
    }

    @Test func aVersion2PayloadWithBrokenEscapingIsNotTheRecord() {
        // `AB 52 4C` not followed by the 00 the writer puts after it.
        let frame = ForgedFrame(Self.payload + Array(FormatConstants.recordSync.prefix(3)) + [7]).bytes
        #expect(Self.mismatch(frame, version: 2) == .badEscaping)
        #expect(Self.mismatch(frame, version: 1) == nil)
    }

    @Test func badHeader() {
        let good = ForgedFrame(Self.payload).bytes
        var cases: [(String, [UInt8])] = []
        for n in 0..<FormatConstants.recordHeaderSize { cases.append(("\(n) bytes", Array(good.prefix(n)))) }
        cases.append(("one byte short", Array(good.dropLast())))
        cases.append(("one byte more than the location", good + [0]))
        for i in 0..<4 {
            var noMarker = good
            noMarker[i] ^= 0x20
            cases.append(("marker byte \(i) wrong", noMarker))
        }
        for length in [UInt32(Self.payload.count - 1), UInt32(Self.payload.count + 1),
                       UInt32(FormatConstants.maxPayloadLength + 1), .max] {
            var frame = ForgedFrame(Self.payload)
            frame.length = length
            cases.append(("length field \(length)", frame.bytes))
        }
        for flags in [UInt8(0x02), 0x80] {
            cases.append(("flags \(flags)", ForgedFrame(Self.payload, flags: flags).bytes))
        }
        for reserved in [(UInt8(1), UInt8(0)), (0, 0x40)] {
            var frame = ForgedFrame(Self.payload)
            frame.reserved = reserved
            cases.append(("reserved \(reserved)", frame.bytes))
        }
        for (name, bytes) in cases {
            #expect(Self.mismatch(bytes) == .badHeader, "\(name)")
        }
    }

    @Test func wrongType() {
        #expect(Self.mismatch(ForgedFrame(Self.payload, type: 2).bytes) == .wrongType(2))
        #expect(Self.mismatch(RecordFrame.encode(type: .indexPut, payload: Self.payload)) == .wrongType(16))
        #expect(Self.mismatch(ForgedFrame(Self.payload, type: 0).bytes, .routeDelete) == .wrongType(0))
        #expect(Self.mismatch(ForgedFrame(Self.payload, type: 200).bytes, .manifestState) == .wrongType(200))
    }

    @Test func checksumMismatch() {
        var unchecked = ForgedFrame(Self.payload)
        unchecked.checksummed = false
        #expect(Self.mismatch(unchecked.bytes) == .checksumMismatch)
        // Every byte the checksum covers and that leaves a plausible header, and the
        // checksum itself: each flipped bit is caught.
        let good = ForgedFrame(Self.payload, flags: RecordFrame.batchContinues).bytes
        let covered = Array(4..<8) + [13] + Array(16..<good.count)
        for i in covered {
            for bit in 0..<8 where i != 13 || bit == 0 {
                var bytes = good
                bytes[i] ^= 1 << bit
                #expect(Self.mismatch(bytes) == .checksumMismatch, "byte \(i) bit \(bit)")
            }
        }
    }
}
