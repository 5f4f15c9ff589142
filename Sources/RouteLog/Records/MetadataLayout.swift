/// Where the parts of one stored metadata lie (format-spec.md, "Segment records":
/// metadata), read in place from raw bytes: flags, time shift, calories, distance, the
/// name's and the extension's byte ranges. The one reader of that layout:
/// ``MetadataView`` is made from it, and an IndexPutRun's entries are checked with it
/// without a slice or a reader made for each route.
struct MetadataLayout {
    typealias Flag = FormatConstants.MetadataFlag

    var shiftMs: Int64
    var calories: Double?
    var distance: Double?
    /// The name's UTF-8 bytes, as offsets into the bytes read.
    var name: Range<Int>?
    /// The extension's fields, as offsets into the bytes read (empty when there are none).
    var extensionFields: Range<Int>
    /// Bytes the metadata takes from the start of those read.
    var length: Int

    /// A flag of the index's in-memory form only (``RouteTable``): the time shift is
    /// zero, and its 8 bytes are left out. The format's flags are the low four bits, and
    /// a reader refuses stored metadata with any other (format-spec.md), so no stored
    /// metadata has it.
    static let zeroShiftLeftOut: UInt8 = 1 << 7

    /// Reads the layout at the start of `raw`; with `limits`, checks the time shift,
    /// calories, distance and the name's and extension's lengths against the format's
    /// limits (the extension's fields are ``MetadataView``'s to check). Without
    /// `limits` (bytes the index holds, checked when they came in), the in-memory form's
    /// ``zeroShiftLeftOut`` is read too; with them, it is refused as any unknown flag.
    /// - Throws: ByteReader.Malformed, its offset from the start of `raw`.
    init(_ raw: UnsafeRawBufferPointer, limits: Bool) throws {
        var r = Cursor(raw: raw)
        let flags = try r.fixed(1) { raw[$0] }
        let known = limits ? Flag.all : Flag.all | Self.zeroShiftLeftOut
        guard flags & ~known == 0 else { throw r.fail("unknown metadata flags \(flags)") }
        shiftMs = flags & Self.zeroShiftLeftOut != 0 ? 0 : try r.fixed(8) { raw.i64(at: $0) }
        // An edit keeps a route inside 1970...2200, so a shift is never larger than that span.
        let latest = FormatConstants.latestTimestampMs
        guard !limits || (shiftMs >= -latest && shiftMs <= latest) else { throw r.fail("time shift \(shiftMs) ms") }
        if flags & Flag.calories != 0 {
            let v = try r.fixed(8) { raw.f64(at: $0) }
            guard !limits || (v.isFinite && v >= 0) else { throw r.fail("calories \(v)") }
            calories = v
        }
        if flags & Flag.distance != 0 {
            let v = try r.fixed(8) { raw.f64(at: $0) }
            guard !limits || (v.isFinite && v >= 0) else { throw r.fail("distance \(v)") }
            distance = v
        }
        if flags & Flag.name != 0 {
            let count = Int(try r.fixed(2) { raw.u16(at: $0) })
            guard !limits || count <= FormatConstants.maxNameBytes else { throw r.fail("name of \(count) bytes") }
            name = try r.range(count)
        }
        extensionFields = r.position..<r.position
        if flags & Flag.extensionFields != 0 {
            let count = try r.shortVarint()
            let limit = limits ? min(r.remaining, FormatConstants.maxExtensionBytes) : r.remaining
            guard count <= UInt64(limit) else { throw r.fail("count \(count) exceeds \(limit)") }
            extensionFields = try r.range(Int(count))
        }
        length = r.position
    }

    /// A position in the bytes read, checked against their end.
    private struct Cursor: VarintReading {
        let raw: UnsafeRawBufferPointer
        var position = 0

        var remaining: Int { raw.count - position }

        func fail(_ reason: String) -> ByteReader.Malformed { ByteReader.Malformed(reason: reason, offset: position) }

        /// The `n` bytes here as a range, moving past them.
        @inline(__always)  // a few times a route when an index opens
        mutating func range(_ n: Int) throws -> Range<Int> {
            guard n <= remaining else { throw fail("needs \(n) bytes, \(remaining) left") }
            position += n
            return (position - n)..<position
        }

        /// A number of `n` bytes here, loaded by `load` from its offset.
        @inline(__always)
        mutating func fixed<T>(_ n: Int, _ load: (Int) -> T) throws -> T {
            load(try range(n).lowerBound)
        }

        /// A varint, read at once when it is one byte (an extension under 128 bytes,
        /// the usual one).
        mutating func shortVarint() throws -> UInt64 {
            if position < raw.count, raw[position] < 0x80 {
                position += 1
                return UInt64(raw[position - 1])
            }
            return try varint()
        }

        mutating func u8() throws -> UInt8 {
            let bytes = raw
            return try fixed(1) { bytes[$0] }
        }
    }
}
