import Foundation
import Testing
@testable import RouteLog

/// A RecordingStart damaged past the index in one segment, its recording's chunks in a
/// later one. Compaction rewrites a segment only when its dead bytes pay, so the two
/// segments may be rewritten sessions apart, in either order: the chunks must outlive
/// every such compaction while their start may have been lost, even once the damage
/// has left the segments for `lost/`. In a store that never held damage, the chunks of
/// a discarded recording are still reclaimed.
@Suite struct RecordingStartDamageAcrossSegmentsTests {
    static let options = RouteStore.Options(compaction: .manual)

    /// A recording laid across two segments of `store`.
    struct Spread {
        var recorder: RouteRecorder
        var start: RecordLocation
        /// A large route beside the start, whose delete makes that segment pay.
        var deadBesideStart: RouteID
        /// A small route beside the start.
        var keptBesideStart: RouteID
        /// Large routes beside the chunks, which keep that segment from paying.
        var liveBesideChunks: [RouteID]
        var chunkSegment: UInt32
        /// The recording's chunks in the store: 4, and 5 once finished.
        var chunkCount = 4
        /// Large routes beside the last chunk and the finish of a finished recording.
        var liveBesideFinish: [RouteID] = []
        var id: RouteID { recorder.id }
    }

    /// Segment A: a large route, a RecordingStart and a small route; segment B: the
    /// recording's 4 chunks (100 points) and three large routes; then a new last segment.
    static func spreadRecording(in store: RouteStore, seed: UInt64) throws -> Spread {
        let dead = try store.save(Fixtures.sampleWalk(seed: seed, points: 2000))
        let recorder = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        // After the start: its segment's index entries reach past it, so an open with
        // a whole index reads nothing there.
        let kept = try store.save(Fixtures.sampleWalk(seed: seed + 1, points: 50))
        try store.withWriter { try $0.roll() }
        for point in Fixtures.sampleWalk(seed: seed + 2, points: 100).points { try recorder.append(point) }
        var live: [RouteID] = []
        for n in 10..<13 { live.append(try store.save(Fixtures.sampleWalk(seed: seed + UInt64(n), points: 2000))) }
        try store.withWriter { try $0.roll() }
        let id = recorder.id
        let (start, chunks) = store.state.withLock {
            ($0.index.recordings[id]!.start, $0.index.recordings[id]!.chunks.map(\.location.segment))
        }
        #expect(Set(chunks).count == 1 && chunks[0] != start.segment)
        #expect(try RecordingStartDamageTests.records(of: id, in: store) == 4)
        return Spread(recorder: recorder, start: start, deadBesideStart: dead, keptBesideStart: kept, liveBesideChunks: live,
                      chunkSegment: chunks[0])
    }

    /// A store holding one spread recording, closed with its RecordingStart damaged
    /// and its index removed (`finishing` first gives it 10 more points and finishes
    /// it: a fifth chunk and the finish, in a third segment with three large routes).
    static func makeDamagedStore(at url: URL, finishing: Bool = false) throws -> Spread {
        let store = try RouteStore(at: url, options: options)
        var spread = try spreadRecording(in: store, seed: 1)
        if finishing {
            for point in Fixtures.sampleWalk(seed: 3, points: 110).points.suffix(10) { try spread.recorder.append(point) }
            _ = try spread.recorder.finish()
            spread.chunkCount = 5
            for n in 20..<23 { spread.liveBesideFinish.append(try store.save(Fixtures.sampleWalk(seed: UInt64(n), points: 2000))) }
            try store.withWriter { try $0.roll() }
        }
        try store.close()
        try RouteRecorderDamageTests.flipByte(in: url, segment: spread.start.segment, at: spread.start.offset + 30)
        try removeIndexFiles(of: url)
        return spread
    }

