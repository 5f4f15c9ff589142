import Foundation

/// One compaction, start to end (docs/recovery-and-compaction.md, "Compaction"):
/// plan under the writer lock; check and copy the live records outside every lock
/// while saves go on; write the new index; switch under the writer lock (the manifest
/// commit is the atomic step); remove the old files. A failure or a close() before the
/// switch removes only the files this compaction made; after it, only the files the
/// new manifest no longer lists.
struct Compactor {
    let store: RouteStore
    let threshold: Double

    /// What the switch needs from the copy.
    private struct Prepared {
        var plan: CompactionPlan
        var output: CompactionOutput
        var index: DurableFile?
        var indexNumber: UInt32 = 0
        var indexEvents: [LogEvent] = []
        var indexEnd = Int64(FormatConstants.fileHeaderSize)
        /// Records of the new index outside runs.
        var indexSingleRecords = 0
        var recordsMoved = 0
    }

    func run() throws -> (CompactionReport, damaged: Set<UInt32>) {
        let started = Date()
        let bytesBefore = try store.state.withLock { try $0.checkOpen(); return $0.segments.totalBytes + $0.indexBytes }
        // 1. Plan, and seal the active segment if it is to be rewritten.
        let (snapshot, segments, plan0, tailStart, lostIDs) = try store.withWriter { w in
            try w.checkWritable()
            let index = store.state.withLock { $0.index }
            let plan = CompactionPlan(index: index, segments: w.log.segments, threshold: threshold, damaged: [])
            if plan.includesActive { try w.roll() }
            // The new index is synced: buffered saves it covers are synced first.
            try w.syncBufferedSaves()
            let active = w.log.active
            return (index, w.log.segments, plan, (active.number, active.end), w.manifest.current.settings.lostIDs)
        }
        var copy = CompactionCopy(index: snapshot, segments: segments, rewritten: plan0.rewritten, lostIDs: lostIDs)
        // 2. Check every record to copy, and that every route the rewritten segments make
        //    is one the index knows; a segment failing either is kept as found.
        var check = copy.checkRewritten()
        // A store whose manifest notes lost ids noted the damage an open found since; in
        // one without, damage is looked for before records with no trace are dropped.
        if lostIDs == nil, !check.damage.isEmpty {
            // Damage no manifest noted (left by a RouteLog that did not note it), found
            // here: noted before it leaves the segments for lost/ (or stays in a segment
            // kept as found, which an open with a whole index does not read), with the
            // ids of every record with no trace, which it may have left without a witness.
            try noteLostIDs(copy.untracedIDs())
        } else if lostIDs == nil, !check.orphansDropped.subtracting(check.unaccounted).isEmpty,
                  damageOutside(plan0.rewritten, segments: segments) {
            check.unaccounted.formUnion(check.orphansDropped)
            try noteLostIDs(copy.untracedIDs())
        }
        let damaged = copy.damagedSegments(copy.items()).union(check.unaccounted)
        var plan = plan0
        if !damaged.isEmpty {
            plan = CompactionPlan(index: snapshot, segments: segments, threshold: threshold, damaged: damaged)
            copy = CompactionCopy(index: snapshot, segments: segments, rewritten: plan.rewritten, lostIDs: lostIDs)
        }
        var report = CompactionReport(bytesBefore: bytesBefore, bytesAfter: bytesBefore, recordsMoved: 0,
                                      segmentsCompacted: 0, segmentsSkipped: plan.skipped, duration: 0)
        guard !plan.isEmpty else {
            report.duration = Date().timeIntervalSince(started)
            return (report, damaged)
        }
        // 3. Copy and write the new index, outside every lock.
        var prepared = Prepared(plan: plan, output: CompactionOutput(
            files: store.files, sizeLimit: store.options.segmentSizeLimit,
            reserveNumber: { try store.withWriter { w in
                // The number is made durable before the file exists: a crash before the
                // switch then leaves an output numbered below the MANIFEST's next file
                // number, which the next open knows for a copy (``LeftoverFiles``)
                // rather than for changes an older MANIFEST lacks.
                let number = w.manifest.reserveFileNumber()
                try w.manifest.commit(nextRouteID: w.nextRouteID) { _ in }
                return number
            } }))
        var newRuns: [UInt32: [UInt32]] = [:]
        do {
            let items = copy.items()
            for run in plan.runs {
                let runSet = Set(run)
                let first = prepared.output.segments.count
                try copy.copy(items.filter { runSet.contains($0.location.segment) }, into: &prepared.output,
                              checkCancelled: checkCancelled)
                newRuns[run[0]] = prepared.output.segments[first...].map { $0.number }
            }
            prepared.recordsMoved = copy.moved.count + copy.merged.count
            try prepared.output.sync()
            try checkCancelled()
            let order = segments.numbers.flatMap { number -> [UInt32] in
                if let new = newRuns[number] { return new }
                return plan.rewritten.contains(number) ? [] : [number]
            }
            prepared.indexEvents = RouteIndex.sortedInReplayOrder(try copy.remappedEvents(), segmentOrder: order)
            try writeIndex(&prepared)
            try keepDamage(check.damage, of: plan.rewritten, segments: segments)
        } catch {
            abandon(prepared)
            throw error
        }
        // 4. Switch.
        let obsolete = try commitSwitch(prepared, newRuns: newRuns, tailStart: tailStart)
        // 5. The switch is durable: the old files are garbage. Readers holding them open
        //    keep reading; a crash here only leaves files the next open removes.
        if let manifest = try? store.withWriter({ $0.manifest.current }) { store.files.remove(obsolete, keeping: manifest) }
        report.bytesAfter = store.state.withLock { $0.segments.totalBytes + $0.indexBytes }
        report.recordsMoved = prepared.recordsMoved
        report.segmentsCompacted = plan.rewritten.count
        report.duration = Date().timeIntervalSince(started)
        return (report, damaged)
    }

