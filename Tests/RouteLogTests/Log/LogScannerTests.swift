import Foundation
import Testing
@testable import RouteLog

/// The log scanner on bytes forged in memory (format-spec.md, "Reading a log"), case by
/// case in the manner of LevelDB's log_test: what is a record, what is damage (reported
/// with its offset and length, the scan going on at the next whole record), and what is
/// a torn tail (the end of the file, not damage).
@Suite struct LogScannerTests {
    @Test func emptyFileHasNoRecords() throws {
        let scan = try Self.scan([])
        #expect(scan.records.isEmpty && scan.damage.isEmpty)
        #expect(scan.validEnd == 0 && scan.tail == 0)
        // Fewer bytes than a frame header: a tail, not damage.
        let short = try Self.scan(Array(FormatConstants.recordSync + [1, 2, 3]))
        #expect(short.records.isEmpty && short.damage.isEmpty)
        #expect(short.validEnd == 0 && short.tail == 7)
    }

    @Test func readsBackRecords() throws {
        let frames = [ForgedFrame([]), ForgedFrame(ForgedFrame.payload(1), type: 2),
                      ForgedFrame(ForgedFrame.payload(1000, seed: 7), type: 3), ForgedFrame(ForgedFrame.payload(70_000), type: 16)]
            + ForgedFrame.batch([ForgedFrame.payload(5), ForgedFrame.payload(6), ForgedFrame.payload(7)])
        let log = ForgedLog(frames)
        let scan = try Self.scan(log.bytes)
        #expect(scan.records == Self.expected(log, Dictionary(uniqueKeysWithValues: frames.enumerated().map { ($0, $1) })))
        #expect(scan.damage.isEmpty)
        #expect(scan.validEnd == Int64(log.bytes.count) && scan.tail == 0)
        // The library's own encoder writes what the scanner reads.
        let encoded = RecordFrame.encode(type: .routeDelete, payload: [9, 8, 7])
        #expect(try Self.scan(encoded).records.map(\.payload) == [[9, 8, 7]])
    }

    @Test func badLength() throws {
        let a = ForgedFrame(ForgedFrame.payload(40)), c = ForgedFrame(ForgedFrame.payload(30, seed: 3))
        // Past the 64 MiB limit, in the middle: damage up to the next record.
        for claimed in [UInt32(FormatConstants.maxPayloadLength + 1), .max] {
            var b = ForgedFrame(ForgedFrame.payload(20))
            b.length = claimed
            let log = ForgedLog([a, b, c])
            let scan = try Self.scan(log.bytes)
            #expect(scan.records == Self.expected(log, [0: a, 2: c]), "length \(claimed)")
            #expect(scan.damage == [Self.damage(log.offset(1), Int64(log.pieces[1].length))], "length \(claimed)")
        }
        // Past the end of the file, with a record after it: damage.
        var b = ForgedFrame(ForgedFrame.payload(20))
        b.length = 5000
        let middle = ForgedLog([a, b, c])
        let scan = try Self.scan(middle.bytes)
        #expect(scan.records == Self.expected(middle, [0: a, 2: c]))
        #expect(scan.damage == [Self.damage(middle.offset(1), Int64(middle.pieces[1].length))])
        // Past the end of the file, last: a torn tail.
        let last = ForgedLog([a, b])
        let tail = try Self.scan(last.bytes)
        #expect(tail.records == Self.expected(last, [0: a]))
        #expect(tail.damage.isEmpty)
        #expect(tail.validEnd == last.end(0) && tail.tail == Int64(last.pieces[1].length))
    }

    @Test func checksumMismatch() throws {
        let a = ForgedFrame(ForgedFrame.payload(40)), c = ForgedFrame(ForgedFrame.payload(30, seed: 3), type: 4)
        var b = ForgedFrame(ForgedFrame.payload(64, seed: 9))
        b.checksummed = false
        let log = ForgedLog([a, b, c])
        let scan = try Self.scan(log.bytes)
        #expect(scan.records == Self.expected(log, [0: a, 2: c]), "resynchronises at the next record")
        #expect(scan.damage == [Self.damage(log.offset(1), Int64(log.pieces[1].length))])
        #expect(scan.validEnd == log.end(2) && scan.tail == 0)
        // A flipped payload byte of a checksummed frame is the same damage.
        var flipped = ForgedLog([a, ForgedFrame(ForgedFrame.payload(64, seed: 9)), c]).bytes
        flipped[Int(log.offset(1)) + 16 + 10] ^= 0x04
        let again = try Self.scan(flipped)
        #expect(again.records == scan.records && again.damage == scan.damage)
    }

