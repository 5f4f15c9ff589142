/// The hot loops of the version 2 decoder, kept apart from the parsing around them.
extension ColumnDecoderV2 {
    /// Residuals spread over 1, 2 or 4 streams (residual i in stream i mod count).
    static func decodeValues(_ streams: [StreamCursor], _ k: Int, _ decoder: StreamDecoder,
                             _ sink: ResidualSink, _ cursor: BlockCursor) throws {
        if streams.count == 4 {
            // Four streams as four bit positions in registers (one shared pointer): their
            // reads are independent, so the CPU overlaps four table lookups instead of
            // waiting on one at a time.
            let bytes = streams[0].bytes
            var p0 = streams[0].position, p1 = streams[1].position, p2 = streams[2].position, p3 = streams[3].position
            let l0 = streams[0].limit, l1 = streams[1].limit, l2 = streams[2].limit, l3 = streams[3].limit
            var i = 0
            while i + 4 <= k {
                let u0 = try decoder.value(bytes, &p0, l0), u1 = try decoder.value(bytes, &p1, l1)
                let u2 = try decoder.value(bytes, &p2, l2), u3 = try decoder.value(bytes, &p3, l3)
                sink.store(u0, at: i)
                sink.store(u1, at: i + 1)
                sink.store(u2, at: i + 2)
                sink.store(u3, at: i + 3)
                i += 4
            }
            if i < k { sink.store(try decoder.value(bytes, &p0, l0), at: i) }
            if i + 1 < k { sink.store(try decoder.value(bytes, &p1, l1), at: i + 1) }
            if i + 2 < k { sink.store(try decoder.value(bytes, &p2, l2), at: i + 2) }
            try checkEnds([StreamCursor(bytes, position: p0, limit: l0), StreamCursor(bytes, position: p1, limit: l1),
                           StreamCursor(bytes, position: p2, limit: l2), StreamCursor(bytes, position: p3, limit: l3)], cursor)
        } else {
            var cursors = streams
            for i in 0..<k { sink.store(try decoder.value(&cursors[i % cursors.count]), at: i) }
            try checkEnds(cursors, cursor)
        }
    }

    /// When the runs of a stream could stand for more residuals than it has bits, a
    /// counting pass (one step a token, at most a token a bit) shows that they make
    /// exactly k before k values are allocated.
    static func countRuns(_ stream: StreamCursor, _ k: Int, _ decoder: StreamDecoder, _ cursor: BlockCursor) throws {
        guard k > stream.limit else { return }
        var counting = stream, produced = 0
        while produced < k {
            let (_, run) = try decoder.valueOrRun(&counting)
            produced += max(1, run)
        }
        guard produced == k else { throw cursor.fail("a run passes the column's last value") }
    }

    /// One stream with zero runs.
    static func decodeRuns(_ stream: StreamCursor, _ k: Int, _ decoder: StreamDecoder,
                           _ sink: ResidualSink, _ cursor: BlockCursor) throws {
        var c = stream, i = 0
        while i < k {
            let (u, run) = try decoder.valueOrRun(&c)
            if run == 0 {
                sink.store(u, at: i)
                i += 1
                continue
            }
            guard run <= k - i else { throw cursor.fail("a run passes the column's last value") }
            // A run of u = 0 is a run of residuals equal to the bias.
            (sink.base + i).update(repeating: sink.bias, count: run)
            i += run
        }
        try checkEnds([c], cursor)
    }

    private static func checkEnds(_ streams: [StreamCursor], _ cursor: BlockCursor) throws {
        for (s, stream) in streams.enumerated() {
            if let problem = stream.checkEnd() { throw cursor.fail("stream \(s): \(problem)") }
        }
    }

    /// Turns residuals back into values in place: running sums, once per order.
    static func integrate(_ column: Int64Column, order: Int) {
        let v = column.base, m = column.count
        switch order {
        case 1:
            guard m > 1 else { return }
            for j in 1..<m { v[j] = v[j - 1] &+ v[j] }
        case 2:
            guard m > 2 else { return }
            var delta = v[1] &- v[0]
            for j in 2..<m {
                delta = delta &+ v[j]
                v[j] = v[j - 1] &+ delta
            }
        default:
            break
        }
    }
}
