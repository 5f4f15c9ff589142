import CRouteLogSystem

/// Reads one version 2 column body (format-spec.md, "PointBlock", "Version 2"), trusting
/// nothing: every count is checked against the bytes before memory is set aside for it.
struct ColumnDecoderV2 {
    typealias V2 = FormatConstants.ColumnV2

    /// Room for one decode table of the longest code; reused by every column.
    let tableStorage: UnsafeMutablePointer<UInt64>
    /// The C loops that read the streams.
    let loops: DecodeLoops

    /// A decoded column: its values, and which points have one (nil: every point).
    struct Column {
        var values: Int64Column
        var presence: [UInt8]?
    }

    /// Decodes the body in `cursor.position..<end` of a column with `encoding`, for a
    /// block of `pointCount` points; leaves the cursor at `end`.
    func decode(_ cursor: inout BlockCursor, end: Int, encoding: UInt8, pointCount n: Int) throws -> Column {
        let order = Int(encoding & FormatConstants.columnOrderMask)
        let streamLog = Int((encoding & V2.streamMask) >> V2.streamShift)
        let runs = encoding & V2.zeroRuns != 0
        let bitmap = encoding & FormatConstants.columnHasBitmap != 0, presenceRuns = encoding & V2.presenceRuns != 0
        guard order <= 2, streamLog <= 2, encoding & 0x20 == 0, !(bitmap && presenceRuns), !(runs && streamLog > 0) else {
            throw cursor.fail("unknown column encoding \(encoding)")
        }
        var presence: [UInt8]?
        var m = n
        if bitmap { (presence, m) = try readBitmap(&cursor, n) }
        if presenceRuns { (presence, m) = try readPresenceRuns(&cursor, n) }
        var first: Int64 = 0, second: Int64 = 0
        if order >= 1 && m >= 1 { first = ResidualToken.unzigzag(try cursor.varint()) }
        if order == 2 && m >= 2 { second = first &+ ResidualToken.unzigzag(try cursor.varint()) }
        let k = m - order
        let values: Int64Column
        var integrated = false
        if k > 0 {
            let bias = ResidualToken.unzigzag(try cursor.varint())
            let divisorStart = cursor.position
            let rawDivisor = try cursor.varint()
            guard rawDivisor >= 1, rawDivisor <= UInt64(Int64.max) else {
                throw cursor.fail("divisor \(rawDivisor)", at: divisorStart)
            }
            let table = try readCode(&cursor, runs: runs)
            let streams = try readStreams(&cursor, end: end, count: 1 << streamLog)
            let decoder = StreamDecoder(table)
            do {
                // Memory for the values only once the streams could hold them: a bit a
                // value without runs. With runs a few bytes hold a million values in a
                // valid column too, so k (below n, at most 1,000,000) is allocated, and
                // the decode must end at exactly k; a counting pass first cost a second
                // read of every run column.
                if !runs {
                    for (s, stream) in streams.enumerated() where (k - s + streams.count - 1) / streams.count > stream.bitsLeft {
                        throw cursor.fail("stream \(s) holds \(stream.bitsLeft / 8) bytes, fewer than a bit for each of its values")
                    }
                }
                values = Int64Column(capacity: m)
                let residuals = ResidualSink(base: values.base + order, bias: bias, divisor: Int64(rawDivisor))
                if runs {
                    switch order {
                    case 0: try Self.decodeRuns(streams[0], k, decoder, loops.runStream, residuals, NoSums(), cursor)
                    case 1:
                        try Self.decodeRuns(streams[0], k, decoder, loops.runStream, residuals, FirstSums(value: first),
                                            cursor)
                    default:
                        try Self.decodeRuns(streams[0], k, decoder, loops.runStream, residuals,
                                            SecondSums(value: second, delta: second &- first), cursor)
                    }
                    integrated = true
                } else {
                    switch order {
                    case 0: integrated = try Self.decodeValues(streams, k, decoder, loops.fourStreams, residuals, NoSums(), cursor)
                    case 1:
                        integrated = try Self.decodeValues(streams, k, decoder, loops.fourStreams, residuals,
                                                           FirstSums(value: first), cursor)
                    default:
                        integrated = try Self.decodeValues(streams, k, decoder, loops.fourStreams, residuals,
                                                           SecondSums(value: second, delta: second &- first), cursor)
                    }
                }
            } catch let error as StreamError {
                throw cursor.fail(error.reason)
            }
        } else {
            guard cursor.position == end else {
                throw cursor.fail("a column without residuals has \(end - cursor.position) more bytes")
            }
            values = Int64Column(capacity: m)
        }
        if order >= 1 && m >= 1 { values.base[0] = first }
        if order == 2 && m >= 2 { values.base[1] = second }
        values.count = m
        if !integrated { Self.integrate(values, order: order) }
        cursor.position = end
        return Column(values: values, presence: presence)
    }

