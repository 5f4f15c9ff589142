import CRouteLogSystem

/// Keeps the sync marker out of stored payloads (format-spec.md, "Frames": escaping),
/// so a reader searching for the next record after damage can only find real frame
/// starts, never a frame forged inside a payload (a route name holding one, say).
/// The writer puts a `00` after every `AB 52 4C`; the reader takes it out again.
enum PayloadEscaping {
    /// Offsets where `AB 52 4C` starts in `bytes` (the search is vectorised in C:
    /// payloads are searched on every save, load and open).
    private static func prefixOffsets(_ bytes: UnsafeRawBufferPointer) -> [Int] {
        guard let base = bytes.baseAddress else { return [] }
        var offsets: [Int] = []
        var at = 0
        while true {
            let found = at + routelog_find_sync_prefix(base + at, bytes.count - at)
            guard found < bytes.count else { return offsets }
            offsets.append(found)
            at = found + 1
        }
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
        unescape(stored, prefixes: stored.withUnsafeBytes(prefixOffsets))
    }

    /// A stored version 2 payload as written, given where it holds `AB 52 4C` (offsets
    /// from its start, in order: every one of them); nil when one is not followed by `00`.
    static func unescape(_ stored: ArraySlice<UInt8>, prefixes: [Int]) -> ArraySlice<UInt8>? {
        guard !prefixes.isEmpty else { return stored }
        var out: [UInt8] = []
        out.reserveCapacity(stored.count)
        let start = stored.startIndex
        var from = start
        for hit in prefixes.map({ $0 + start }) {
            guard hit + 3 < stored.endIndex, stored[hit + 3] == 0 else { return nil }
            out += stored[from..<(hit + 3)]
            from = hit + 4
        }
        out += stored[from...]
        return out[...]
    }
}
