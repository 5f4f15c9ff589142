/// The CRC32C of one stretch of a scan window from its start to every 16th byte, so that
/// the checksum of any range in it costs at most 30 bytes of CRC and one shift
/// (``Checksum/shifted(_:by:)``) however many frames claim to overlap there. A version 1
/// file needs it: its payloads may hold sync markers, so a hostile one can put a frame
/// header claiming a long record every 16 bytes, and checksumming each claim on its own
/// would cost the claim's length per header. A range that overlaps no range checked
/// before (the frames of an undamaged log, one after the other) is checksummed in one
/// pass without sums, so each byte is checksummed at most twice besides those 30.
struct PrefixChecksums: Sendable {
    static let step = 16
    /// Where the stretch starts.
    private var base: Int64 = 0
    /// `sums[i]` is the CRC32C of `base..<offset(i)`.
    private var sums: [UInt32] = [0]
    /// Sums let go of at the front.
    private var dropped = 0
    /// The end of the ranges checked so far.
    private var checkedEnd: Int64 = 0
    private var lastShift: (count: Int, power: UInt32) = (0, 1 << 31)
    /// Bytes checksummed so far.
    private(set) var bytesChecksummed = 0
    /// Shifts computed so far (one per distinct range length in a row).
    private(set) var shifts = 0

    private func offset(_ i: Int) -> Int64 { base + Int64((dropped + i) * Self.step) }
    private func sumIndex(_ offset: Int64) -> Int { Int(offset - base) / Self.step - dropped }
    private var end: Int64 { offset(sums.count - 1) }

    /// The CRC32C (unmasked) of `range`, which `window` holds with the 15 bytes before it.
    /// Ranges asked for start at increasing offsets.
    mutating func crc(of range: Range<Int64>, in window: ScanWindow) -> UInt32 {
        defer { checkedEnd = max(checkedEnd, range.upperBound) }
        if range.lowerBound >= checkedEnd {
            bytesChecksummed += range.count
            return window.bytes.withUnsafeBytes { Checksum.extend(0, $0, from: window.index(range.lowerBound), count: range.count) }
        }
        if range.lowerBound < base || range.lowerBound > end || sumIndex(range.lowerBound) < 0
            || offset(sumIndex(range.lowerBound)) < window.start {
            // Bytes before the range are never needed again: a new stretch starts here.
            base = range.lowerBound
            sums = [0]
            dropped = 0
        }
        extend(to: range.upperBound, in: window)
        let low = prefix(range.lowerBound, in: window), high = prefix(range.upperBound, in: window)
        forget(before: range.lowerBound)
        guard low != 0 else { return high }  // the stretch starts at the range
        if lastShift.count != range.count {
            lastShift = (range.count, Checksum.shift(byteCount: range.count))
            shifts += 1
        }
        return high ^ Checksum.multiply(lastShift.power, low)
    }

    /// Adds the sums of every whole step before `upper`.
    private mutating func extend(to upper: Int64, in window: ScanWindow) {
        guard end + Int64(Self.step) <= upper else { return }
        let steps = Int(upper - end) / Self.step
        sums.reserveCapacity(sums.count + steps)
        window.bytes.withUnsafeBytes { raw in
            var at = window.index(end), sum = sums[sums.count - 1]
            for _ in 0..<steps {
                sum = Checksum.extend(sum, raw, from: at, count: Self.step)
                sums.append(sum)
                at += Self.step
            }
        }
        bytesChecksummed += steps * Self.step
    }

    /// The CRC32C of `base..<offset`.
    private mutating func prefix(_ offset: Int64, in window: ScanWindow) -> UInt32 {
        let i = sumIndex(offset), from = self.offset(i)
        bytesChecksummed += Int(offset - from)
        return window.bytes.withUnsafeBytes { Checksum.extend(sums[i], $0, from: window.index(from), count: Int(offset - from)) }
    }

    /// Lets go of the sums before `offset`'s, once they are a quarter of those kept.
    private mutating func forget(before offset: Int64) {
        let i = sumIndex(offset)
        guard i >= 4096 && i * 4 >= sums.count else { return }
        sums.removeFirst(i)
        dropped += i
    }
}