    static func lostNames(_ url: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent(LostAndFound.directoryName).path)) ?? []
    }

    static func chunks(_ spread: Spread, in store: RouteStore) throws -> Int {
        try RecordingStartDamageTests.records(of: spread.id, in: store)
    }

    /// Opens the damaged store, deletes the large route beside the start and compacts:
    /// the start's segment is rewritten alone, its damage copied into `lost/`.
    static func rewriteTheStartsSegment(at url: URL, _ spread: Spread) throws {
        let store = try RouteStore(at: url, options: options)
        try store.delete(spread.deadBesideStart)
        let report = try store.compact()
        #expect(!store.state.withLock { $0.segments.numbers }.contains(spread.start.segment), "the start's segment is rewritten")
        #expect(report.segmentsSkipped.contains { $0.name == FormatConstants.segmentName(spread.chunkSegment) })
        #expect(lostNames(url).contains("\(FormatConstants.segmentName(spread.start.segment))@\(spread.start.offset)"),
                "\(lostNames(url))")
        #expect(try chunks(spread, in: store) == spread.chunkCount)
        try store.close()
    }

    /// Opens the store, deletes the routes beside the chunks and compacts with every
    /// segment rewritten; then once more after a reopen. The chunks stay.
    static func rewriteEverything(at url: URL, _ spread: Spread) throws {
        let store = try RouteStore(at: url, options: .rewritingEverySegment)
        for id in spread.liveBesideChunks + spread.liveBesideFinish where (try? store.summary(id)) != nil { try store.delete(id) }
        try store.compact()
        #expect(try chunks(spread, in: store) == spread.chunkCount)
        #expect(try store.route(spread.keptBesideStart).points.count == 50)
        try store.close()
        let again = try RouteStore(at: url, options: .rewritingEverySegment)
        try again.compact()
        #expect(try chunks(spread, in: again) == spread.chunkCount)
        try again.close()
    }

    /// The manifest's note of lost ids (nil: none).
    static func lostIDs(at url: URL) throws -> LostIDs? {
        try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared)).settings.lostIDs
    }

    /// The start's segment is rewritten first (its damage copied to `lost/`); after a
    /// reopen, whose index is the compaction's, the chunks' segment is rewritten.
    @Test func theChunksOutliveTheirStartsSegmentBeingRewrittenFirst() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let spread = try Self.makeDamagedStore(at: url)
        try Self.rewriteTheStartsSegment(at: url, spread)
        #expect(try Self.lostIDs(at: url)?.ranges == [spread.id.rawValue...spread.id.rawValue])
        // No segment holds the damage now, and the index is whole.
        let reader = try RouteStore(readOnlyAt: url)
        #expect(try reader.verify().isClean)
        try reader.close()
        try Self.rewriteEverything(at: url, spread)
    }

    /// The chunks' segment is rewritten first, in a later session than the one that
    /// rebuilt the index: the damage is still in a live segment, which that session's
    /// open does not read (its index is whole).
    @Test func theChunksOutliveTheirOwnSegmentBeingRewrittenFirst() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let spread = try Self.makeDamagedStore(at: url)
        let rebuilding = try RouteStore(at: url, options: Self.options)
        #expect(rebuilding.state.withLock { $0.indexRebuilt })
        try rebuilding.close()
        #expect(try Self.lostIDs(at: url)?.ranges == [spread.id.rawValue...spread.id.rawValue])

        let store = try RouteStore(at: url, options: Self.options)
        #expect(store.state.withLock { $0.openDamage.isEmpty && !$0.indexRebuilt }, "\(store.state.withLock { ($0.openDamage, $0.indexRebuilt) })")
        for id in spread.liveBesideChunks { try store.delete(id) }
        let report = try store.compact()
        #expect(report.segmentsSkipped.contains { $0.name == FormatConstants.segmentName(spread.start.segment) })
        #expect(try Self.chunks(spread, in: store) == 4)
        try store.close()
        try Self.rewriteEverything(at: url, spread)
    }

    /// The recording was finished in a third segment: its finish has no start to
    /// follow either, and the chunks between stay.
    @Test func theChunksOutliveCompactionsWhenTheFinishIsInAThirdSegment() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let spread = try Self.makeDamagedStore(at: url, finishing: true)
        try Self.rewriteTheStartsSegment(at: url, spread)
        try Self.rewriteEverything(at: url, spread)
        let store = try RouteStore(at: url, options: Self.options)
        #expect(try RecordingStartDamageTests.records(of: spread.id, in: store, type: .recordingFinish) == 1)
        try store.close()
    }

    /// The same sequence in a store that never held damage, with the recording
    /// discarded: its chunks, left in their segment once the start's went, are dead
    /// and reclaimed, and the manifest never says an id may have been lost.
    @Test func aStoreWithoutDamageReclaimsTheChunksOfADiscardedRecording() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: Self.options)
        let spread = try Self.spreadRecording(in: store, seed: 1)
        try spread.recorder.discard()
        try store.delete(spread.deadBesideStart)
        try store.compact()
        #expect(!store.state.withLock { $0.segments.numbers }.contains(spread.start.segment))
        #expect(try Self.chunks(spread, in: store) == 4, "left in their kept segment")
        try store.close()

        let second = try RouteStore(at: url, options: Self.options)
        for id in spread.liveBesideChunks { try second.delete(id) }
        try second.compact()
        #expect(try Self.chunks(spread, in: second) == 0)
        #expect(try second.verify().isClean)
        try second.close()
        #expect(try Self.lostIDs(at: url) == nil)
    }

    /// A recording started and discarded after the damage was noted is not among the
    /// lost ids: its chunks are reclaimed, while the damaged recording's stay.
    @Test func theChunksOfARecordingDiscardedAfterTheDamageAreReclaimed() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let spread = try Self.makeDamagedStore(at: url)
        try Self.rewriteTheStartsSegment(at: url, spread)
        let noted = try Self.lostIDs(at: url)

        let store = try RouteStore(at: url, options: Self.options)
        let later = try Self.spreadRecording(in: store, seed: 40)
        #expect(noted?.contains(later.id.rawValue) == false)
        try later.recorder.discard()
        try store.delete(later.deadBesideStart)
        try store.compact()
        #expect(try Self.chunks(later, in: store) == 4, "left in their kept segment")
        try store.close()

        let second = try RouteStore(at: url, options: .rewritingEverySegment)
        for id in later.liveBesideChunks + spread.liveBesideChunks { try second.delete(id) }
        try second.compact()
        #expect(try Self.chunks(later, in: second) == 0)
        #expect(try Self.chunks(spread, in: second) == 4)
        try second.close()
        #expect(try Self.lostIDs(at: url) == noted)
    }

    /// The manifest's note taken away, as in a store whose damage a RouteLog that did
    /// not note it dealt with: the compaction that would drop the chunks finds the
    /// damage (a copy in `lost/`, or bytes in a segment it does not rewrite), keeps
    /// them and notes their id.
    @Test(arguments: [true, false])
    func damageNoManifestNotedIsFoundBeforeTheChunksGo(startsSegmentRewrittenFirst: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let spread = try Self.makeDamagedStore(at: url)
        if startsSegmentRewrittenFirst {
            try Self.rewriteTheStartsSegment(at: url, spread)
        } else {
            try RouteStore(at: url, options: Self.options).close()
        }
        var manifest = try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared))
        manifest.settings.lostIDs = nil
        try Data(manifest.encoded()).write(to: url.appendingPathComponent(FormatConstants.manifestName))

        let store = try RouteStore(at: url, options: Self.options)
        for id in spread.liveBesideChunks { try store.delete(id) }
        try store.compact()
        #expect(try Self.chunks(spread, in: store) == 4)
        try store.close()
        #expect(try Self.lostIDs(at: url)?.contains(spread.id.rawValue) == true)
        try Self.rewriteEverything(at: url, spread)
    }

    /// A backup made once the damage left for `lost/` (which a backup does not copy)
    /// carries the note: compacting the backup keeps the chunks.
    @Test func aBackupKeepsTheChunksThroughItsOwnCompactions() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let spread = try Self.makeDamagedStore(at: url)
        try Self.rewriteTheStartsSegment(at: url, spread)
        let copy = dir.store("backup.routelog")
        let store = try RouteStore(at: url, options: Self.options)
        try store.backup(to: copy)
        try store.close()
        let reader = try RouteStore(readOnlyAt: url)
        let viaReader = dir.store("backup-by-reader.routelog")
        try reader.backup(to: viaReader)
        try reader.close()
        for backup in [copy, viaReader] {
            #expect(try Self.lostIDs(at: backup)?.contains(spread.id.rawValue) == true)
            try Self.rewriteEverything(at: backup, spread)
        }
    }

    /// Both compactions in one session: the second rewrites the chunks' segment after
    /// the first took the damage away.
    @Test func theChunksOutliveTwoCompactionsInOneSession() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let spread = try Self.makeDamagedStore(at: url)
        let store = try RouteStore(at: url, options: Self.options)
        try store.delete(spread.deadBesideStart)
        try store.compact()
        #expect(!store.state.withLock { $0.segments.numbers }.contains(spread.start.segment))
        for id in spread.liveBesideChunks { try store.delete(id) }
        try store.compact()
        #expect(try Self.chunks(spread, in: store) == 4)
        try store.close()
        try Self.rewriteEverything(at: url, spread)
    }

    /// A RoutePut damaged in one segment, the route's MetadataEdit in a later one: the
    /// edit holds the acknowledged metadata and outlives the same compactions.
    @Test func theEditOfARouteWhosePutIsDamagedOutlivesTheCompactions() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: Self.options)
        let dead = try store.save(Fixtures.sampleWalk(seed: 1, points: 2000))
        let edited = try store.save(Fixtures.sampleWalk(seed: 2, points: 50))
        let kept = try store.save(Fixtures.sampleWalk(seed: 3, points: 50))
        try store.withWriter { try $0.roll() }
        try store.edit(edited, RouteEdit(name: "the acknowledged name"))
        var live: [RouteID] = []
        for n in 10..<13 { live.append(try store.save(Fixtures.sampleWalk(seed: UInt64(n), points: 2000))) }
        try store.withWriter { try $0.roll() }
        let (put, edit) = store.state.withLock { ($0.index.routes[edited]!.location, $0.index.routes[edited]!.editLocation!) }
        #expect(put.segment != edit.segment)
        try store.close()
        try RouteRecorderDamageTests.flipByte(in: url, segment: put.segment, at: put.offset + 30)
        try removeIndexFiles(of: url)

        let first = try RouteStore(at: url, options: Self.options)
        try first.delete(dead)
        try first.compact()
        #expect(!first.state.withLock { $0.segments.numbers }.contains(put.segment))
        try first.close()
        for _ in 0..<2 {
            let store = try RouteStore(at: url, options: .rewritingEverySegment)
            for id in live where (try? store.summary(id)) != nil { try store.delete(id) }
            try store.compact()
            #expect(try RecordingStartDamageTests.records(of: edited, in: store, type: .metadataEdit) == 1)
            #expect(try store.route(kept).points.count == 50)
            try store.close()
        }
    }

    /// A route saved before the damage, edited in a later segment and deleted after the
    /// damage was noted: once its RoutePut's segment is rewritten, its edit has no
    /// trace either, but its id is not among the lost ids, so a later compaction
    /// reclaims the edit's segment instead of keeping it as found for good.
    @Test func anEditOrphanedByADeleteAfterTheDamageIsReclaimed() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: Self.options)
        let spread = try Self.spreadRecording(in: store, seed: 1)
        let old = try store.save(Fixtures.sampleWalk(seed: 30, points: 2000))
        try store.withWriter { try $0.roll() }
        try store.edit(old, RouteEdit(name: "edited before the damage"))
        var live: [RouteID] = []
        for n in 31..<34 { live.append(try store.save(Fixtures.sampleWalk(seed: UInt64(n), points: 2000))) }
        try store.withWriter { try $0.roll() }
        try store.close()
        try RouteRecorderDamageTests.flipByte(in: url, segment: spread.start.segment, at: spread.start.offset + 30)
        try removeIndexFiles(of: url)

        let first = try RouteStore(at: url, options: Self.options)
        try first.delete(old)
        try first.compact()
        #expect(try RecordingStartDamageTests.records(of: old, in: first, type: .metadataEdit) == 1, "left in its kept segment")
        try first.close()
        #expect(try Self.lostIDs(at: url)?.ranges == [spread.id.rawValue...spread.id.rawValue])

        let second = try RouteStore(at: url, options: Self.options)
        for id in live { try second.delete(id) }
        try second.compact()
        #expect(try RecordingStartDamageTests.records(of: old, in: second, type: .metadataEdit) == 0)
        #expect(try Self.chunks(spread, in: second) == 4)
        try second.close()
    }
}
