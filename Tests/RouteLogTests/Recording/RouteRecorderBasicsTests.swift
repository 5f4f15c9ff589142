import Foundation
import Testing
@testable import RouteLog

@Suite struct RouteRecorderBasicsTests {
    /// Records `route` point by point, adding each split when its point arrives.
    static func record(_ route: Route, into recorder: RouteRecorder, batch: Int = 1) throws {
        var next = 0
        while next < route.points.count {
            let end = min(route.points.count, next + batch)
            try recorder.append(Array(route.points[next..<end]))
            for split in route.splits where (next..<end).contains(split.pointIndex) { try recorder.addSplit(split) }
            next = end
        }
    }

    @Test func aRecordedRouteReadsBackExactlyLikeTheSameRouteSavedInOneGo() throws {
        let dir = TemporaryDirectory()
        var route = Fixtures.sampleWalk(seed: 7, points: 3600)
        route.metadata.name = "Recorded"
        let store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        let recorder = try store.startRecording(flushPolicy: .init(points: 60, interval: nil))
        try Self.record(route, into: recorder)
        #expect(recorder.flushedPointCount == 3600)
        let id = try recorder.finish(metadata: route.metadata)
        #expect(id == recorder.id)
        #expect(recorder.status == .finished(id))
        #expect(try store.route(id).withoutUUID == RouteCodec.quantize(route))

        let reference = try RouteStore(at: dir.store("reference.routelog"))
        let savedID = try reference.save(route)
        var expectedSummary = try reference.summary(savedID)
        expectedSummary.id = id
        expectedSummary.uuid = try store.summary(id).uuid  // each save gets its own
        // Until compaction stores it as one record, a recorded route's summary has no
        // stats or preview (the recorder never holds the whole route); the rest is equal.
        var recordingSummary = expectedSummary
        recordingSummary.stats = nil
        recordingSummary.preview = nil
        #expect(expectedSummary.stats != nil && expectedSummary.preview != nil)
        #expect(try store.summary(id) == recordingSummary)
        #expect(try store.summaries() == [recordingSummary])
        #expect(try store.statistics().chunkedRoutes == 1)
        #expect(try store.verify().isClean)
        // Every record of the recording is live, once.
        let stats = try store.statistics()
        #expect(stats.liveBytes == stats.segments.reduce(0) { $0 + $1.bytes - Int64(FormatConstants.fileHeaderSize) })

        try store.compact()
        #expect(try store.statistics().chunkedRoutes == 0)
        #expect(try store.route(id).withoutUUID == RouteCodec.quantize(route))
        #expect(try store.summary(id) == expectedSummary)
        try store.close()
        let reopened = try RouteStore(at: dir.store())
        #expect(try reopened.route(id).withoutUUID == RouteCodec.quantize(route))
        #expect(try reopened.summary(id) == expectedSummary)
        #expect(try reopened.verify().isClean)
    }

