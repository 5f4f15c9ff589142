/// Which segments one compaction rewrites (docs/recovery-and-compaction.md,
/// "Compaction"): a segment is rewritten only when the bytes it would give back are at
/// least a set fraction of its records; the others are left as they are, and the
/// report says why. Decided under the writer lock, from the in-memory index alone.
struct CompactionPlan {
    /// Runs of consecutive live segments (in manifest order) to rewrite; each run is
    /// replaced by new segments at its place, so the replay order never changes.
    var runs: [[UInt32]] = []
    var skipped: [CompactionReport.SkippedSegment] = []
    /// Whether the active segment is rewritten (the writer rolls first).
    var includesActive = false

    var rewritten: Set<UInt32> { Set(runs.joined()) }
    var isEmpty: Bool { runs.isEmpty }

    /// - Parameters:
    ///   - threshold: the least fraction of a segment's record bytes that rewriting
    ///     must give back.
    ///   - damaged: segments holding a live record that did not read back; kept as found.
    init(index: RouteIndex, segments: SegmentSet, threshold: Double, damaged: Set<UInt32>) {
        let chunked = Self.chunkedBytes(index)
        var run: [UInt32] = []
        for (position, segment) in segments.segments.enumerated() {
            let live = index.liveBytes[segment.number] ?? 0
            let dead = max(0, segment.recordBytes - live)
            // A finished recording's start and chunks become dead once merged into one record.
            let reclaimable = dead + (chunked[segment.number] ?? 0)
            let isActive = position == segments.segments.count - 1
            let name = FormatConstants.segmentName(segment.number)
            var reason: String?
            if damaged.contains(segment.number) {
                reason = "it holds a damaged record, kept as found (verify names it)"
            } else if reclaimable == 0 {
                reason = "nothing in it is dead"
            } else if Double(reclaimable) < threshold * Double(segment.recordBytes) {
                let percent = Int((100 * Double(reclaimable) / Double(max(1, segment.recordBytes))).rounded())
                reason = "only \(percent)% of it is dead, below the \(Int((threshold * 100).rounded()))% that pays for a rewrite"
            }
            if let reason {
                if !isActive || reclaimable > 0 {
                    skipped.append(.init(name: name, deadBytes: reclaimable, reason: reason))
                }
                if !run.isEmpty { runs.append(run) }
                run = []
            } else {
                run.append(segment.number)
                if isActive { includesActive = true }
            }
        }
        if !run.isEmpty { runs.append(run) }
    }

    /// Per segment, the bytes of finished recordings' starts and chunks.
    private static func chunkedBytes(_ index: RouteIndex) -> [UInt32: Int64] {
        var bytes: [UInt32: Int64] = [:]
        for route in index.routes.values {
            guard let recording = route.recorded else { continue }
            for part in recording.locations { bytes[part.segment, default: 0] += Int64(part.length) }
        }
        return bytes
    }
}