    /// Copies into `lost/` the bytes of the segments to rewrite that are no valid
    /// record, before the switch removes the segments (docs/recovery-and-compaction.md,
    /// "What is never destroyed"): they may have held a change that nothing else holds.
    /// Last before the switch, so a compaction that fails earlier copies nothing; a
    /// range `lost/` already holds byte for byte (from a compaction that failed at its
    /// switch, or was killed) is not copied again (``LostAndFound/keepCopy(of:name:from:length:reason:)``).
    private func keepDamage(_ damage: [UInt32: [DamagedRange]], of rewritten: Set<UInt32>, segments: SegmentSet) throws {
        let lost = LostAndFound(files: store.files)
        for (number, ranges) in damage.sorted(by: { $0.key < $1.key }) where rewritten.contains(number) {
            guard let segment = segments.segment(number) else { continue }
            let file = try segment.file, name = FormatConstants.segmentName(number)
            let reason = "bytes that are no valid record, which the index names no record in, kept when a compaction rewrote their segment"
            for range in ranges {
                try checkCancelled()
                try lost.keepCopy(of: file, name: name, from: range.offset, length: range.length, reason: reason)
            }
        }
    }

    /// True when damage that may have held a record is known outside `rewritten`: a
    /// copy of segment bytes in `lost/` (damage an earlier compaction took out of its
    /// segment, a torn tail, a segment moved aside), or bytes of another live segment
    /// that are no valid record. Looked for only when a compaction would drop records of
    /// ids the index has no trace of, in a store whose manifest never noted damage.
    private func damageOutside(_ rewritten: Set<UInt32>, segments: SegmentSet) -> Bool {
        let lost = LostAndFound(files: store.files).listing()
        if lost.notListed != nil || lost.entries.contains(where: { $0.name.hasPrefix(FormatConstants.segmentPrefix) }) {
            return true
        }
        let last = segments.segments.last?.number
        return segments.segments.contains { segment in
            guard !rewritten.contains(segment.number) else { return false }
            // The last segment up to the snapshot's end: saves go on past it meanwhile.
            let end = segment.number == last ? segment.end : max(segment.end, (try? segment.file.size()) ?? segment.end)
            return CompactionCopy.holdsDamage(segment, to: end)
        }
    }