    @Test func tornTailIsEndOfFile() throws {
        let frames = [ForgedFrame(ForgedFrame.payload(10)), ForgedFrame(ForgedFrame.payload(300, seed: 1), type: 2),
                      ForgedFrame(ForgedFrame.payload(33, seed: 2), type: 3)]
        let log = ForgedLog(frames)
        for cut in 0...log.bytes.count {
            let scan = try Self.scan(Array(log.bytes.prefix(cut)))
            let whole = frames.indices.filter { log.end($0) <= Int64(cut) }
            #expect(scan.records == Self.expected(log, Dictionary(uniqueKeysWithValues: whole.map { ($0, frames[$0]) })), "cut at \(cut)")
            #expect(scan.damage.isEmpty, "cut at \(cut)")
            let end = whole.last.map { log.end($0) } ?? 0
            #expect(scan.validEnd == end && scan.tail == Int64(cut) - end, "cut at \(cut)")
        }
        // Bytes after the last record that are no record at all: a tail too.
        var garbage = log
        garbage.append(raw: [UInt8](repeating: 0xEE, count: 50) + FormatConstants.recordSync + [1, 2])
        let scan = try Self.scan(garbage.bytes)
        #expect(scan.records.count == 3 && scan.damage.isEmpty && scan.tail == 56)
    }

    @Test func unfinishedBatchIsTail() throws {
        let a = ForgedFrame(ForgedFrame.payload(10))
        let batch = ForgedFrame.batch([ForgedFrame.payload(20), ForgedFrame.payload(30), ForgedFrame.payload(40)])
        let whole = ForgedLog([a] + batch)
        #expect(try Self.scan(whole.bytes).records.count == 4)
        // Cut anywhere inside the batch, even between its frames: only `a` is there.
        for cut in Int(whole.end(0))..<whole.bytes.count {
            let scan = try Self.scan(Array(whole.bytes.prefix(cut)))
            #expect(scan.records == Self.expected(whole, [0: a]), "cut at \(cut)")
            #expect(scan.damage.isEmpty, "cut at \(cut)")
            #expect(scan.validEnd == whole.end(0) && scan.tail == Int64(cut) - whole.end(0), "cut at \(cut)")
        }
    }

    @Test func damageIsReportedWithLength() throws {
        let a = ForgedFrame(ForgedFrame.payload(10)), b = ForgedFrame(ForgedFrame.payload(11), type: 2)
        let c = ForgedFrame(ForgedFrame.payload(12), type: 3)
        var log = ForgedLog()
        log.append(a)
        log.append(raw: [UInt8](repeating: 0, count: 5))
        log.append(b)
        log.append(raw: [UInt8](repeating: 0x5A, count: 100))
        log.append(c)
        let scan = try Self.scan(log.bytes)
        #expect(scan.records == Self.expected(log, [0: a, 2: b, 4: c]))
        #expect(scan.damage == [Self.damage(log.offset(1), 5), Self.damage(log.offset(3), 100)])
        // Damage that cuts a batch takes the batch's earlier records with it.
        let batch = ForgedFrame.batch([ForgedFrame.payload(20), ForgedFrame.payload(21)])
        var cutBatch = ForgedLog([a, batch[0]])
        cutBatch.append(raw: [UInt8](repeating: 0x11, count: 50))
        cutBatch.append(c)
        // Damage that cuts a batch: the records after it are read, and the batch's record
        // before it is either read or inside the damaged range (format version 1 drops
        // it with the damage; version 2 keeps it), never both or neither.
        let cut = try Self.scan(cutBatch.bytes)
        #expect(cut.records.first == Self.expected(cutBatch, [0: a]).first && cut.records.last == Self.expected(cutBatch, [3: c]).last)
        #expect(cut.damage.count == 1 && cut.damage.first.map { $0.offset + $0.length } == cutBatch.offset(3))
        #expect([cutBatch.offset(1), cutBatch.offset(2)].contains(cut.damage.first?.offset ?? -1), "\(cut.damage)")
    }

    @Test func badFlagsAndReservedBytesAreDamage() throws {
        let a = ForgedFrame(ForgedFrame.payload(10)), c = ForgedFrame(ForgedFrame.payload(12), type: 3)
        var forged: [(String, ForgedFrame)] = []
        for flag in [UInt8(0x02), 0x80, 0xFF] {
            forged.append(("flags \(flag)", ForgedFrame(ForgedFrame.payload(8), flags: flag)))
        }
        for reserved in [(UInt8(1), UInt8(0)), (0, 1), (0xFF, 0xFF)] {
            var frame = ForgedFrame(ForgedFrame.payload(8))
            frame.reserved = reserved
            forged.append(("reserved \(reserved)", frame))
        }
        for (name, b) in forged {
            let log = ForgedLog([a, b, c])
            let scan = try Self.scan(log.bytes)
            #expect(scan.records == Self.expected(log, [0: a, 2: c]), "\(name)")
            #expect(scan.damage == [Self.damage(log.offset(1), Int64(log.pieces[1].length))], "\(name)")
        }
    }

