import CRouteLogSystem

/// The hot loops of the version 2 decoder, kept apart from the parsing around them.
extension ColumnDecoderV2 {
    /// Residuals spread over 1, 2 or 4 streams (residual i in stream i mod count).
    /// Four streams are turned into values as they are decoded (running sums from the
    /// column's start values, `sums`), which saves a pass over the column; returns
    /// whether it did so (else the caller integrates).
    static func decodeValues<Sums: RunningSums>(_ streams: [StreamCursor], _ k: Int, _ decoder: StreamDecoder,
                                                _ loop: FourStreamLoop, _ sink: ResidualSink, _ sums: Sums,
                                                _ cursor: BlockCursor) throws -> Bool {
        guard streams.count == 4 else {
            var cursors = streams
            for i in 0..<k { sink.store(try decoder.value(&cursors[i % cursors.count]), at: i) }
            try checkEnds(cursors, cursor)
            return false
        }
        // The fast loop, whose outcome is the checked loop's whenever no read began at
        // or past its stream's end; otherwise (a damaged block) the checked loop runs
        // again from the start and gives its own error.
        let limits = (streams[0].limit, streams[1].limit, streams[2].limit, streams[3].limit)
        var ends: (Int, Int, Int, Int)
        if let fast = try? decodeFourInsideCopy(streams, k, decoder, loop, sink, sums, cursor),
           fast.0 <= limits.0, fast.1 <= limits.1, fast.2 <= limits.2, fast.3 <= limits.3 {
            ends = fast
        } else {
            var sums = sums
            ends = (streams[0].position, streams[1].position, streams[2].position, streams[3].position)
            try decodeFourChecked(streams[0].bytes, &ends, limits, from: 0, k, decoder, sink, &sums)
        }
        let bytes = streams[0].bytes
        try checkEnds([StreamCursor(bytes, position: ends.0, limit: limits.0), StreamCursor(bytes, position: ends.1, limit: limits.1),
                       StreamCursor(bytes, position: ends.2, limit: limits.2), StreamCursor(bytes, position: ends.3, limit: limits.3)],
                      cursor)
        return true
    }

    /// Values `first..<k` from four streams at `positions` (residual i in stream i mod
    /// 4), each read checked against its stream's end. Four bit positions in registers,
    /// one shared pointer: their reads are independent, so the CPU overlaps four table
    /// lookups instead of waiting on one at a time. The running sums are a chain of
    /// their own beside them.
    @inline(__always)
    private static func decodeFourChecked<Sums: RunningSums>(
        _ bytes: UnsafePointer<UInt8>, _ positions: inout (Int, Int, Int, Int), _ limits: (Int, Int, Int, Int),
        from first: Int, _ k: Int, _ decoder: StreamDecoder, _ sink: ResidualSink, _ sums: inout Sums
    ) throws {
        let out = sink.base
        var (p0, p1, p2, p3) = positions
        defer { positions = (p0, p1, p2, p3) }
        let (l0, l1, l2, l3) = limits
        var i = first
        while i + 4 <= k {
            let u0 = try decoder.value(bytes, &p0, l0), u1 = try decoder.value(bytes, &p1, l1)
            let u2 = try decoder.value(bytes, &p2, l2), u3 = try decoder.value(bytes, &p3, l3)
            out[i] = sums.next(sink.residual(u0))
            out[i + 1] = sums.next(sink.residual(u1))
            out[i + 2] = sums.next(sink.residual(u2))
            out[i + 3] = sums.next(sink.residual(u3))
            i += 4
        }
        if i < k { out[i] = sums.next(sink.residual(try decoder.value(bytes, &p0, l0))) }
        if i + 1 < k { out[i + 1] = sums.next(sink.residual(try decoder.value(bytes, &p1, l1))) }
        if i + 2 < k { out[i + 2] = sums.next(sink.residual(try decoder.value(bytes, &p2, l2))) }
    }

    /// The four-stream loop with a check of the four positions every few groups of four
    /// values instead of before every read (`routelog_decode_four_streams`, in C: the
    /// loop every value of a long column goes through, kept in registers, with
    /// one-instruction shifts where the processor has them). While each position is far
    /// enough from the copy's end that a batch of groups (at most 72 bits a value) cannot
    /// take an 8-byte window past it, the reads go unchecked. Near the end, for the last
    /// values, and from a value the table marks slow, each read is checked as in the
    /// plain loop. Returns the four end positions; a position past its stream's end means
    /// that some read began there, and the caller decodes again the checked way.
    private static func decodeFourInsideCopy<Sums: RunningSums>(
        _ streams: [StreamCursor], _ k: Int, _ decoder: StreamDecoder, _ loop: FourStreamLoop, _ sink: ResidualSink,
        _ sums: Sums, _ cursor: BlockCursor
    ) throws -> (Int, Int, Int, Int) {
        // The copy holds the column's bytes and at least `padding` more: a read that
        // begins at bit `reach + 72 × groups` or before stays inside it.
        let groups = Int(ROUTELOG_FOUR_STREAM_GROUPS_PER_CHECK)
        let reach = (cursor.end + BlockCursor.padding - 8) * 8 - StreamDecoder.longestValueBits * groups
        var state = routelog_four_streams(
            bytes: streams[0].bytes,
            positions: (Int64(streams[0].position), Int64(streams[1].position),
                        Int64(streams[2].position), Int64(streams[3].position)),
            reach: Int64(reach), entries: decoder.entries, mask: decoder.mask, bias: sink.bias,
            divisor: sink.divisor, order: Sums.order, value: sums.state.value, delta: sums.state.delta)
        let done = loop(&state, sink.base, k)
        var rest = Sums(value: state.value, delta: state.delta)
        var positions = (Int(state.positions.0), Int(state.positions.1), Int(state.positions.2), Int(state.positions.3))
        try decodeFourChecked(streams[0].bytes, &positions,
                              (streams[0].limit, streams[1].limit, streams[2].limit, streams[3].limit),
                              from: done, k, decoder, sink, &rest)
        return positions
    }

