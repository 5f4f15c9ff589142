import Foundation
import Testing
@testable import RouteLog

/// An index rewritten from the live state (by a compaction, a background rewrite, a
/// close or an open) leaves out records that replay to nothing: a superseded edit, a
/// delete whose route compaction reclaimed. When such a record ends a segment that a
/// compaction kept, the index covers that segment only up to the record before it,
/// while it holds records of later segments. That is not an index ahead of the log:
/// the open keeps it, and does not rebuild it every time.
@Suite struct DeadRecordEndingASegmentTests {
    /// Small segments, compaction only when asked, and a segment rewritten when a
    /// fifth of it is dead (one dead edit or delete is less).
    static var options: RouteStore.Options {
        var options = RouteStore.Options(segmentSizeLimit: 8 * 1024, compaction: .manual)
        options.compactionRewriteThreshold = 0.2
        return options
    }

    /// Saves small routes until the store rolls into a new segment; returns their ids.
    static func fillUntilRoll(_ store: RouteStore, seed: UInt64) throws -> [RouteID] {
        let segments = try store.statistics().segments.count
        var ids: [RouteID] = []
        while try store.statistics().segments.count == segments {
            try #require(ids.count < 500, "8 KiB segments never rolled")
            ids.append(try store.save(Fixtures.sampleWalk(seed: seed + UInt64(ids.count), points: 40)))
        }
        return ids
    }

    /// The segment holding `id`'s latest record of the kind `edit` names.
    static func segment(of id: RouteID, edit: Bool, in store: RouteStore) -> UInt32? {
        store.state.withLock { state in
            let locations = state.index.routes.locations(id)
            return edit ? locations?.edit?.segment : locations?.location.segment
        }
    }

    /// A store where `last` (an edit or a delete made by `ending`) is the last record of
    /// a segment that the compaction keeps, while the first segment, holding `route`'s
    /// RoutePut, is rewritten. Returns the store's URL after the compaction and close.
    static func storeWithDeadRecordEndingAKeptSegment(_ dir: TemporaryDirectory,
                                                      ending: (RouteStore, RouteID) throws -> Void,
                                                      after: (RouteStore, RouteID) throws -> Void) throws -> (URL, RouteID) {
        let url = dir.store()
        let store = try RouteStore(at: url, options: options)
        let route = try store.save(Fixtures.sampleWalk(seed: 1, points: 40))
        // Routes beside it in the first segment, then a second segment full of routes;
        // the store is now in its third.
        let first = try fillUntilRoll(store, seed: 100)
        try #require(try fillUntilRoll(store, seed: 1_000).count >= 3)
        let active = try store.statistics().segments.last!.number
        try ending(store, route)
        // A route too large for what is left rolls the store: the record above ends `active`.
        _ = try store.save(Fixtures.sampleWalk(seed: 9, points: 1_500))
        try #require(try store.statistics().segments.last!.number != active)
        try after(store, route)
        // Deleting most of the first segment's other routes makes it worth rewriting.
        for id in first.prefix(first.count - 1) { try store.delete(id) }
        let report = try store.compact()
        try #require(report.segmentsCompacted >= 1)
        try #require(try store.statistics().segments.contains { $0.number == active }, "the compaction kept the segment")
        try store.close()
        return (url, route)
    }

    static func openTwice(_ url: URL) throws -> [(rebuilt: Bool, index: UInt32, lost: Int)] {
        try (0..<2).map { _ in
            let store = try RouteStore(at: url, options: options)
            defer { try? store.close() }
            let state = store.state.withLock { ($0.indexRebuilt, $0.indexFileNumber) }
            return (state.0, state.1, try store.verify().lostFiles.count)
        }
    }

    @Test func aSupersededEditEndingAKeptSegmentLeavesTheIndexInUse() throws {
        let dir = TemporaryDirectory()
        let (url, route) = try Self.storeWithDeadRecordEndingAKeptSegment(dir, ending: { store, route in
            _ = try store.edit(route, RouteEdit(calories: 1))
        }, after: { store, route in
            _ = try store.edit(route, RouteEdit(calories: 2))
        })
        let opens = try Self.openTwice(url)
        #expect(opens.map(\.rebuilt) == [false, false])
        #expect(opens[0].index == opens[1].index, "no open wrote a new index")
        #expect(opens.map(\.lost) == [0, 0])
        let store = try RouteStore(at: url, options: Self.options)
        #expect(try store.summary(route).calories == 2)
        #expect(try store.verify().isClean)
    }

