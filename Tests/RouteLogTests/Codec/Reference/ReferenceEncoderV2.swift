// The version 2 column encoder as it was before the save path was reshaped for speed
// (BitStreamWriter storing 32-bit words on a branch, zero runs found value by value),
// kept word for word under other names (but for the longest code it makes, which
// follows the writer's, FormatConstants.ColumnV2.writtenCodeLength): the tests compare
// today's bytes with its.
@testable import RouteLog

/// Version 2 point blocks as the reference encoder writes them.
enum ReferencePointBlockV2 {
    /// The block of `columns`, as ``PointBlockV2/encode(_:)`` wrote it, with codes of at
    /// most `codeLengthLimit` bits (11 gives the bytes of the encoder before the writer's
    /// codes were limited to 9 bits).
    static func encode(_ columns: PointColumns, codeLengthLimit: Int = FormatConstants.ColumnV2.writtenCodeLength) -> [UInt8] {
        var out = ByteWriter(capacity: columns.count * 6 + 64)
        out.u8(FormatConstants.Compression.columnsV2.rawValue)
        out.varint(columns.count)
        out.varint(3 + columns.optional.count)
        let encoder = ReferenceColumnEncoderV2(capacity: columns.count, codeLengthLimit: codeLengthLimit)
        defer { encoder.deallocate() }
        for (tag, column) in [(FormatConstants.ColumnTag.latitude, columns.latitudes), (.longitude, columns.longitudes), (.time, columns.times)] {
            encoder.encode(tag: tag, values: column.buffer, presence: nil, to: &out)
        }
        for column in columns.optional {
            let presence = column.bitmap.map { ColumnPresence(bitmap: $0, pointCount: columns.count) }
            encoder.encode(tag: column.tag, values: column.values.buffer, presence: presence, to: &out)
        }
        return out.bytes
    }
}

/// Writes one version 2 column (format-spec.md, "PointBlock", "Version 2"): start
/// values, residuals as canonical Huffman tokens with extra bits, in one stream or four.
struct ReferenceColumnEncoderV2 {
    typealias V2 = FormatConstants.ColumnV2

    /// Scratch memory for the residuals and streams of the largest column of a block,
    /// reused by every column.
    private let residuals: UnsafeMutablePointer<UInt64>
    private let streamBytes: UnsafeMutablePointer<UInt8>
    /// Four token histograms, filled in turn (see ``computeResiduals(_:_:)``).
    private let counts: UnsafeMutablePointer<UInt32>
    /// Each residual's token, so that writing does not work it out again.
    private let tokenBytes: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// The longest code it makes.
    private let codeLengthLimit: Int
    /// Worst case of a stream region: a code of 11 bits and 61 extra bits a value.
    private static let bytesPerValue = 10

    init(capacity: Int, codeLengthLimit: Int = V2.writtenCodeLength) {
        self.codeLengthLimit = codeLengthLimit
        self.capacity = max(1, capacity)
        residuals = .allocate(capacity: self.capacity)
        streamBytes = .allocate(capacity: Self.bytesPerValue * self.capacity + 64)
        counts = .allocate(capacity: 4 * V2.valueTokens)
        tokenBytes = .allocate(capacity: self.capacity)
    }

    func deallocate() {
        residuals.deallocate()
        streamBytes.deallocate()
        counts.deallocate()
        tokenBytes.deallocate()
    }

