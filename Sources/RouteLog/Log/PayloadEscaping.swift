#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the sync marker out of stored payloads (format-spec.md, "Frames": escaping),
/// so a reader searching for the next record after damage can only find real frame
/// starts, never a frame forged inside a payload (a route name holding one, say).
/// The writer puts a `00` after every `AB 52 4C`; the reader takes it out again.
enum PayloadEscaping {
    /// The marker's first three bytes: `AB 52 4C` never stands in a stored payload
    /// without a `00` after it, so `AB 52 4C 52` never does.
    private static let prefix: (UInt8, UInt8, UInt8) = (FormatConstants.recordSync[0], FormatConstants.recordSync[1],
                                                       FormatConstants.recordSync[2])

    /// Offsets where `AB 52 4C` starts in `bytes`, found with memchr (the loop is shaped
    /// for speed: payloads are scanned on every save and load).
    private static func prefixOffsets(_ bytes: UnsafeRawBufferPointer) -> [Int] {
        guard let base = bytes.baseAddress, bytes.count >= 3 else { return [] }
        var offsets: [Int] = []
        var at = 0
        while at + 3 <= bytes.count {
            guard let hit = memchr(base + at, Int32(prefix.0), bytes.count - 2 - at) else { break }
            let i = base.distance(to: UnsafeRawPointer(hit))
            if bytes[i + 1] == prefix.1 && bytes[i + 2] == prefix.2 { offsets.append(i) }
            at = i + 1
        }
        return offsets
    }

    /// The payload as stored in a version 2 frame.
    static func escape(_ payload: [UInt8]) -> [UInt8] {
        let hits = payload.withUnsafeBytes(prefixOffsets)
        guard !hits.isEmpty else { return payload }
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + hits.count)
        var from = 0
        for hit in hits {
            out += payload[from..<(hit + 3)]
            out.append(0)
            from = hit + 3
        }
        out += payload[from...]
        return out
    }

    /// The stored size of `payload` once escaped.
    static func escapedCount(_ payload: [UInt8]) -> Int {
        payload.count + payload.withUnsafeBytes(prefixOffsets).count
    }

    /// A stored version 2 payload as written by the app; nil when an `AB 52 4C` is not
    /// followed by `00` (damage).
    static func unescape(_ stored: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let hits = stored.withUnsafeBytes(prefixOffsets)
        guard !hits.isEmpty else { return stored }
        var out: [UInt8] = []
        out.reserveCapacity(stored.count)
        let start = stored.startIndex
        var from = start
        for hit in hits.map({ $0 + start }) {
            guard hit + 3 < stored.endIndex, stored[hit + 3] == 0 else { return nil }
            out += stored[from..<(hit + 3)]
            from = hit + 4
        }
        out += stored[from...]
        return out[...]
    }
}