    @Test func aDeleteWhoseRouteWasReclaimedEndingAKeptSegmentLeavesTheIndexInUse() throws {
        let dir = TemporaryDirectory()
        var deleted: RouteID?
        let (url, _) = try Self.storeWithDeadRecordEndingAKeptSegment(dir, ending: { store, route in
            // The first route's put is in the first segment, which the compaction
            // rewrites: its delete, here, then replays to nothing.
            try store.delete(route)
            deleted = route
        }, after: { _, _ in })
        let opens = try Self.openTwice(url)
        #expect(opens.map(\.rebuilt) == [false, false])
        #expect(opens[0].index == opens[1].index)
        #expect(opens.map(\.lost) == [0, 0])
        let store = try RouteStore(at: url, options: Self.options)
        #expect(try !store.summaries().map(\.id).contains(try #require(deleted)))
        #expect(try store.verify().isClean)
    }

    /// The rule is narrow: a record the index lacks that changes the state, in a
    /// segment before one the index holds records of, still makes the open replay the
    /// segments. Here the index is written again without one route's put.
    @Test func aChangeTheIndexLacksBeforeASegmentItHoldsIsStillReplayed() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: Self.options)
        let early = try Self.fillUntilRoll(store, seed: 1)
        _ = try Self.fillUntilRoll(store, seed: 500)
        // The put that ends the first segment: without it the index covers that segment
        // only up to the put before, and holds records of the next.
        let (events, indexNumber, order, lastPut) = store.state.withLock { state in
            let first = state.segments.numbers[0]
            let last = early.compactMap { id in state.index.routes.location(id).map { (id, $0) } }
                .filter { $0.1.segment == first }.max { $0.1.offset < $1.1.offset }
            return (state.index.liveEvents(segmentOrder: state.segments.numbers), state.indexFileNumber,
                    state.segments.numbers, last?.0)
        }
        let missing = try #require(lastPut)
        try store.close()
        let kept = events.filter { $0.id != missing }
        try #require(kept.count == events.count - 1 && order.count >= 3)
        let (bytes, _) = IndexFile.records(kept)
        let indexURL = url.appendingPathComponent(FormatConstants.indexName(indexNumber))
        try Data(FileHeader(kind: .index, fileNumber: indexNumber).encoded() + bytes).write(to: indexURL)

        let reopened = try RouteStore(at: url, options: Self.options)
        #expect(reopened.state.withLock { $0.indexRebuilt })
        #expect(try reopened.summaries().map(\.id).contains(missing))
        #expect(try reopened.verify().isClean)
    }

    /// What replays to nothing, event by event, against an index holding route 1
    /// (put in segment 1, edited in segment 3), route 2 deleted (put and delete in
    /// segment 1), and recording 4 unfinished.
    @Test func whatReplaysToNothing() throws {
        let shape = RouteShape(points: Fixtures.sampleWalk(seed: 3, points: 5).points, segmentStarts: [])
        let metadata = StoredMetadata(RouteMetadata())
        func at(_ segment: UInt32, _ offset: Int64) -> RecordLocation { RecordLocation(segment: segment, offset: offset, length: 40) }
        var index = RouteIndex()
        for event: LogEvent in [.put(RouteID(1), shape, metadata, at(1, 20)), .put(RouteID(2), shape, metadata, at(1, 60)),
                                .delete(RouteID(2), at(1, 100)), .recordingStart(RouteID(4), startedMs: 0, metadata, at(1, 140)),
                                .edit(RouteID(1), metadata, at(3, 20))] {
            index.apply(event)
        }
        let order: [UInt32: Int] = [1: 0, 2: 1, 3: 2]
        func dead(_ event: LogEvent) -> Bool { index.replaysToNothing(event, position: { order[$0] }) }
        #expect(dead(.edit(RouteID(1), metadata, at(2, 500))), "an edit older than the route's latest")
        #expect(!dead(.edit(RouteID(1), metadata, at(3, 900))), "an edit newer than the index's")
        #expect(dead(.edit(RouteID(2), metadata, at(1, 80))), "an edit of a deleted route")
        #expect(dead(.edit(RouteID(3), metadata, at(2, 20))), "an edit of a route with no trace")
        #expect(!dead(.delete(RouteID(1), at(2, 20))), "a delete of a live route")
        #expect(dead(.delete(RouteID(3), at(2, 20))), "a delete of a route with no trace")
        #expect(!dead(.delete(RouteID(2), at(2, 20))), "a second delete of a tombstoned route is no record a rewrite leaves out")
        #expect(!dead(.put(RouteID(3), shape, metadata, at(2, 20))))
        #expect(!dead(.recordingChunk(RouteID(4), firstPoint: 0, pointCount: 1, at(2, 20))), "a chunk of an open recording")
        #expect(dead(.recordingChunk(RouteID(5), firstPoint: 0, pointCount: 1, at(2, 20))))
        #expect(!dead(.recordingDiscard(RouteID(4), at(2, 20))))
        #expect(dead(.recordingDiscard(RouteID(5), at(2, 20))))
        #expect(!dead(.recordingFinish(RouteID(5), shape, metadata, at(2, 20))))
        #expect(!dead(.edit(RouteID(1), metadata, at(9, 20))), "a segment outside the order")
    }
}