    @Test func aSyncMarkerInsideDamageIsSkipped() throws {
        let a = ForgedFrame(ForgedFrame.payload(10)), c = ForgedFrame(ForgedFrame.payload(12), type: 3)
        var wrongChecksum = ForgedFrame(ForgedFrame.payload(30))
        wrongChecksum.checksummed = false
        var impossibleLength = ForgedFrame(ForgedFrame.payload(4))
        impossibleLength.length = .max
        var log = ForgedLog([a])
        // Markers alone, a header cut short, a frame failing its checksum, an impossible
        // length: one damaged range from `a` to `c`.
        log.append(raw: [7, 7] + FormatConstants.recordSync + FormatConstants.recordSync + [1, 2, 3]
                   + wrongChecksum.bytes + impossibleLength.bytes + FormatConstants.recordSync + [UInt8](repeating: 9, count: 12))
        log.append(c)
        let scan = try Self.scan(log.bytes)
        #expect(scan.records == Self.expected(log, [0: a, 2: c]))
        #expect(scan.damage == [Self.damage(log.offset(1), Int64(log.pieces[1].length))])
    }

    @Test func largeRecordAcrossTheScannerWindow() throws {
        let window = LogScanner.windowSize
        let big = ForgedFrame(ForgedFrame.payload(window + 4097, seed: 5), type: 2)
        let c = ForgedFrame(ForgedFrame.payload(12), type: 3)
        // Larger than the window, first at a small offset, then with its header across
        // the end of the first window.
        for lead in [10, window - 16 - 8] {
            let a = ForgedFrame(ForgedFrame.payload(lead))
            let log = ForgedLog([a, big, c])
            let scan = try Self.scan(log.bytes)
            #expect(scan.records == Self.expected(log, [0: a, 1: big, 2: c]), "big record at \(log.offset(1))")
            #expect(scan.damage.isEmpty)
        }
        // Damaged, it is one damaged range, and the record after it is found.
        var damaged = ForgedLog([ForgedFrame(ForgedFrame.payload(10)), big, c]).bytes
        damaged[window / 2] ^= 1
        let scan = try Self.scan(damaged)
        #expect(scan.records.map(\.type) == [1, 3])
        #expect(scan.damage == [Self.damage(26, Int64(big.bytes.count))])
        // Damage about a window long: the next record's marker straddles the end of the
        // window the search reads.
        for gap in (window - 4)...(window + 1) {
            var log = ForgedLog([ForgedFrame(ForgedFrame.payload(10))])
            log.append(raw: [UInt8](repeating: 0, count: gap))
            log.append(c)
            let scan = try Self.scan(log.bytes)
            #expect(scan.records.map(\.offset) == [0, log.offset(2)], "gap \(gap)")
            #expect(scan.damage == [Self.damage(26, Int64(gap))], "gap \(gap)")
        }
    }

    /// A scan that meets no record must still move forward (format-spec.md, "Bounds on
    /// hostile files": every step moves forward, O(n) for n bytes), reading each byte
    /// once, not a window or a claimed record again for every candidate. Reads are
    /// counted through the file system and capped by an injected failure, so that a
    /// quadratic scan fails in a second instead of running for hours.
    @Test func everyStepMovesForward() throws {
        let size = 3 * LogScanner.windowSize
        let markers = [[UInt8]](repeating: FormatConstants.recordSync, count: size / 4).flatMap { $0 }
        // Headers every 16 bytes, each claiming a 1 MiB record that fails its checksum.
        var claim = ForgedFrame([])
        claim.length = 1 << 20
        claim.checksummed = false
        let claims = [[UInt8]](repeating: claim.bytes, count: size / 16).flatMap { $0 }
        let zeros = [UInt8](repeating: 0, count: size)
        try Self.expectLinear("zeros", zeros)
        try Self.expectLinear("sync markers", markers)
        try Self.expectLinear("headers claiming long records", claims)
        // Version 1 payloads may hold markers: each claim is checksummed, from prefix sums.
        try Self.expectLinear("headers claiming long records, version 1", claims, version: 1)
    }
}
