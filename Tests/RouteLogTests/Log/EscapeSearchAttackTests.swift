import Foundation
import Testing
@testable import RouteLog

/// Attacks on the single search of a version 2 payload
/// (`ScanWindow.escapes(in:)`, used by `LogScanner.frame(at:)`): an `AB 52 4C` not
/// followed by `00` (or cut by the payload's end) rejects the frame before its
/// checksum and sets the scan's `searched` memo there. The scan must accept and reject
/// exactly what format-spec.md's plain reading does (`ReferenceLogScanner`), on logs
/// built around the edge cases of that search: stored payloads ending in `AB`,
/// `AB 52`, `AB 52 4C` or an escape, sync markers straddling a payload's end, escapes
/// right before a marker, prefixes followed by bytes other than `00` or `52`, and
/// frames whose checksums are right but whose escaping is broken; and its work must stay
/// within "Bounds on hostile files" on inputs designed against the memo.
@Suite struct EscapeSearchAttackTests {
    static let sync = FormatConstants.recordSync
    static let prefix: [UInt8] = [0xAB, 0x52, 0x4C]

    /// A stored payload built from pieces around `AB 52 4C`.
    static func storedPayload(_ g: inout SeededGenerator) -> [UInt8] {
        var p: [UInt8] = []
        for _ in 0..<Int.random(in: 0...6, using: &g) {
            switch Int.random(in: 0..<8, using: &g) {
            case 0: p += prefix + [0]                      // an escape
            case 1: p += prefix + [UInt8.random(in: 1...255, using: &g)]  // a prefix that is no escape
            case 2: p += sync                              // a marker
            case 3: p += prefix + [0] + sync               // an escape right before a marker
            case 4: p += [0xAB, 0x52]
            case 5: p += [0xAB]
            default: p += (0..<Int.random(in: 0...24, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            }
        }
        // The payload's end: cut prefixes and escapes there.
        let ends: [[UInt8]] = [[], [0xAB], [0xAB, 0x52], prefix, prefix + [0], prefix + [0x52], prefix + [1]]
        p += ends.randomElement(using: &g)!
        return p
    }

    /// Bytes that may follow a frame: the rest of a marker straddling its end.
    static func straddle(_ g: inout SeededGenerator) -> [UInt8] {
        [[], [0x52], [0x4C, 0x52], [0x52, 0x4C, 0x52], [0x00], [0xAB, 0x52, 0x4C, 0x52]].randomElement(using: &g)!
    }

    /// A version 2 log of real frames (payloads holding `AB 52 4C` everywhere, escaped
    /// by the writer), frames whose stored payload is forged and checksummed right (their
    /// escaping may be broken), headers claiming lengths, and straddling bytes.
    static func log(_ g: inout SeededGenerator, version: UInt16) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<Int.random(in: 1...10, using: &g) {
            switch Int.random(in: 0..<6, using: &g) {
            case 0, 1:  // a real frame, sometimes the first of a batch
                let payload = storedPayload(&g)
                let flags = Int.random(in: 0..<4, using: &g) == 0 ? RecordFrame.batchContinues : 0
                bytes += version >= 2 ? RecordFrame.encode(type: .routePut, payload: payload, flags: flags)
                                      : ForgedFrame(payload, flags: flags).bytes
            case 2, 3:  // stored bytes as they are, checksummed right
                bytes += ForgedFrame(storedPayload(&g)).bytes
            case 4:  // a header claiming a length, its checksum right or not
                var claim = ForgedFrame(storedPayload(&g))
                claim.length = UInt32(claim.payload.count + Int.random(in: 0...40, using: &g))
                claim.checksummed = Bool.random(using: &g)
                bytes += claim.bytes
            default:
                bytes += (0..<Int.random(in: 0...12, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            }
            bytes += straddle(&g)
        }
        if Bool.random(using: &g), !bytes.isEmpty { bytes.removeLast(Int.random(in: 0...min(bytes.count, 6), using: &g)) }
        return bytes
    }

    @Test(arguments: [UInt16(1), 2])
    func sameRecordsAsTheReferenceAroundPayloadEnds(version: UInt16) throws {
        var accepted = 0, damaged = 0, torn = 0
        for seed in UInt64(1)...2000 {
            var g = SeededGenerator(seed: seed &* 15_485_863 &+ UInt64(version))
            let scan = try LogScannerReferenceTests.expectSameAsReference(Self.log(&g, version: version), version: version,
                                                                         "seed \(seed), version \(version)")
            accepted += scan.records.count
            damaged += scan.damage.count
            torn += scan.tail > 0 ? 1 : 0
        }
        #expect(accepted > 2000 && damaged > 300 && torn > 300, "\(accepted) \(damaged) \(torn)")
    }

    /// Every kind of stored payload end, alone in a frame checksummed right and then
    /// followed by the rest of a marker straddling its end and a real frame: the scan
    /// gives what the reference gives, and the first frame is a record exactly when its
    /// escaping is right. (The real frame after it is lost when it starts 4 to 7 bytes
    /// after the straddling marker: format-spec.md skips such a candidate.)
    @Test func eachPayloadEndAloneInAFrame() throws {
        let p = Self.prefix
        let escape: [UInt8] = p + [0]
        let ends: [[UInt8]] = [[0xAB], [0xAB, 0x52], p, escape, p + [0x52], p + [1], escape + [0xAB], escape + p, escape + escape]
        let after = RecordFrame.encode(type: .routeDelete, payload: [1, 2, 3])
        for end in ends {
            for follow in [[], [0x52], [0x4C, 0x52], [0x52, 0x4C, 0x52]] as [[UInt8]] {
                let forged = ForgedFrame([7, 7] + end).bytes
                let tail: [UInt8] = follow + after
                let bytes = forged + tail
                let scan = try LogScannerTests.scan(bytes, version: 2)
                let expected = ReferenceLogScanner(bytes: bytes, version: 2).scan()
                #expect(scan.records == expected.records && scan.damage == expected.damage, "end \(end), then \(follow)")
                let stored: [UInt8] = [7, 7] + end
                let escapedRight = PayloadEscaping.unescape(stored[...]) != nil
                #expect((scan.records.first?.offset == 0) == escapedRight, "end \(end), then \(follow)")
            }
        }
    }

    /// Frames across the 1 MiB windows the scan reads: a payload whose `AB 52 4C` lies
    /// on a window's end, forged and real, give what the reference gives.
    @Test func payloadPrefixesOnAWindowsEnd() throws {
        let window = LogScanner.windowSize
        for shift in [-3, -2, -1, 0, 1] {
            // A frame whose payload's bytes run to just around the first window's end,
            // ending in a prefix there; then a straddling marker's rest; then a real frame.
            let payloadCount = window - 16 + shift
            let p = Self.prefix
            let ends: [[UInt8]] = [p, p + [0x52]]
            for end in ends {
                var payload = ForgedFrame.payload(payloadCount - end.count, seed: 3)
                payload += end
                let bytes = ForgedFrame(payload).bytes + [0x52] + RecordFrame.encode(type: .routeDelete, payload: p + [9])
                let scan = try LogScannerTests.scan(bytes, version: 2)
                let expected = ReferenceLogScanner(bytes: bytes, version: 2).scan()
                #expect(scan.records == expected.records && scan.damage == expected.damage && scan.tail == expected.tail,
                        "shift \(shift), end \(end)")
                #expect(scan.work.bytesSearched <= 3 * bytes.count)
            }
        }
    }

    // MARK: Work

    /// Inputs made against the memo of the single search: many candidate frames whose
    /// payloads hold escapes, then a prefix that is no escape (no marker), then the next
    /// candidate; escapes right before markers; candidates claiming the rest of the file
    /// over payloads of escapes.
    static let inputs: [(name: String, bytes: @Sendable (Int) -> [UInt8])] = [
        ("escapes then a non-marker prefix before each header", { n in
            candidates(n) { i in Array(repeating: prefix + [0], count: 8 + i % 5).flatMap { $0 } + prefix + [0x01] }
        }),
        ("an escape right before each header", { n in candidates(n) { _ in prefix + [0] } }),
        ("headers 16 bytes apart after non-marker prefixes", { n in candidates(n) { _ in [] } }),
        ("headers claiming the rest of the file over escapes", { n in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(n)
            while bytes.count + 16 < n {
                var claim = ForgedFrame([])
                claim.length = UInt32(min(n - bytes.count - 16, FormatConstants.maxPayloadLength))
                claim.checksummed = false
                bytes += claim.bytes
                bytes += Array(repeating: prefix + [0], count: 64).flatMap { $0 } + prefix + [0x7F]
            }
            return Array(bytes.prefix(n))
        }),
    ]

    /// A header every so often, each claiming the rest of the file (capped) and failing
    /// its checksum, each followed by `body(i)`.
    static func candidates(_ n: Int, body: (Int) -> [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(n)
        var i = 0
        while bytes.count + 16 < n {
            var claim = ForgedFrame([])
            claim.length = UInt32(min(n - bytes.count - 16, 1 << 20))
            claim.checksummed = false
            bytes += claim.bytes + body(i)
            i += 1
        }
        return Array(bytes.prefix(n))
    }
}

/// The work of a scan on inputs aimed at the memo the single search of a payload keeps
/// (``EscapeSearchAttackTests/inputs``) stays within "Bounds on hostile files", as
/// `LogScannerCostTests` holds the scanner to it on its own inputs.
@Suite(.tags(.slow)) struct EscapeSearchCostTests {
    @Test(arguments: EscapeSearchAttackTests.inputs.indices)
    func workStaysLinear(_ i: Int) throws {
        let input = EscapeSearchAttackTests.inputs[i]
        let n = 2 * LogScanner.windowSize
        let small = try LogScannerTests.scan(input.bytes(n), version: 2).work
        let large = try LogScannerTests.scan(input.bytes(2 * n), version: 2).work
        let figures = "\(input.name): \(small) for \(n) bytes, \(large) for \(2 * n)"
        for figure in [\LogScanner.Work.bytesRead, \.bytesChecksummed, \.bytesSearched] {
            #expect(Double(large[keyPath: figure]) <= 2.2 * Double(small[keyPath: figure]) + 64, "\(figures)")
        }
        #expect(large.bytesRead <= 2 * n, "\(figures)")
        #expect(large.bytesChecksummed <= 4 * 2 * n && large.bytesSearched <= 3 * 2 * n, "\(figures)")
    }
}