    private func readBitmap(_ cursor: inout BlockCursor, _ n: Int) throws -> ([UInt8], Int) {
        let length = (n + 7) / 8
        let start = cursor.position
        try cursor.skip(length)
        let bits = Array(UnsafeBufferPointer(start: cursor.base + start, count: length))
        guard n % 8 == 0 || bits[length - 1] >> UInt8(n % 8) == 0 else {
            throw cursor.fail("the presence bitmap marks points past the end", at: start)
        }
        return (bits, bits.reduce(0) { $0 + $1.nonzeroBitCount })
    }

    private func readPresenceRuns(_ cursor: inout BlockCursor, _ n: Int) throws -> ([UInt8], Int) {
        let count = try cursor.count(max: n + 1, "presence run count")
        var bits = [UInt8](repeating: 0, count: (n + 7) / 8)
        var point = 0, present = 0
        for r in 0..<count {
            let length = try cursor.count(max: n - point, "presence run")
            guard length > 0 || r == 0 else { throw cursor.fail("an empty presence run") }
            if r % 2 == 0 {
                for i in point..<(point + length) { bits[i >> 3] |= 1 << UInt8(i & 7) }
                present += length
            }
            point += length
        }
        guard point == n else { throw cursor.fail("presence runs cover \(point) of \(n) points") }
        return (bits, present)
    }

    /// The code lengths, checked, and the table to decode with.
    private func readCode(_ cursor: inout BlockCursor, runs: Bool) throws -> HuffmanDecodeTable {
        let start = cursor.position
        let valueCount = try cursor.count(max: V2.valueTokens, "value token count")
        let runCount = runs ? try cursor.count(max: V2.runTokens, "run token count") : 0
        let nibbles = valueCount + runCount
        let packed = cursor.position
        try cursor.skip((nibbles + 1) / 2)
        var code = HuffmanCode()
        code.valueTokensListed = valueCount
        code.runTokensListed = runCount
        for i in 0..<nibbles {
            let length = (cursor.base[packed + i / 2] >> (i % 2 == 0 ? 0 : 4)) & 0x0F
            code.lengths[i < valueCount ? i : V2.valueTokens + i - valueCount] = length
        }
        if nibbles % 2 == 1, cursor.base[packed + nibbles / 2] >> 4 != 0 {
            throw cursor.fail("the code lengths' unused nibble is not 0", at: packed + nibbles / 2)
        }
        if let problem = code.problem() { throw cursor.fail("the column's code is invalid: \(problem)", at: start) }
        return HuffmanDecodeTable(code, storage: tableStorage)
    }

    private func readStreams(_ cursor: inout BlockCursor, end: Int, count: Int) throws -> [StreamCursor] {
        guard end <= cursor.end else { throw cursor.fail("the column runs past the block") }
        var lengths: [Int] = []
        for _ in 0..<(count - 1) { lengths.append(try cursor.count(max: max(0, end - cursor.position), "stream length")) }
        let total = lengths.reduce(0, +)
        guard total <= end - cursor.position else { throw cursor.fail("stream lengths pass the column's end") }
        lengths.append(end - cursor.position - total)
        var start = cursor.position
        return lengths.map { length in
            defer { start += length }
            return StreamCursor(cursor.base, offset: start, length: length)
        }
    }
}

/// The shapes of the C loops (residual_streams.c).
typealias FourStreamLoop = @convention(c) (UnsafeMutablePointer<routelog_four_streams>?, UnsafeMutablePointer<Int64>?, Int) -> Int
typealias RunStreamLoop = @convention(c) (UnsafeMutablePointer<routelog_run_stream>?, UnsafeMutablePointer<Int64>?, Int) -> Int

/// The C loops a decoder reads streams with: the processor's best, or the portable ones
/// (which the tests compare with them).
struct DecodeLoops: Sendable {
    let fourStreams: FourStreamLoop
    let runStream: RunStreamLoop

    static let processor = DecodeLoops(fourStreams: routelog_decode_four_streams, runStream: routelog_decode_run_stream)
    static let portable = DecodeLoops(fourStreams: routelog_decode_four_streams_portable,
                                      runStream: routelog_decode_run_stream_portable)
}

/// Where decoded residuals go: r = bias + divisor × unzigzag(u), wrapping.
struct ResidualSink {
    let base: UnsafeMutablePointer<Int64>
    let bias: Int64
    let divisor: Int64

    @inline(__always)
    func residual(_ u: UInt64) -> Int64 { bias &+ ResidualToken.unzigzag(u) &* divisor }

    @inline(__always)
    func store(_ u: UInt64, at i: Int) { base[i] = residual(u) }
}