    /// Appends the column: tag, encoding, length and body.
    func encode(tag: FormatConstants.ColumnTag, values: UnsafeBufferPointer<Int64>, presence: ColumnPresence?,
                model chosen: ResidualModel? = nil, to out: inout ByteWriter) {
        precondition(values.count <= capacity)
        var header = ByteWriter(capacity: 256)
        var encoding: UInt8 = 0
        if let presence { encoding |= presence.write(to: &header) }
        var model = chosen ?? ResidualModel.choose(values)
        let m = values.count, order = min(model.order, m)
        model.order = order
        encoding |= UInt8(order)
        if order >= 1 && m >= 1 { header.varint(ResidualToken.zigzag(values[0])) }
        if order == 2 && m >= 2 { header.varint(ResidualToken.zigzag(values[1] &- values[0])) }
        let k = m - order
        var streams: [(start: Int, length: Int)] = []
        if k > 0 {
            if !computeResiduals(values, &model) {
                model.divisor = 1
                _ = computeResiduals(values, &model)
            }
            header.varint(ResidualToken.zigzag(model.bias))
            header.varint(UInt64(model.divisor))
            let plan = ReferenceCodePlan(residuals: UnsafeBufferPointer(start: residuals, count: k),
                                tokenCounts: UnsafeBufferPointer(start: counts, count: V2.valueTokens),
                                codeLengthLimit: codeLengthLimit)
            encoding |= plan.runs ? V2.zeroRuns : 0
            let streamCount = !plan.runs && k >= 256 ? 4 : 1
            encoding |= UInt8(streamCount.trailingZeroBitCount) << V2.streamShift
            plan.writeLengths(to: &header)
            streams = plan.runs ? [writeRuns(k, plan)] : writeStreams(k, streamCount, plan)
            for stream in streams.dropLast() { header.varint(stream.length) }
        }
        out.u8(tag.rawValue)
        out.u8(encoding)
        out.varint(header.count + streams.reduce(0) { $0 + $1.length })
        out.append(contentsOf: header.bytes)
        for stream in streams {
            out.append(contentsOf: UnsafeBufferPointer(start: streamBytes + stream.start, count: stream.length))
        }
    }

    /// u = zigzag((r - bias) / divisor) for every residual, into `residuals`, with its
    /// token counted into `counts`; false when some residual is not a multiple of the
    /// divisor (the samples missed it).
    private func computeResiduals(_ v: UnsafeBufferPointer<Int64>, _ model: inout ResidualModel) -> Bool {
        let u = residuals, bias = model.bias, order = model.order, m = v.count
        let h = counts, tokens = V2.valueTokens, table = ResidualToken.exponentTable, t = tokenBytes
        h.update(repeating: 0, count: 4 * tokens)
        // Four histograms in turn: consecutive values often share a token, and adding to
        // one counter back to back waits on the previous store every time.
        @inline(__always) func count(_ value: UInt64, _ i: Int) {
            u[i] = value
            let token = ResidualToken.token(value, table)
            t[i] = UInt8(truncatingIfNeeded: token)
            h[((i & 3) &* tokens) &+ token] &+= 1
        }
        if model.divisor == 1 {
            // One loop per order: no branch inside, and the difference is a few adds.
            switch order {
            case 0: for j in 0..<m { count(ResidualToken.zigzag(v[j] &- bias), j) }
            case 1: for j in 1..<m { count(ResidualToken.zigzag((v[j] &- v[j - 1]) &- bias), j - 1) }
            default: for j in 2..<m { count(ResidualToken.zigzag(((v[j] &- v[j - 1]) &- (v[j - 1] &- v[j - 2])) &- bias), j - 2) }
            }
        } else {
            let division = ExactDivision(model.divisor)
            for j in order..<m {
                let r: Int64
                switch order {
                case 0: r = v[j]
                case 1: r = v[j] &- v[j - 1]
                default: r = (v[j] &- v[j - 1]) &- (v[j - 1] &- v[j - 2])
                }
                guard let q = division.quotient(r &- bias) else { return false }
                count(ResidualToken.zigzag(q), j - order)
            }
        }
        for t in 0..<tokens { h[t] = h[t] &+ h[tokens + t] &+ h[2 * tokens + t] &+ h[3 * tokens + t] }
        return true
    }

    /// Residual i into stream i mod `count`, each stream in its own region of the scratch.
    private func writeStreams(_ k: Int, _ count: Int, _ plan: ReferenceCodePlan) -> [(start: Int, length: Int)] {
        let region = Self.bytesPerValue * (k / count + 1) + 8
        return (0..<count).map { s in
            (start: s * region, length: writeStream(s, every: count, of: k, plan, into: streamBytes + s * region))
        }
    }