    @Test func aRecordingIsNotARouteUntilItIsFinished() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let route = Fixtures.sampleWalk(seed: 2, points: 40)
        let recorder = try store.startRecording(metadata: RouteMetadata(name: "In progress"), flushPolicy: .manual)
        try recorder.append(route.points)
        try recorder.flush()
        #expect(try store.summaries().isEmpty)
        #expect(try store.count == 0)
        do {
            _ = try store.route(recorder.id)
            Issue.record("an unfinished recording loaded as a route")
        } catch let error as RouteLogError {
            #expect(error.code == .notFound)
            #expect(error.message.contains("recording in progress"))
        }
        let unfinished = try store.unfinishedRecordings()
        #expect(unfinished.map(\.id) == [recorder.id])
        #expect(unfinished.first?.points == RouteCodec.quantize(route).points)
        #expect(unfinished.first?.metadata.name == "In progress")
        #expect(try store.statistics().recordingsInProgress.map(\.points) == [40])
        #expect(try store.statistics().recordingsInProgress.first?.name == "In progress")
        try recorder.finish()
        #expect(try store.summaries().map(\.id) == [recorder.id])
        #expect(try store.summary(recorder.id).name == "In progress")
        #expect(try store.unfinishedRecordings().isEmpty)
        #expect(try store.statistics().recordingsInProgress.isEmpty)
        #expect(throws: RouteLogError.self) { try recorder.append(route.points[0]) }
    }

    @Test func theFlushPolicyWritesEveryNPoints() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let points = Fixtures.sampleWalk(seed: 3, points: 35).points
        let recorder = try store.startRecording(flushPolicy: .init(points: 10, interval: nil))
        try recorder.append(Array(points[0..<9]))
        #expect(recorder.flushedPointCount == 0)
        try recorder.append(points[9])
        #expect(recorder.flushedPointCount == 10)
        try recorder.append(Array(points[10..<35]))
        #expect(recorder.flushedPointCount == 35)
        #expect(recorder.pointCount == 35)
        #expect(try store.statistics().recordingsInProgress.first?.chunks == 2)
    }

    @Test func theFlushPolicyWritesAfterTheIntervalWithoutMorePoints() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let points = Fixtures.sampleWalk(seed: 4, points: 3).points
        let interval = 3.0
        let recorder = try store.startRecording(flushPolicy: .init(points: nil, interval: interval))
        let appended = ContinuousClock.now
        try recorder.append(points)
        // Nothing is written before the interval has passed. Checked only while it has
        // not: a test held up that long rightly finds the timer's flush done.
        let flushedAtOnce = recorder.flushedPointCount
        if appended.duration(to: .now) < .seconds(interval) { #expect(flushedAtOnce == 0) }
        let deadline = Date().addingTimeInterval(60)
        while recorder.flushedPointCount < 3 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(recorder.flushedPointCount == 3)
        #expect(try store.unfinishedRecordings().first?.points.count == 3)
    }

    @Test func aRecorderReleasedWithoutFinishingFlushesAndCanBeResumed() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let points = Fixtures.sampleWalk(seed: 12, points: 7).points
        var id: RouteID
        do {
            let recorder = try store.startRecording(flushPolicy: .init(points: 100, interval: 0.1))
            try recorder.append(points)
            id = recorder.id
            #expect(throws: RouteLogError.self) { try store.resumeRecording(id) }
        }
        // Released: what waited is flushed, the timer set for it finds nothing, and the
        // recording can be taken up again.
        try await Task.sleep(for: .milliseconds(300))
        #expect(try store.unfinishedRecordings().first?.points == RouteCodec.quantize(Route(points: points)).points)
        let resumed = try store.resumeRecording(id)
        #expect(resumed.pointCount == 7)
        try resumed.discard()
        #expect(try store.unfinishedRecordings().isEmpty)
    }

    @Test func badPointsAndSplitsAreRejectedBeforeAnythingIsWritten() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let good = Fixtures.sampleWalk(seed: 5, points: 5).points
        #expect(throws: RouteLogError.self) { try store.startRecording(metadata: RouteMetadata(calories: -1)) }
        #expect(throws: RouteLogError.self) { try store.startRecording(flushPolicy: .init(points: 0)) }
        let recorder = try store.startRecording(flushPolicy: .init(points: 2, interval: nil))
        try recorder.append(good[0])
        let before = directorySnapshot(dir.store())
        var bad = good
        bad[3].latitude = .nan
        var farFuture = good[1]
        farFuture.timestamp = Date(timeIntervalSince1970: 8_000_000_000)
        var badSpeed = good[1]
        badSpeed.speed = .infinity
        for (batch, expected) in [(bad, "point 4: latitude"), ([farFuture], "point 1: timestamp"), ([badSpeed], "point 1: speed")] {
            do {
                try recorder.append(batch)
                Issue.record("a bad point was taken")
            } catch let error as RouteLogError {
                #expect(error.code == .invalidArgument)
                #expect(error.message.hasPrefix(expected), "\(error.message)")
            }
        }
        #expect(recorder.pointCount == 1)
        #expect(throws: RouteLogError.self) { try recorder.addSplit(Split(unit: .kilometre, pointIndex: 1, elapsedTime: 1)) }
        #expect(throws: RouteLogError.self) { try recorder.addSplit(Split(unit: .kilometre, pointIndex: 0, elapsedTime: -1)) }
        #expect(throws: RouteLogError.self) { try recorder.finish(metadata: RouteMetadata(name: String(repeating: "x", count: 2000))) }
        #expect(directorySnapshot(dir.store()) == before, "a rejected call wrote to the store")

        let empty = try store.startRecording()
        do {
            try empty.finish()
            Issue.record("a recording without points was finished")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument)
        }
        try empty.discard()
        #expect(throws: RouteLogError.self) { try empty.append(good[0]) }
        try recorder.append(Array(good[1...]))
        let id = try recorder.finish()
        #expect(try store.route(id).points == RouteCodec.quantize(Route(points: good)).points)
    }

    @Test func aRecordingResumedAfterReopenGoesOnFromItsFlushedPoints() throws {
        let dir = TemporaryDirectory()
        var route = Fixtures.sampleWalk(seed: 6, points: 200)
        route.metadata = RouteMetadata(name: "Resumed", calories: 12)
        var id: RouteID
        do {
            let store = try RouteStore(at: dir.store())
            let recorder = try store.startRecording(metadata: RouteMetadata(name: "Resumed"), flushPolicy: .init(points: 20, interval: nil))
            try Self.record(Route(points: Array(route.points[0..<125]), splits: route.splits.filter { $0.pointIndex < 125 }), into: recorder)
            #expect(recorder.flushedPointCount == 120)
            id = recorder.id
            // The store goes away under the recorder, as in a crash: the 5 waiting points are lost.
            try store.close()
        }
        let store = try RouteStore(at: dir.store())
        let unfinished = try store.unfinishedRecordings()
        #expect(unfinished.count == 1)
        #expect(unfinished[0].id == id)
        #expect(unfinished[0].points == RouteCodec.quantize(Route(points: Array(route.points[0..<120]))).points)
        #expect(unfinished[0].splits == RouteCodec.quantize(route).splits.filter { $0.pointIndex < 120 })
        let recorder = try store.resumeRecording(id, flushPolicy: .init(points: 20, interval: nil))
        #expect(throws: RouteLogError.self) { try store.resumeRecording(id) }
        #expect(recorder.pointCount == 120)
        try recorder.append(Array(route.points[120...]))
        for split in route.splits where split.pointIndex >= 120 { try recorder.addSplit(split) }
        // The splits before 120 were flushed; re-add the ones between 120 and 125 that were lost.
        let finished = try recorder.finish(metadata: route.metadata)
        var expected = RouteCodec.quantize(route)
        expected.splits = expected.splits.filter { $0.pointIndex < 120 } + expected.splits.filter { $0.pointIndex >= 120 }
        #expect(try store.route(finished).withoutUUID == expected)
        #expect(try store.verify().isClean)
    }

    @Test func severalRecordingsAtOnceStayApart() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(segmentSizeLimit: 64 * 1024, compaction: .manual))
        let routes = (0..<4).map { Fixtures.sampleWalk(seed: UInt64(20 + $0), points: 300 + 50 * $0) }
        let results = try await withThrowingTaskGroup(of: (Int, RouteID).self) { group in
            for (i, route) in routes.enumerated() {
                group.addTask {
                    let recorder = try store.startRecording(flushPolicy: .init(points: 7 + i, interval: nil))
                    try Self.record(route, into: recorder, batch: 1 + i)
                    return (i, try recorder.finish(metadata: route.metadata))
                }
            }
            group.addTask {
                for seed in 0..<5 { try store.save(Fixtures.sampleWalk(seed: UInt64(100 + seed), points: 100)) }
                return (-1, RouteID(0))
            }
            var all: [(Int, RouteID)] = []
            for try await result in group where result.0 >= 0 { all.append(result) }
            return all
        }
        #expect(Set(results.map(\.1)).count == 4)
        #expect(try store.count == 9)
        #expect(Set(try store.summaries().map(\.id)).count == 9)
        for (i, id) in results { #expect(try store.route(id).withoutUUID == RouteCodec.quantize(routes[i])) }
        try store.compact()
        for (i, id) in results { #expect(try store.route(id).withoutUUID == RouteCodec.quantize(routes[i])) }
        try store.close()
        let reopened = try RouteStore(at: dir.store())
        for (i, id) in results { #expect(try reopened.route(id).withoutUUID == RouteCodec.quantize(routes[i])) }
        #expect(try reopened.verify().isClean)
    }

    @Test func pausesBecomeSegmentStartsAndAreNotTravelled() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let walk = Fixtures.sampleWalk(seed: 8, points: 90)
        let recorder = try store.startRecording(flushPolicy: .init(points: 16, interval: nil))
        try recorder.startSegment()  // before the first point: no segment start
        try recorder.append(Array(walk.points[0..<30]))
        try recorder.startSegment()
        try recorder.append(Array(walk.points[30..<61]))
        try recorder.startSegment()
        try recorder.append(Array(walk.points[61...]))
        let id = try recorder.finish()
        let expected = Route(points: walk.points, segmentStarts: [30, 61])
        #expect(try store.route(id).withoutUUID == RouteCodec.quantize(expected))
        let reference = try RouteStore(at: dir.store("reference.routelog"))
        #expect(try store.summary(id).distance == reference.summary(reference.save(expected)).distance)
    }

    @Test func theShapeBuiltPointByPointEqualsTheShapeOfAllPoints() {
        var routes = RandomRoutes(seed: 11)
        for _ in 0..<50 {
            let route = routes.next()
            var builder = RouteShapeBuilder()
            let starts = Set(route.segmentStarts)
            for (i, point) in route.points.enumerated() { builder.add(point, startsSegment: starts.contains(i)) }
            #expect(builder.shape == RouteShape(points: route.points, segmentStarts: route.segmentStarts))
        }
    }

    @Test func recordingsSurviveAnIndexRebuildAndAreSeenByReaders() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let walk = Fixtures.sampleWalk(seed: 9, points: 100)
        let finishedID: RouteID, unfinishedID: RouteID
        do {
            let store = try RouteStore(at: url)
            let finished = try store.startRecording(flushPolicy: .init(points: 30, interval: nil))
            try finished.append(walk.points)
            finishedID = try finished.finish(metadata: walk.metadata)
            try store.edit(finishedID, RouteEdit(name: "edited"))
            let unfinished = try store.startRecording(flushPolicy: .init(points: 30, interval: nil))
            try unfinished.append(walk.points)
            unfinishedID = unfinished.id
            let discarded = try store.startRecording()
            try discarded.append(walk.points)
            try discarded.flush()
            try discarded.discard()
            let reader = try RouteStore(readOnlyAt: url)
            #expect(try reader.statistics().recordingsInProgress.map(\.id) == [unfinishedID])
            #expect(try reader.unfinishedRecordings().first?.points.count == 100)
            #expect(try reader.route(finishedID).points == RouteCodec.quantize(walk).points)
            try store.close()
        }
        try FileManager.default.removeItem(at: url.appendingPathComponent("index-00000002.rlidx"))
        let reader = try RouteStore(readOnlyAt: url)
        #expect(try reader.unfinishedRecordings().map(\.id) == [unfinishedID])
        let store = try RouteStore(at: url)
        #expect(store.state.withLock { $0.indexRebuilt })
        #expect(try store.unfinishedRecordings().map { $0.points.count } == [100])
        #expect(try store.route(finishedID).metadata.name == "edited")
        #expect(try store.route(finishedID).points == RouteCodec.quantize(walk).points)
        #expect(try store.verify().isClean)
        try store.close()
        let again = try RouteStore(at: url)
        #expect(again.state.withLock { !$0.indexRebuilt })
        #expect(try again.unfinishedRecordings().map(\.id) == [unfinishedID])
        #expect(try again.summaries().map(\.id) == [finishedID])
    }
}
