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
    ///   - damaged: segments holding a live record that did not read back, or a record
    ///     the index does not account for; kept as found.
    init(index: RouteIndex, segments: SegmentSet, threshold: Double, damaged: Set<UInt32>) {
        var reclaimable: [UInt32: Int64] = [:]
        let chunked = Self.chunkedBytes(index)
        for segment in segments.segments {
            let live = index.liveBytes[segment.number] ?? 0
            // A finished recording's start and chunks become dead once merged into one record.
            reclaimable[segment.number] = max(0, segment.recordBytes - live) + (chunked[segment.number] ?? 0)
        }
        func pays(_ segment: LogSegment) -> Bool {
            let bytes = reclaimable[segment.number] ?? 0
            return !damaged.contains(segment.number) && bytes > 0 && Double(bytes) >= threshold * Double(segment.recordBytes)
        }
        // A tombstone is dropped with the segment of the record that made its id, so its
        // other records die with that rewrite wherever they are. Counting them here lets
        // one compaction take what it frees itself, instead of leaving dead bytes that
        // only the next one reclaims. Selection only grows, so the worklist ends.
        let released = Self.tombstoneBytes(index)
        var selected = Set(segments.segments.filter(pays).map(\.number))
        var pending = Array(selected)
        while let number = pending.popLast() {
            for (target, bytes) in released[number] ?? [] where !selected.contains(target) {
                reclaimable[target, default: 0] += bytes
                if let segment = segments.segment(target), pays(segment) {
                    selected.insert(target)
                    pending.append(target)
                }
            }
        }

        // A finished recording becomes one RoutePut only when every segment holding one
        // of its records is rewritten (CompactionCopy merges it then, else copies it as
        // it is): once one of them is selected, the others come too, unless damaged.
        let recorded = index.routes.recordedRoutes
        var grew = true
        while grew {
            grew = false
            for (_, route) in recorded {
                guard let recording = route.recorded else { continue }
                let parts = Set(recording.locations.map(\.segment) + [route.location.segment])
                guard !parts.isSubset(of: selected), !parts.isDisjoint(with: selected),
                      parts.isDisjoint(with: damaged), parts.allSatisfy({ segments.segment($0) != nil }) else { continue }
                selected.formUnion(parts)
                grew = true
            }
        }

        var run: [UInt32] = []
        for (position, segment) in segments.segments.enumerated() {
            let isActive = position == segments.segments.count - 1
            if selected.contains(segment.number) {
                run.append(segment.number)
                if isActive { includesActive = true }
                continue
            }
            let bytes = reclaimable[segment.number] ?? 0
            if !isActive || bytes > 0 {
                skipped.append(.init(name: FormatConstants.segmentName(segment.number), deadBytes: bytes,
                                     reason: Self.reason(segment, reclaimable: bytes, threshold: threshold, damaged: damaged)))
            }
            if !run.isEmpty { runs.append(run) }
            run = []
        }
        if !run.isEmpty { runs.append(run) }
    }

    private static func reason(_ segment: LogSegment, reclaimable: Int64, threshold: Double, damaged: Set<UInt32>) -> String {
        if damaged.contains(segment.number) {
            return "it holds a damaged record, or one the index does not account for, kept as found (verify names it)"
        }
        if reclaimable == 0 { return "nothing in it is dead" }
        let percent = Int((100 * Double(reclaimable) / Double(max(1, segment.recordBytes))).rounded())
        return "only \(percent)% of it is dead, below the \(Int((threshold * 100).rounded()))% that pays for a rewrite"
    }

    /// Per segment, the bytes of finished recordings' starts and chunks.
    private static func chunkedBytes(_ index: RouteIndex) -> [UInt32: Int64] {
        var bytes: [UInt32: Int64] = [:]
        for (_, route) in index.routes.recordedRoutes {
            guard let recording = route.recorded else { continue }
            for part in recording.locations { bytes[part.segment, default: 0] += Int64(part.length) }
        }
        return bytes
    }

    /// Per segment holding a tombstone's creator, where that tombstone's other records
    /// are (segment and bytes): they die when the creator's segment is rewritten.
    private static func tombstoneBytes(_ index: RouteIndex) -> [UInt32: [(segment: UInt32, bytes: Int64)]] {
        var bytes: [UInt32: [(segment: UInt32, bytes: Int64)]] = [:]
        for tombstone in index.tombstones.values {
            for location in tombstone.liveLocations where location.segment != tombstone.creator.segment {
                bytes[tombstone.creator.segment, default: []].append((location.segment, Int64(location.length)))
            }
        }
        return bytes
    }
}
