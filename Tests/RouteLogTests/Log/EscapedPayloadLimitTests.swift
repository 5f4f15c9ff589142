import Foundation
import Testing
@testable import RouteLog

/// A record may take 64 MiB as stored, escaped (format-spec.md, "Frames"). Escaping adds
/// a byte after every `AB 52 4C`, so a payload under 64 MiB can pass it once escaped, and
/// framing one that does stops the process (`RecordFrame.encode`'s precondition). Every
/// writer asks `RecordFrame.fitsOnceEscaped` first: a save, a recording's chunk, a
/// compaction's merged recording and a record copied out of a version 1 file.
@Suite struct EscapedPayloadLimitTests {
    static let limit = FormatConstants.maxPayloadLength
    static let marker: [UInt8] = [0xAB, 0x52, 0x4C]

    /// `count` bytes of markers back to back (a third of them escaped), then filler.
    static func payload(count: Int, markers: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0x11, count: count)
        bytes.withUnsafeMutableBufferPointer { b in
            for m in 0..<min(markers, count / 3) {
                b[3 * m] = 0xAB
                b[3 * m + 1] = 0x52
                b[3 * m + 2] = 0x4C
            }
        }
        return bytes
    }

    @Test func payloadsUpTo48MiBAlwaysFitAndAreNotMadeToCount() {
        var made = 0
        #expect(RecordFrame.fitsOnceEscaped(size: Self.limit / 4 * 3) { made += 1; return [] })
        #expect(RecordFrame.fitsOnceEscaped(size: 0) { made += 1; return [] })
        #expect(made == 0)
        // The worst case of 48 MiB: a marker every three bytes.
        let worst = Self.payload(count: Self.limit / 4 * 3, markers: .max)
        #expect(RecordFrame.storedSize(of: worst) == Self.limit)
    }

    @Test func largerPayloadsAreCountedOnceEscaped() {
        let size = Self.limit - 1_000
        // Few markers: fits. A thousand and one: past the limit by one.
        #expect(RecordFrame.fitsOnceEscaped(size: size) { Self.payload(count: size, markers: 1_000) })
        #expect(!RecordFrame.fitsOnceEscaped(size: size) { Self.payload(count: size, markers: 1_001) })
        #expect(!RecordFrame.fitsOnceEscaped(size: Self.limit + 1) { [] })
        let exact = Self.payload(count: size, markers: 1_000)
        #expect(RecordFrame.storedSize(of: exact) == Self.limit)
        #expect(RecordFrame.encode(type: .routePut, payload: exact).count == FormatConstants.recordHeaderSize + Self.limit)
    }
}