    /// Writes residuals `first`, `first + step`, ... as one stream; returns its bytes.
    /// Shaped for speed: the bit buffer lives in locals, one table load gives a token's
    /// code, length and extra-bit count, and whole 32-bit words are stored.
    private func writeStream(_ first: Int, every step: Int, of k: Int, _ plan: ReferenceCodePlan,
                             into start: UnsafeMutablePointer<UInt8>) -> Int {
        let send = plan.sendTable, u = residuals, tokens = tokenBytes
        var accumulator: UInt64 = 0, pending: UInt64 = 0, next = start
        var i = first
        while i < k {
            let value = u[i]
            let s = send[Int(tokens[i])]
            let length = (s &>> 32) & 0xFF, extra = s &>> 40
            let extraBits = value & ((1 &<< extra) &- 1)
            if length + extra <= 32 {
                accumulator |= ((s & 0xFFFF_FFFF) | extraBits &<< length) &<< pending
                pending += length + extra
            } else {
                // A long value (over 32 bits of code and extra): its pieces one by one.
                var writer = ReferenceBitStreamWriter(resuming: next, accumulator, Int(pending))
                writer.put(s & 0xFFFF_FFFF, Int(length))
                writer.putLong(extraBits, Int(extra))
                (next, accumulator, pending) = writer.state
            }
            if pending >= 32 {
                UnsafeMutableRawPointer(next).storeBytes(of: UInt32(truncatingIfNeeded: accumulator).littleEndian, as: UInt32.self)
                next += 4
                accumulator &>>= 32
                pending -= 32
            }
            i += step
        }
        var writer = ReferenceBitStreamWriter(resuming: next, accumulator, Int(pending))
        return writer.finish(from: start)
    }

    /// One stream with zero runs: each run of u = 0 is one run token.
    private func writeRuns(_ k: Int, _ plan: ReferenceCodePlan) -> (start: Int, length: Int) {
        var writer = ReferenceBitStreamWriter(streamBytes)
        let u = residuals
        var i = 0
        while i < k {
            if u[i] != 0 {
                plan.put(u[i], &writer)
                i += 1
                continue
            }
            var end = i + 1
            while end < k && u[end] == 0 { end += 1 }
            plan.putRun(end - i, &writer)
            i = end
        }
        return (0, writer.finish())
    }
}

/// The code of one column's residuals: token counts, the choice between plain tokens
/// and zero runs (whichever writes fewer bits), and the code it sends each token with.
final class ReferenceCodePlan {
    typealias V2 = FormatConstants.ColumnV2

    /// True when zeros are sent as run tokens.
    let runs: Bool
    let code: HuffmanCode
    /// Per symbol: code bits (reversed) in bits 0-31, code length in bits 32-39, extra
    /// bits in 40-47: one load per value in the write loop.
    private let send: UnsafeMutablePointer<UInt64>

    /// Builds the cheaper code for `residuals` (values u), whose value tokens were
    /// counted into `tokenCounts` (``valueTokens`` entries) as they were made.
    init(residuals u: UnsafeBufferPointer<UInt64>, tokenCounts: UnsafeBufferPointer<UInt32>, codeLengthLimit: Int) {
        var counts = [UInt32](repeating: 0, count: HuffmanCode.symbolCount)
        for t in 0..<V2.valueTokens { counts[t] = tokenCounts[t] }
        let zeros = Int(counts[0])
        // Zero runs pay only when zeros are common; counting runs needs another pass.
        let tryRuns = zeros * 16 >= u.count
        if tryRuns {
            var run = 0
            for value in u {
                if value == 0 {
                    run += 1
                } else if run > 0 {
                    counts[V2.valueTokens + ResidualToken.runToken(run)] += 1
                    run = 0
                }
            }
            if run > 0 { counts[V2.valueTokens + ResidualToken.runToken(run)] += 1 }
        }
        let plain = Self.build(counts, withRuns: false, limit: codeLengthLimit)
        var choice = (runs: false, code: plain.code)
        if tryRuns {
            counts[0] = 0
            let withRuns = Self.build(counts, withRuns: true, limit: codeLengthLimit)
            if withRuns.bits < plain.bits { choice = (true, withRuns.code) }
        }
        runs = choice.runs
        code = choice.code
        send = .allocate(capacity: HuffmanCode.symbolCount)
        let (bits, lengths) = code.codes()
        for symbol in 0..<HuffmanCode.symbolCount {
            let extra = symbol < V2.valueTokens ? ResidualToken.extraBits(symbol) : symbol - V2.valueTokens
            send[symbol] = UInt64(bits[symbol]) | UInt64(lengths[symbol]) << 32 | UInt64(extra) << 40
        }
    }