    /// One stream with zero runs: `loop` (C) reads what it can take whole; where it
    /// stops (a value too large for a table entry, or a damaged stream), this loop,
    /// which checks every token, reads one token, and `loop` goes on after it. Both make
    /// the column's values as they go (running sums from `sums`), so that the column
    /// needs no pass of sums after.
    static func decodeRuns<Sums: RunningSums>(_ stream: StreamCursor, _ k: Int, _ decoder: StreamDecoder,
                                              _ loop: RunStreamLoop, _ sink: ResidualSink, _ sums: Sums,
                                              _ cursor: BlockCursor) throws {
        var state = routelog_run_stream(bytes: stream.bytes, position: Int64(stream.position), limit: Int64(stream.limit),
                                        entries: decoder.entries, mask: decoder.mask, bias: sink.bias,
                                        divisor: sink.divisor, order: Sums.order, value: sums.state.value,
                                        delta: sums.state.delta)
        var c = stream, i = 0
        while true {
            state.position = Int64(c.position)
            i += loop(&state, sink.base + i, k - i)
            c.position = Int(state.position)
            guard i < k else { break }
            var sums = Sums(value: state.value, delta: state.delta)
            defer { (state.value, state.delta) = sums.state }
            let (u, run) = try decoder.valueOrRun(&c)
            if run == 0 {
                sink.base[i] = sums.next(sink.residual(u))
                i += 1
                continue
            }
            guard run <= k - i else { throw cursor.fail("a run passes the column's last value") }
            // A run of u = 0 is a run of residuals equal to the bias.
            for j in i..<(i + run) { sink.base[j] = sums.next(sink.bias) }
            i += run
        }
        try checkEnds([c], cursor)
    }

    private static func checkEnds(_ streams: [StreamCursor], _ cursor: BlockCursor) throws {
        for (s, stream) in streams.enumerated() {
            if let problem = stream.checkEnd() { throw cursor.fail("stream \(s): \(problem)") }
        }
    }

    /// Turns residuals back into values in place: running sums, once per order
    /// (``routelog_running_sums``, four values at a time where the processor can: one
    /// sum at a time, each addition waits on the last).
    static func integrate(_ column: Int64Column, order: Int) {
        guard order == 1 || order == 2 else { return }
        routelog_running_sums(column.base, column.count, Int32(order))
    }
}

/// Values from residuals as they come, for one column order: the value itself (order
/// 0), or running sums once (1) or twice (2) from the column's start values. One type
/// per order, so that each decode loop is made for its order with no branch inside.
/// `value` and `delta` (the last value and first difference) pass the sums to the C loop
/// and back.
protocol RunningSums {
    static var order: Int32 { get }
    var state: (value: Int64, delta: Int64) { get }
    init(value: Int64, delta: Int64)
    mutating func next(_ residual: Int64) -> Int64
}

/// Order 0: a residual is the value.
struct NoSums: RunningSums {
    static let order: Int32 = 0
    var state: (value: Int64, delta: Int64) { (0, 0) }
    init() {}
    init(value: Int64, delta: Int64) {}
    @inline(__always) func next(_ residual: Int64) -> Int64 { residual }
}

/// Order 1: each value is the previous one plus its residual.
struct FirstSums: RunningSums {
    static let order: Int32 = 1
    var value: Int64
    var state: (value: Int64, delta: Int64) { (value, 0) }
    init(value: Int64) { self.value = value }
    init(value: Int64, delta: Int64) { self.value = value }
    @inline(__always) mutating func next(_ residual: Int64) -> Int64 {
        value &+= residual
        return value
    }
}

/// Order 2: each first difference is the previous one plus the residual.
struct SecondSums: RunningSums {
    static let order: Int32 = 2
    var value: Int64, delta: Int64
    var state: (value: Int64, delta: Int64) { (value, delta) }
    @inline(__always) mutating func next(_ residual: Int64) -> Int64 {
        delta &+= residual
        value &+= delta
        return value
    }
}
