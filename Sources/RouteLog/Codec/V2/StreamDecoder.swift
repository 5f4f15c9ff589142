/// One stream of a version 2 column being read: a bit position and where the stream
/// ends. Every read first checks that the position is inside the stream, so a damaged
/// stream fails instead of reading on; the 8-byte window may look past the stream's end
/// into the block's padding, never past the copy.
struct StreamCursor {
    /// The memory positions count from (the block's copy; every stream of a column
    /// shares it, so a loop over four streams needs one pointer, not four).
    let bytes: UnsafePointer<UInt8>
    /// Bit position of the next read, from `bytes`.
    var position: Int
    /// Bit position of the stream's end, from `bytes`.
    let limit: Int

    /// The stream of `length` bytes at `bytes`.
    init(_ bytes: UnsafePointer<UInt8>, length: Int) {
        self.init(bytes, offset: 0, length: length)
    }

    init(_ bytes: UnsafePointer<UInt8>, position: Int, limit: Int) {
        self.bytes = bytes
        self.position = position
        self.limit = limit
    }

    /// The stream of `length` bytes at `origin + offset`.
    init(_ origin: UnsafePointer<UInt8>, offset: Int, length: Int) {
        bytes = origin
        position = offset * 8
        limit = (offset + length) * 8
    }

    /// At least 57 bits from `position` on, lowest first.
    @inline(__always)
    var window: UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes + (position &>> 3)).loadUnaligned(as: UInt64.self))
            &>> UInt64(truncatingIfNeeded: position & 7)
    }

    /// Bits from the position to the stream's end (the position and the end both count
    /// from the block's copy, not from the stream's start).
    var bitsLeft: Int { limit - position }

    /// A stream ends in its last byte, with that byte's unused bits 0.
    func checkEnd() -> String? {
        guard (position + 7) >> 3 == limit >> 3 else {
            return position > limit ? "a stream ends early" : "a stream has \((limit - position) / 8) unread bytes"
        }
        guard limit > 0 else { return nil }
        let unused = limit - position
        guard unused == 0 || bytes[(limit >> 3) - 1] >> UInt8(8 - unused) == 0 else { return "a stream's padding bits are not 0" }
        return nil
    }
}

/// Reads residual values (u) with one column's decode table.
struct StreamDecoder {
    typealias Table = HuffmanDecodeTable
    let entries: UnsafeMutablePointer<UInt64>
    let mask: UInt64

    init(_ table: HuffmanDecodeTable) {
        entries = table.entries
        mask = (1 << UInt64(table.bits)) - 1
    }

    /// The next token: its value u, or for a run token the run's length. Shaped for
    /// speed: one table entry gives the token's bits, code length and base alike for
    /// every token, so there is no branch on the value; only entries marked slow (no
    /// code, or a value of 2^48 or more) leave the path.
    @inline(__always)
    func next(_ c: inout StreamCursor) throws -> (value: UInt64, entry: UInt64) {
        guard c.position < c.limit else { throw StreamError.endOfStream }
        let window = c.window
        let entry = entries[Int(truncatingIfNeeded: window & mask)]
        if entry & Table.slow != 0 { return (try slowValue(entry, &c), entry) }
        let total = entry & Table.totalMask, length = (entry &>> Table.codeShift) & Table.codeMask
        let value = (entry &>> Table.baseShift) &+ ((window &>> length) & ((1 &<< (total &- length)) &- 1))
        c.position &+= Int(truncatingIfNeeded: total)
        return (value, entry)
    }

    /// The next value token's u (a column without runs, whose code has no run tokens).
    @inline(__always)
    func value(_ c: inout StreamCursor) throws -> UInt64 {
        try value(c.bytes, &c.position, c.limit)
    }

    /// ``value(_:)`` on a bare position, for loops that keep four of them in registers.
    @inline(__always)
    func value(_ bytes: UnsafePointer<UInt8>, _ position: inout Int, _ limit: Int) throws -> UInt64 {
        guard position < limit else { throw StreamError.endOfStream }
        let window = UInt64(littleEndian: UnsafeRawPointer(bytes + (position &>> 3)).loadUnaligned(as: UInt64.self))
            &>> UInt64(truncatingIfNeeded: position & 7)
        let entry = entries[Int(truncatingIfNeeded: window & mask)]
        if entry & Table.slow != 0 {
            var c = StreamCursor(bytes, position: position, limit: limit)
            defer { position = c.position }
            return try slowValue(entry, &c)
        }
        let total = entry & Table.totalMask, length = (entry &>> Table.codeShift) & Table.codeMask
        position &+= Int(truncatingIfNeeded: total)
        return (entry &>> Table.baseShift) &+ ((window &>> length) & ((1 &<< (total &- length)) &- 1))
    }

    /// The most bits one value takes: an 11-bit code and 61 extra bits.
    static let longestValueBits = 72

    /// The next token when runs are allowed: a value (run 0) or a run of zero values.
    @inline(__always)
    func valueOrRun(_ c: inout StreamCursor) throws -> (u: UInt64, run: Int) {
        let (value, entry) = try next(&c)
        return entry & Table.run != 0 ? (0, Int(truncatingIfNeeded: value)) : (value, 0)
    }

    /// A window that starts no code, or a value token whose base does not fit an entry.
    @inline(never)
    func slowValue(_ entry: UInt64, _ c: inout StreamCursor) throws -> UInt64 {
        let length = Int(entry & Table.totalMask), symbol = Int(entry &>> Table.baseShift)
        guard length > 0 else { throw StreamError.noCode }
        let extra = ResidualToken.extraBits(symbol)
        var u = ResidualToken.base(symbol)
        c.position += length
        var done = 0
        while done < extra {
            let chunk = min(32, extra - done)
            u += (c.window & ((1 << UInt64(chunk)) - 1)) << UInt64(done)
            c.position += chunk
            done += chunk
        }
        return u
    }
}

/// Why a stream could not be read (the column decoder adds where).
enum StreamError: Error {
    case endOfStream, noCode, misplacedRun

    var reason: String {
        switch self {
        case .endOfStream: return "a stream ends before its last value"
        case .noCode: return "a stream holds a bit pattern that is no code"
        case .misplacedRun: return "a run token in a column without runs"
        }
    }
}
