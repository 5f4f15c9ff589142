/// Ids whose records may have lost the record that made the id known (a RecordingStart,
/// a RoutePut) to damage: the manifest's note, setting tag 2 (format-spec.md,
/// "Manifest"). Compaction keeps their RecordingChunks and MetadataEdits that the index
/// has no trace of; any other id without a trace was deleted and compacted away.
///
/// Kept as ascending ranges, disjoint and not touching. At most ``maximumRanges``: past
/// that the two ranges nearest each other become one, which notes more ids, never fewer.
/// A note of no ids says that damage was found and lost no record of an id (a store
/// without the note may hold damage that a RouteLog before the note left unnoted).
struct LostIDs: Sendable, Equatable {
    private(set) var ranges: [ClosedRange<UInt64>] = []

    static let maximumRanges = 256

    init() {}

    /// The ids `ids`, as ranges.
    init<S: Sequence>(_ ids: S) where S.Element == UInt64 {
        for id in ids.sorted() where id >= 1 && id <= FormatConstants.maxRouteID { insert(id...id) }
    }

    var isEmpty: Bool { ranges.isEmpty }

    func contains(_ id: UInt64) -> Bool {
        // Ranges are ascending: the last one starting at or before `id`.
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].lowerBound <= id { low = middle + 1 } else { high = middle }
        }
        return low > 0 && ranges[low - 1].contains(id)
    }

    /// Notes `range` too. True when that noted an id not noted before.
    @discardableResult
    mutating func insert(_ range: ClosedRange<UInt64>) -> Bool {
        if ranges.contains(where: { $0.lowerBound <= range.lowerBound && range.upperBound <= $0.upperBound }) { return false }
        var merged = range
        var kept: [ClosedRange<UInt64>] = []
        for existing in ranges {
            // Overlapping or touching ranges become one.
            if existing.upperBound &+ 1 >= merged.lowerBound && merged.upperBound &+ 1 >= existing.lowerBound {
                merged = min(existing.lowerBound, merged.lowerBound)...max(existing.upperBound, merged.upperBound)
            } else {
                kept.append(existing)
            }
        }
        kept.append(merged)
        ranges = kept.sorted { $0.lowerBound < $1.lowerBound }
        while ranges.count > Self.maximumRanges {
            // The smallest gap closes.
            var nearest = 0
            for n in 1..<(ranges.count - 1) where ranges[n + 1].lowerBound - ranges[n].upperBound
                < ranges[nearest + 1].lowerBound - ranges[nearest].upperBound { nearest = n }
            ranges[nearest] = ranges[nearest].lowerBound...ranges[nearest + 1].upperBound
            ranges.remove(at: nearest + 1)
        }
        return true
    }

    /// Notes every id of `other` too. True when that noted an id not noted before.
    @discardableResult
    mutating func formUnion(_ other: LostIDs) -> Bool {
        var grew = false
        for range in other.ranges where insert(range) { grew = true }
        return grew
    }

    /// The value of setting tag 2: each range's first and last id, `u64` each.
    func write(to w: inout ByteWriter) {
        for range in ranges {
            w.u64(range.lowerBound)
            w.u64(range.upperBound)
        }
    }

    /// Reads the value of setting tag 2.
    /// - Throws: ``ByteReader/Malformed`` for a value that is no whole ranges, or ranges
    ///   out of order, touching, empty, outside 1...2^62 or too many.
    init(from r: inout ByteReader) throws {
        guard r.remaining % 16 == 0, r.remaining / 16 <= Self.maximumRanges else {
            throw r.fail("lost ids of \(r.remaining) bytes, not up to \(Self.maximumRanges) ranges of 16")
        }
        while r.remaining > 0 {
            let first = try r.u64(), last = try r.u64()
            guard first >= 1, first <= last, last <= FormatConstants.maxRouteID,
                  ranges.last.map({ $0.upperBound &+ 1 < first }) ?? true else {
                throw r.fail("lost ids \(first)...\(last) out of order or range")
            }
            ranges.append(first...last)
        }
    }
}
