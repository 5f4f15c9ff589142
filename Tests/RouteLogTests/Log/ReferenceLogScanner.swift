import Foundation
@testable import RouteLog

/// format-spec.md's "Reading a log", written as plainly as it reads: every candidate
/// frame is checked from scratch over the whole byte array, in quadratic time. The tests
/// hold `LogScanner`'s answers to it on small files.
struct ReferenceLogScanner {
    let bytes: [UInt8]
    let version: UInt16

    func scan() -> LogScannerTests.Scan {
        var scan = LogScannerTests.Scan()
        var pending: [LogScannerTests.Record] = []
        var position = 0
        while position < bytes.count {
            var found = frame(at: position)
            if found == nil {
                var candidate = nextMarker(from: position + 1)
                while let c = candidate, isInsideAHeader(c) || frame(at: c) == nil { candidate = nextMarker(from: c + 1) }
                guard let next = candidate else { break }
                scan.records += pending
                pending.removeAll()
                scan.damage.append(LogScannerTests.damage(Int64(position), Int64(next - position)))
                found = frame(at: next)
            }
            let record = found!
            position = Int(record.offset) + record.length
            pending.append(record)
            if record.flags & RecordFrame.batchContinues == 0 {
                scan.records += pending
                pending.removeAll()
            }
        }
        scan.validEnd = scan.records.last.map { $0.offset + Int64($0.length) } ?? 0
        scan.tail = Int64(bytes.count) - scan.validEnd
        return scan
    }

    func isMarker(_ at: Int) -> Bool {
        at >= 0 && at + 4 <= bytes.count && bytes[at] == 0xAB && bytes[at + 1] == 0x52 && bytes[at + 2] == 0x4C
            && bytes[at + 3] == 0x52
    }

    /// The first marker at or after `from` (memchr finds the candidates' first bytes).
    func nextMarker(from: Int) -> Int? {
        var at = from
        while at < bytes.count {
            let hit: Int? = bytes.withUnsafeBytes { raw in
                memchr(raw.baseAddress! + at, 0xAB, raw.count - at).map { raw.baseAddress!.distance(to: UnsafeRawPointer($0)) }
            }
            guard let hit else { return nil }
            if isMarker(hit) { return hit }
            at = hit + 1
        }
        return nil
    }

    func isInsideAHeader(_ at: Int) -> Bool { (4...7).contains { isMarker(at - $0) } }

    func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }

    func frame(at offset: Int) -> LogScannerTests.Record? {
        guard offset + 16 <= bytes.count, isMarker(offset) else { return nil }
        let length = u32(offset + 8), flags = bytes[offset + 13]
        guard length <= FormatConstants.maxPayloadLength, flags & ~RecordFrame.knownFlags == 0,
              bytes[offset + 14] == 0, bytes[offset + 15] == 0, offset + 16 + length <= bytes.count,
              Checksum.masked(bytes, (offset + 8)..<(offset + 16 + length)) == UInt32(u32(offset + 4))
        else { return nil }
        var payload = Array(bytes[(offset + 16)..<(offset + 16 + length)])
        if version >= 2 {
            // Every AB 52 4C is followed by a 00, which is not the app's.
            var out: [UInt8] = []
            var i = 0
            while i < payload.count {
                out.append(payload[i])
                if i >= 2 && payload[i - 2] == 0xAB && payload[i - 1] == 0x52 && payload[i] == 0x4C {
                    guard i + 1 < payload.count, payload[i + 1] == 0 else { return nil }
                    i += 1
                }
                i += 1
            }
            payload = out
        }
        return LogScannerTests.Record(type: bytes[offset + 12], flags: flags, offset: Int64(offset), length: 16 + length,
                                      payload: payload)
    }
}
