/// Bytes a scan could not read as records.
struct DamagedRange: Equatable, Sendable {
    let path: String
    let offset: Int64
    let length: Int64

    var end: Int64 { offset + length }

    /// The ranges of one file, in order, with neighbours less than `gap` bytes apart
    /// made one (what lies between them comes along). A compaction keeps one synced copy
    /// in `lost/` per range: a file shaped into a million small damaged ranges, each a
    /// few bytes between valid frames, would otherwise cost a million copies. Merged, a
    /// file of n bytes gives at most n / `gap` + 1 ranges, and each copy holds at most
    /// `gap` bytes of valid records per range it swallowed.
    static func merged(_ ranges: [DamagedRange], gap: Int64 = 64 << 10) -> [DamagedRange] {
        var result: [DamagedRange] = []
        for range in ranges.sorted(by: { $0.offset < $1.offset }) where range.length > 0 {
            if let last = result.last, last.path == range.path, range.offset - last.end < gap {
                result[result.count - 1] = DamagedRange(path: last.path, offset: last.offset,
                                                        length: max(last.end, range.end) - last.offset)
            } else {
                result.append(range)
            }
        }
        return result
    }
}
