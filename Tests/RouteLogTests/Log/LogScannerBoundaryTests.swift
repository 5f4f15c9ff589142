import Foundation
import Testing
@testable import RouteLog

/// Frames and claims placed where the scanner's window ends and grows, compared with
/// the plain reading of the spec (``ReferenceLogScanner``): a frame exactly a window
/// long after damage of every awkward length, a claim of exactly a window with frames
/// inside it and right after it, a claim to the end of the file, a frame nested in a
/// version 1 payload, markers inside headers. Each costs about a read of the file.
@Suite struct LogScannerBoundaryTests {
    @Test(arguments: [UInt16(1), 2])
    func sameRecordsAsTheReferenceAcrossWindows(version: UInt16) throws {
        for (name, bytes) in Self.cases(version: version) {
            let scan = try LogScannerTests.scan(bytes, version: version, partitioned: false)
            let expected = ReferenceLogScanner(bytes: bytes, version: version).scan()
            #expect(scan.records == expected.records, "\(name), version \(version)")
            #expect(scan.damage == expected.damage && scan.validEnd == expected.validEnd && scan.tail == expected.tail,
                    "\(name), version \(version): \(scan.damage) against \(expected.damage)")
            #expect(scan.work.bytesRead <= bytes.count && scan.work.bytesChecksummed <= 4 * bytes.count,
                    "\(name), version \(version): \(scan.work)")
        }
    }

    static func cases(version: UInt16) -> [(String, [UInt8])] {
        let w = LogScanner.windowSize
        func frame(_ payload: [UInt8], flags: UInt8 = 0) -> [UInt8] {
            version >= 2 ? RecordFrame.encode(type: .routePut, payload: payload, flags: flags) : ForgedFrame(payload, flags: flags).bytes
        }
        func failing(_ frame: [UInt8]) -> [UInt8] {
            var bytes = frame
            bytes[4] ^= 1
            return bytes
        }
        let small = frame(ForgedFrame.payload(40, seed: 3))
        let windowLong = frame(ForgedFrame.payload(w - 16, seed: 9))
        var cases: [(String, [UInt8])] = []
        for lead in [0, 1, 7, 16, w / 2, w - 16 - 8, w - 17, w - 16, w - 3, w - 2, w + 5] {
            let damage = [UInt8](repeating: 0x5A, count: lead)
            cases.append(("a window-long frame after \(lead) bytes of damage", small + damage + windowLong + small))
            cases.append(("a failing window-long frame after \(lead) bytes of damage", small + damage + failing(windowLong) + small))
        }
        // A claim of exactly a window failing its checksum, with a frame inside it, then
        // frames right after it.
        for inside in [0, 1, 100, w / 2, w - small.count - 1, w - small.count] {
            var claim = failing(frame(ForgedFrame.payload(w, seed: 1)))
            claim.replaceSubrange((16 + inside)..<(16 + inside + small.count), with: small)
            cases.append(("a window-long claim, a frame \(inside) bytes in", small + claim + small + small))
        }
        // A frame of 1 MiB + 1 whose header straddles the end of the first window read.
        for lead in [w - 20, w - 16, w - 8, w - 1] {
            let big = frame(ForgedFrame.payload(w + 1, seed: 4))
            cases.append(("a frame longer than a window at \(lead)", [UInt8](repeating: 0, count: lead) + big + small))
            cases.append(("a failing frame longer than a window at \(lead)", [UInt8](repeating: 0, count: lead) + failing(big) + small))
        }
        // Claims to the end of the file and one byte past it, valid or not.
        for past in [0, 1] {
            let tail = small + ForgedFrame.payload(w + 100, seed: 2)
            var claim = ForgedFrame(tail)
            claim.length = UInt32(tail.count + past)
            cases.append(("a claim \(past) past the end", small + claim.bytes))
            cases.append(("a valid frame to the end, after damage", small + [1, 2, 3] + ForgedFrame(tail).bytes))
        }
        // The longest length there is, and one more: no read of it, the frame after found.
        for length in [FormatConstants.maxPayloadLength, FormatConstants.maxPayloadLength + 1] {
            var claim = ForgedFrame([])
            claim.length = UInt32(length)
            cases.append(("a claim of \(length)", small + claim.bytes + small + [UInt8](repeating: 0, count: w)))
        }
        // A whole frame nested in another's payload (version 1 stores it as it is).
        for damaged in [false, true] {
            var outer = ForgedFrame(ForgedFrame.payload(100) + small + ForgedFrame.payload(w, seed: 5))
            outer.checksummed = !damaged
            cases.append(("a frame nested in a \(damaged ? "damaged" : "valid") one", small + outer.bytes + small))
        }
        // Sync markers in a header's checksum and length fields, then frames.
        var forged = FormatConstants.recordSync + FormatConstants.recordSync + [8, 0, 0, 0, 1, 0, 0, 0]
        forged += [UInt8](repeating: 0, count: 8)
        for at in [0, 3, w - 9, w - 5] {
            cases.append(("markers in a header at \(at)", [UInt8](repeating: 0, count: at) + forged + small + forged + small))
        }
        return cases
    }
}