    /// Notes in the manifest that damage was found, and that `ids` may have lost a record.
    private func noteLostIDs(_ ids: LostIDs) throws {
        try store.withWriter { w in
            try w.checkWritable()
            guard try w.noteLostIDs(ids) else { return }
            let (settings, generation) = (w.manifest.current.settings, w.manifest.current.generation)
            store.state.withLock { s in
                s.settings = settings
                s.generation = generation
            }
        }
    }

    /// Throws when close() has begun: a compaction then gives up at once.
    private func checkCancelled() throws {
        try store.state.withLock { try $0.checkOpen() }
    }

    private func writeIndex(_ prepared: inout Prepared) throws {
        prepared.indexNumber = try store.withWriter { $0.manifest.reserveFileNumber() }
        let file = try store.files.create(.index, number: prepared.indexNumber)
        prepared.index = file
        let (bytes, singles) = IndexFile.records(prepared.indexEvents)
        prepared.indexSingleRecords = singles
        try file.write(bytes, at: prepared.indexEnd)
        prepared.indexEnd += Int64(bytes.count)
        try file.syncData()
    }

    private func abandon(_ prepared: Prepared) {
        prepared.output.abandon()
        if let index = prepared.index { try? store.files.fileSystem.unlink(index.path) }
    }

    /// Under the writer lock: index what was written since the plan, commit the
    /// manifest with each rewritten run replaced by its new segments, and take the new
    /// files and index. Returns the names of the files the switch made obsolete.
    private func commitSwitch(_ prepared: Prepared, newRuns: [UInt32: [UInt32]],
                              tailStart: (segment: UInt32, offset: Int64)) throws -> [String] {
        try store.withWriter { w in
            var switchAttempted = false
            do {
                try w.checkWritable()
                try checkCancelled()
                // Records appended since the snapshot, synced first when buffered.
                try w.syncBufferedSaves()
                let tailEvents = try IndexRecovery.events(in: w.log.segments, since: tailStart)
                var index = RouteIndex()
                for event in prepared.indexEvents + tailEvents { index.apply(event) }
                let (tailBytes, tailSingles) = IndexFile.records(tailEvents)
                // Not synced here: the segments are the truth, and an index that lost
                // these last records is caught up from them at the next open.
                try prepared.index!.write(tailBytes, at: prepared.indexEnd)

                var segments = SegmentSet()
                var obsolete: [String] = [FormatConstants.indexName(w.index.number)]
                let created = Dictionary(uniqueKeysWithValues: prepared.output.segments.map { ($0.number, $0) })
                for segment in w.log.segments.segments {
                    if let new = newRuns[segment.number] {
                        for number in new { segments.append(created[number]!) }
                    }
                    if prepared.plan.rewritten.contains(segment.number) {
                        obsolete.append(FormatConstants.segmentName(segment.number))
                    } else {
                        segments.append(segment)
                    }
                }
                switchAttempted = true
                try w.manifest.commit(nextRouteID: w.nextRouteID) { manifest in
                    manifest.segments = segments.numbers
                    manifest.indexFile = prepared.indexNumber
                }
                w.log.replace(with: segments)
                w.index = IndexFile(number: prepared.indexNumber, file: prepared.index,
                                    end: prepared.indexEnd + Int64(tailBytes.count), unsynced: tailEvents.count,
                                    singleRecords: prepared.indexSingleRecords + tailSingles)
                let published = (w.log.segments, w.manifest.current.generation, w.index.number, w.index.end)
                let singles = w.index.singleRecords
                store.state.withLock { s in
                    s.index = index
                    (s.segments, s.generation, s.indexFileNumber, s.indexBytes) = published
                    s.indexSingleRecords = singles
                }
                return obsolete
            } catch {
                // Before the switch, only this compaction's files go; after a failed
                // attempt the writer refuses everything until reopened, and removes nothing.
                if !switchAttempted || w.manifest.uncertain == nil { abandon(prepared) }
                throw error
            }
        }
    }
}