    /// Per symbol: code bits, length and extra bits packed (see the stored property).
    var sendTable: UnsafePointer<UInt64> { UnsafePointer(send) }

    deinit { send.deallocate() }

    /// A code for `counts` (run tokens ignored unless `withRuns`) and the bits it would
    /// write: codes, extra bits and the lengths table.
    private static func build(_ counts: [UInt32], withRuns: Bool, limit: Int) -> (code: HuffmanCode, bits: Int) {
        var code = HuffmanCode()
        let used = withRuns ? HuffmanCode.symbolCount : V2.valueTokens
        counts.withUnsafeBufferPointer { c in
            code.lengths.withUnsafeMutableBufferPointer { lengths in
                HuffmanLengths.build(weights: UnsafeBufferPointer(rebasing: c[0..<used]), limit: limit,
                                     into: lengths)
            }
        }
        var bits = 0
        for symbol in 0..<used where counts[symbol] > 0 {
            let extra = symbol < V2.valueTokens ? ResidualToken.extraBits(symbol) : symbol - V2.valueTokens
            bits += Int(counts[symbol]) * (Int(code.lengths[symbol]) + extra)
        }
        let (values, runs) = tokenCounts(code, withRuns: withRuns)
        return (code, bits + 4 * (values + runs) + 16)
    }

    /// A and B of the lengths table: one past the last used value and run token.
    private static func tokenCounts(_ code: HuffmanCode, withRuns: Bool) -> (values: Int, runs: Int) {
        let values = (code.lengths[0..<V2.valueTokens].lastIndex { $0 > 0 } ?? -1) + 1
        guard withRuns else { return (values, 0) }
        let runs = (code.lengths[V2.valueTokens...].lastIndex { $0 > 0 }.map { $0 - V2.valueTokens } ?? -1) + 1
        return (values, runs)
    }

    /// The code lengths as the format stores them: token counts, then nibbles.
    func writeLengths(to out: inout ByteWriter) {
        let (values, runCount) = Self.tokenCounts(code, withRuns: runs)
        out.varint(values)
        if runs { out.varint(runCount) }
        let all = Array(code.lengths[0..<values]) + Array(code.lengths[V2.valueTokens..<(V2.valueTokens + runCount)])
        var i = 0
        while i < all.count {
            out.u8(all[i] | (i + 1 < all.count ? all[i + 1] << 4 : 0))
            i += 2
        }
    }

    /// Sends value `u`: its token's code, then the token's extra bits (the runs
    /// stream's path; the plain streams inline the same steps).
    func put(_ u: UInt64, _ writer: inout ReferenceBitStreamWriter) {
        let s = send[ResidualToken.token(u)]
        let length = (s >> 32) & 0xFF, extra = s >> 40
        let extraBits = u & ((1 &<< extra) &- 1)
        writer.put(s & 0xFFFF_FFFF, Int(length))
        writer.putLong(extraBits, Int(extra))
    }

    /// Sends a run of `length` zero values (1...2^20 - 1).
    func putRun(_ length: Int, _ writer: inout ReferenceBitStreamWriter) {
        let j = ResidualToken.runToken(length)
        let s = send[V2.valueTokens + j]
        writer.put(s & 0xFFFF_FFFF, Int((s >> 32) & 0xFF))
        writer.put(UInt64(length) & ((1 << UInt64(j)) - 1), j)
    }
}

