import Foundation
@testable import RouteLog

/// Record frames built by hand, byte by byte from format-spec.md ("Record frame"), so
/// that a test can make any of its fields wrong: the type byte, the flags, the reserved
/// bytes, the length field, the checksum.
struct ForgedFrame {
    var payload: [UInt8]
    var type: UInt8 = FormatConstants.RecordType.routePut.rawValue
    var flags: UInt8 = 0
    var reserved: (UInt8, UInt8) = (0, 0)
    /// The length field; the payload's length when nil.
    var length: UInt32?
    /// Whether the checksum field matches the bytes it covers.
    var checksummed = true

    init(_ payload: [UInt8], type: UInt8 = FormatConstants.RecordType.routePut.rawValue, flags: UInt8 = 0) {
        self.payload = payload
        self.type = type
        self.flags = flags
    }

    /// A payload of `count` bytes that holds no sync marker (consecutive bytes differ
    /// by one, and the marker's do not).
    static func payload(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &+ Int(seed)) }
    }

    var bytes: [UInt8] {
        var b = FormatConstants.recordSync
        b += [0, 0, 0, 0]
        let n = length ?? UInt32(payload.count)
        for i in 0..<4 { b.append(UInt8(truncatingIfNeeded: n >> (8 * UInt32(i)))) }
        b += [type, flags, reserved.0, reserved.1]
        b += payload
        var crc = Checksum.masked(b, 8..<b.count)
        if !checksummed { crc ^= 0x0100_0000 }
        for i in 0..<4 { b[4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        return b
    }

    /// Frames of one batch: every one but the last says "batch continues".
    static func batch(_ payloads: [[UInt8]]) -> [ForgedFrame] {
        payloads.enumerated().map { i, payload in
            ForgedFrame(payload, flags: i < payloads.count - 1 ? RecordFrame.batchContinues : 0)
        }
    }
}

/// A log file's bytes laid out frame by frame, remembering where each piece went.
struct ForgedLog {
    private(set) var bytes: [UInt8] = []
    /// Offset and length of each piece appended, in order.
    private(set) var pieces: [(offset: Int64, length: Int)] = []

    init() {}

    init(_ frames: [ForgedFrame]) {
        for frame in frames { append(frame) }
    }

    mutating func append(_ frame: ForgedFrame) { append(raw: frame.bytes) }

    /// Appends bytes that are not a frame (garbage, a cut frame).
    mutating func append(raw: [UInt8]) {
        pieces.append((Int64(bytes.count), raw.count))
        bytes += raw
    }

    func offset(_ piece: Int) -> Int64 { pieces[piece].offset }
    func end(_ piece: Int) -> Int64 { pieces[piece].offset + Int64(pieces[piece].length) }
}
