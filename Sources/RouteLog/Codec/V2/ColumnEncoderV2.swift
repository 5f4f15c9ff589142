import CRouteLogSystem

/// Writes one version 2 column (format-spec.md, "PointBlock", "Version 2"): start
/// values, residuals as canonical Huffman tokens with extra bits, in one stream or four.
struct ColumnEncoderV2 {
    typealias V2 = FormatConstants.ColumnV2

    /// Scratch memory for the residuals and streams of the largest column of a block,
    /// reused by every column.
    private let residuals: UnsafeMutablePointer<UInt64>
    private let streamBytes: UnsafeMutablePointer<UInt8>
    /// Four token histograms, filled in turn, summed into the first (`routelog_tokenize_residuals`).
    private let counts: UnsafeMutablePointer<UInt32>
    /// Each residual's token, so that writing does not work it out again.
    private let tokenBytes: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Worst case of a stream region: a code of 11 bits and 61 extra bits a value, and
    /// the 8 bytes past its end that the stream writers (`routelog_write_residual_streams`
    /// and `routelog_write_run_stream`) may store into.
    private static let bytesPerValue = 10

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        residuals = ScratchMemory.take(UInt64.self, count: self.capacity)
        streamBytes = ScratchMemory.take(UInt8.self, count: Self.streamCapacity(self.capacity))
        counts = ScratchMemory.take(UInt32.self, count: 4 * V2.valueTokens)
        tokenBytes = ScratchMemory.take(UInt8.self, count: self.capacity)
    }

    func deallocate() {
        ScratchMemory.give(residuals, count: capacity)
        ScratchMemory.give(streamBytes, count: Self.streamCapacity(capacity))
        ScratchMemory.give(counts, count: 4 * V2.valueTokens)
        ScratchMemory.give(tokenBytes, count: capacity)
    }

    private static func streamCapacity(_ capacity: Int) -> Int { bytesPerValue * capacity + 128 }

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
        var streams = Streams()
        if k > 0 {
            if !computeResiduals(values, &model) {
                model.divisor = 1
                _ = computeResiduals(values, &model)
            }
            header.varint(ResidualToken.zigzag(model.bias))
            header.varint(UInt64(model.divisor))
            let plan = CodePlan(tokens: UnsafeBufferPointer(start: tokenBytes, count: k),
                                tokenCounts: UnsafeBufferPointer(start: counts, count: V2.valueTokens))
            encoding |= plan.runs ? V2.zeroRuns : 0
            let streamCount = !plan.runs && k >= 256 ? 4 : 1
            encoding |= UInt8(streamCount.trailingZeroBitCount) << V2.streamShift
            plan.writeLengths(to: &header)
            streams = plan.runs ? writeRuns(k, plan) : writeStreams(k, streamCount, plan)
            for s in 0..<max(0, streams.count - 1) { header.varint(streams.length(s)) }  // all but the last
        }
        out.u8(tag.rawValue)
        out.u8(encoding)
        out.varint(header.count + streams.total)
        out.append(contentsOf: header.bytes)
        for s in 0..<streams.count {
            out.append(contentsOf: UnsafeBufferPointer(start: streamBytes + s * streams.region, count: streams.length(s)))
        }
    }

    /// u = zigzag((r - bias) / divisor) for every residual, into `residuals`, with its
    /// token counted into `counts`; false when some residual is not a multiple of the
    /// divisor (the samples missed it).
    ///
    /// One pass, in C (`routelog_tokenize_differences`): the differences, four at a time
    /// from overlapping loads, and the token, which needs the place of the top bit (one
    /// instruction where the processor has LZCNT, four values at a time with AVX2).
    /// Written to `residuals` by a Swift loop first, they took a pass of their own and
    /// were read back.
    private func computeResiduals(_ v: UnsafeBufferPointer<Int64>, _ model: inout ResidualModel) -> Bool {
        let order = model.order, k = v.count - order
        guard k > 0, let start = v.baseAddress else { return true }
        precondition((0...2).contains(order), "the format has orders 0, 1 and 2")
        guard model.divisor != 1 else {
            return routelog_tokenize_differences(start, Int32(order), model.bias, k, nil, residuals, tokenBytes, counts) == 1
        }
        var division = ExactDivision(model.divisor).spec
        return routelog_tokenize_differences(start, Int32(order), model.bias, k, &division, residuals, tokenBytes, counts) == 1
    }

    /// Where a column's streams were written in the scratch: `count` of them (0 to 4),
    /// stream s from s × `region` with `lengths`' element s of bytes. Shaped for speed: a
    /// value with no arrays, where the arrays of the streams' starts, lengths and places
    /// took three allocations a column (callgrind, a buffered save of a 3,600-point walk:
    /// 11,500 instructions in writeStreams around the C writer).
    struct Streams {
        var count = 0, region = 0
        var lengths: (Int, Int, Int, Int) = (0, 0, 0, 0)

        func length(_ s: Int) -> Int {
            precondition(s >= 0 && s < count)
            return withUnsafeBytes(of: lengths) { $0.load(fromByteOffset: s * MemoryLayout<Int>.stride, as: Int.self) }
        }

        var total: Int { lengths.0 + lengths.1 + lengths.2 + lengths.3 }
    }

    /// Residual i into stream i mod `count`, each stream in its own region of the scratch
    /// (`routelog_write_residual_streams`, C: four streams side by side in the lanes of
    /// vectors with AVX2, else one stream after another, each in groups of as many values
    /// as surely fit a 64-bit buffer, stored once a group; one table load gives a token's
    /// code, length and extra-bit count, and code and extra bits go in together).
    private func writeStreams(_ k: Int, _ count: Int, _ plan: CodePlan) -> Streams {
        precondition(count == 1 || count == 2 || count == 4, "the format has 1, 2 or 4 streams")
        var streams = Streams(count: count, region: Self.bytesPerValue * (k / count + 1) + 8)
        let region = streams.region
        func start(_ s: Int) -> UnsafeMutablePointer<UInt8>? { s < count ? streamBytes + s * region : nil }
        var starts = (start(0), start(1), start(2), start(3))
        withUnsafeMutableBytes(of: &starts) { out in
            withUnsafeMutableBytes(of: &streams.lengths) { lengths in
                routelog_write_residual_streams(residuals, tokenBytes, k, count, plan.sendTable, plan.extraMaskTable,
                                                UInt32(plan.longestValue),
                                                out.baseAddress!.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                                lengths.baseAddress!.assumingMemoryBound(to: Int.self))
            }
        }
        return streams
    }

    /// One stream with zero runs: each run of u = 0 is one run token
    /// (`routelog_write_run_stream`, C: the runs come from the masks of zeros that counted them).
    private func writeRuns(_ k: Int, _ plan: CodePlan) -> Streams {
        let length = routelog_write_run_stream(residuals, tokenBytes, k, plan.sendTable, plan.extraMaskTable, streamBytes)
        return Streams(count: 1, region: 0, lengths: (length, 0, 0, 0))
    }
}