/// Writes a version 2 stream: bits from bit 0 of each byte upwards, into memory the
/// caller sized for the worst case. Whole 32-bit words are stored as they fill.
struct ReferenceBitStreamWriter {
    private var accumulator: UInt64 = 0
    /// Bits in `accumulator` not yet stored; below 32 between calls.
    private var pending = 0
    private var next: UnsafeMutablePointer<UInt8>
    let start: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        next = start
    }

    /// A writer that carries on from a loop that kept the buffer in locals.
    init(resuming next: UnsafeMutablePointer<UInt8>, _ accumulator: UInt64, _ pending: Int) {
        start = next
        self.next = next
        self.accumulator = accumulator
        self.pending = pending
    }

    /// Where the writer is: next byte, buffer, bits pending (below 32).
    var state: (UnsafeMutablePointer<UInt8>, UInt64, UInt64) { (next, accumulator, UInt64(pending)) }

    /// Appends the low `count` bits of `bits` (count ≤ 32; higher bits must be 0).
    @inline(__always)
    mutating func put(_ bits: UInt64, _ count: Int) {
        accumulator |= bits << UInt64(pending)
        pending += count
        if pending >= 32 {
            UnsafeMutableRawPointer(next).storeBytes(of: UInt32(truncatingIfNeeded: accumulator).littleEndian, as: UInt32.self)
            next += 4
            accumulator >>= 32
            pending -= 32
        }
    }

    /// Appends `count` bits (any count up to 64) of `bits`.
    mutating func putLong(_ bits: UInt64, _ count: Int) {
        var bits = bits, count = count
        while count > 32 {
            put(bits & 0xFFFF_FFFF, 32)
            bits >>= 32
            count -= 32
        }
        put(bits, count)
    }

    /// Stores what is pending (the last byte's unused high bits are 0) and returns the
    /// stream's length in bytes, counted from `origin`.
    mutating func finish(from origin: UnsafeMutablePointer<UInt8>) -> Int {
        _ = finish()
        return next - origin
    }

    /// Stores what is pending (the last byte's unused high bits are 0) and returns the
    /// stream's length in bytes.
    mutating func finish() -> Int {
        while pending > 0 {
            next.pointee = UInt8(truncatingIfNeeded: accumulator)
            next += 1
            accumulator >>= 8
            pending -= min(8, pending)
        }
        return next - start
    }
}

/// Today's code, sent as the reference sends its own: for tests that check today's C
/// writers against the reference's one-value-at-a-time puts.
extension CodePlan {
    /// Value `u`: its token's code, then the token's extra bits.
    func referencePut(_ u: UInt64, _ writer: inout ReferenceBitStreamWriter) {
        let s = sendTable[ResidualToken.token(u)]
        let length = (s >> 32) & 0xFF, extra = (s >> 40) & 0xFF
        writer.put(s & 0xFFFF_FFFF, Int(length))
        writer.putLong(u & ((1 &<< extra) &- 1), Int(extra))
    }

    /// A run of `length` zero values (1...2^20 - 1).
    func referencePutRun(_ length: Int, _ writer: inout ReferenceBitStreamWriter) {
        let j = ResidualToken.runToken(length)
        let s = sendTable[FormatConstants.ColumnV2.valueTokens + j]
        writer.put(s & 0xFFFF_FFFF, Int((s >> 32) & 0xFF))
        writer.put(UInt64(length) & ((1 << UInt64(j)) - 1), j)
    }

    /// The runs stream of `u` as the reference writes it: zeros found value by value.
    func referenceRunStream(_ u: [UInt64]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 10 * u.count + 16)
        let length = bytes.withUnsafeMutableBufferPointer { b in
            var writer = ReferenceBitStreamWriter(b.baseAddress!)
            var i = 0
            while i < u.count {
                guard u[i] == 0 else {
                    referencePut(u[i], &writer)
                    i += 1
                    continue
                }
                var end = i
                while end < u.count && u[end] == 0 { end += 1 }
                referencePutRun(end - i, &writer)
                i = end
            }
            return writer.finish()
        }
        return Array(bytes[..<length])
    }
}
