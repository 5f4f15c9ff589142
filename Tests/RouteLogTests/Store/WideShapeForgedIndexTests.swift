import Foundation
import Testing
@testable import RouteLog

/// Files that name a shape past what an index row packs (2^21 points or more, a
/// duration of 2^37 ms or more), which no app's save makes of its points: where the
/// segment and the index agree the store reads the shape as stored; where the index
/// alone says it, verify reports the disagreement. Either way the store opens, lists
/// and loads the route, and a writer deletes it.
@Suite struct WideShapeForgedIndexTests {
    static let walk = Fixtures.sampleWalk(seed: 8, points: 30)

    /// The walk's shape with `change` applied.
    static func shape(_ change: (inout RouteShape) -> Void) throws -> RouteShape {
        var shape = try EncodedRoute(walk).record.shape
        change(&shape)
        return shape
    }

    /// A store of the walk (id 1) whose RoutePut holds `segmentShape` and whose index
    /// (one IndexPut, or a run of one) holds `indexShape`.
    static func make(_ dir: TemporaryDirectory, segmentShape: RouteShape, indexShape: RouteShape, asRun: Bool) throws -> URL {
        var record: RouteRecord?
        let url = try ForgedRouteStore.make(dir, route: walk, withIndex: false) {
            $0.shape = segmentShape
            record = $0
        }
        let put = try #require(record)
        let frame = RecordFrame.encode(type: .routePut, payload: put.payload())
        let location = RecordLocation(segment: 1, offset: Int64(FormatConstants.fileHeaderSize), length: frame.count)
        let entry: (type: FormatConstants.RecordType, payload: [UInt8])
        if asRun {
            // A run of one entry is still a run (what a writer never makes, a reader accepts).
            var w = ByteWriter(capacity: 256)
            put.metadata.write(to: &w)
            var run = IndexPutRun.Builder()
            run.add(id: put.id, location: location, shape: indexShape, encodedMetadata: w.bytes)
            entry = (.indexPutRun, run.payload())
        } else {
            entry = LogEvent.put(put.id, indexShape, put.metadata, location).indexRecord()
        }
        let index = FileHeader(kind: .index, fileNumber: 2, version: FormatConstants.version).encoded()
            + RecordFrame.encode(type: entry.type, payload: entry.payload)
        try Data(index).write(to: url.appendingPathComponent(FormatConstants.indexName(2)))
        return url
    }

    static let wideShapes: [(String, @Sendable (inout RouteShape) -> Void)] = [
        ("duration 2^37", { $0.durationMs = 1 << 37 }),
        ("duration at the latest", { $0.durationMs = FormatConstants.latestTimestampMs }),
        ("2^21 points", { $0.pointCount = 1 << 21 }),
        ("UInt32.max points", { $0.pointCount = .max }),
    ]

    /// The segment and the index agree on a duration past what a row packs: read as
    /// stored, through every open, a compaction and a rebuild; verify reports the route
    /// (its points do not last that long: ``VerifyShapeAgainstPointsTests``), and only it.
    @Test(arguments: [false, true]) func aWideDurationBothFilesHoldIsReadAsStored(asRun: Bool) throws {
        let dir = TemporaryDirectory()
        let wide = try Self.shape { $0.durationMs = FormatConstants.latestTimestampMs }
        let url = try Self.make(dir, segmentShape: wide, indexShape: wide, asRun: asRun)
        let expected = Quantization.seconds(milliseconds: FormatConstants.latestTimestampMs)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(InvalidUTF8IndexTests.indexState(reader) == (false, false))
        #expect(try reader.summary(RouteID(1)).duration == expected)
        #expect(try reader.totals().duration == expected)
        #expect(try reader.statistics().points == 30)
        #expect(try reader.route(RouteID(1)).points.count == 30)
        #expect(try reader.verify().problems.map { "\($0.kind) \(String(describing: $0.routeID))" } == ["damagedRoute Optional(1)"])
        try reader.close()
        let options = RouteStore.Options.rewritingEverySegment
        let writer = try RouteStore(at: url, options: options)
        let other = try writer.save(Fixtures.sampleWalk(seed: 9, points: 20))
        try writer.delete(other)
        _ = try writer.compact()
        #expect(try writer.summary(RouteID(1)).duration == expected)
        try writer.close()
        try removeIndexFiles(of: url)
        let rebuilt = try RouteStore(at: url, options: .init(compaction: .manual))
        #expect(try rebuilt.summary(RouteID(1)).duration == expected)
        try rebuilt.close()
        let last = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try last.summary(RouteID(1)).duration == expected)
        #expect(try last.verify().problems.map { "\($0.kind) \(String(describing: $0.routeID))" } == ["damagedRoute Optional(1)"])
        try last.close()
    }

    /// The index alone names a wide shape: the store lists what the index says, verify
    /// reports the route (its points are not that many, or the shape is not the
    /// segment's), loading it reads the segment's points, and a writer deletes it,
    /// after which the store verifies clean.
    @Test(arguments: [false, true]) func aWideShapeOnlyTheIndexHoldsIsReported(asRun: Bool) throws {
        for (label, change) in Self.wideShapes {
            let dir = TemporaryDirectory()
            let plain = try Self.shape { _ in }
            let wide = try Self.shape(change)
            let url = try Self.make(dir, segmentShape: plain, indexShape: wide, asRun: asRun)
            let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
            #expect(InvalidUTF8IndexTests.indexState(reader) == (false, false), "\(label)")
            let summary = try reader.summary(RouteID(1))
            #expect(summary.pointCount == Int(wide.pointCount), "\(label)")
            #expect(summary.duration == Quantization.seconds(milliseconds: wide.durationMs), "\(label)")
            #expect(try reader.statistics().points == Int(wide.pointCount), "\(label)")
            // Loading reads the segment's record: its points, whatever the index says.
            #expect(try reader.route(RouteID(1)).points.count == Int(plain.pointCount), "\(label)")
            let problems = try reader.verify().problems
            let kind: VerificationReport.Problem.Kind = wide.pointCount != plain.pointCount ? .damagedRoute : .indexMismatch
            #expect(problems.map(\.kind) == [kind], "\(label): \(problems.map(\.message))")
            #expect(problems.first?.routeID == RouteID(1), "\(label)")
            try reader.close()
            let writer = try RouteStore(at: url, options: .init(compaction: .manual))
            #expect(try writer.summary(RouteID(1)).pointCount == Int(wide.pointCount), "\(label)")
            try writer.delete(RouteID(1))
            let kept = try writer.save(Fixtures.sampleWalk(seed: 10, points: 20))
            try writer.close()
            let after = try RouteStore(at: url, options: .init(mode: .readOnly))
            #expect(try after.summaries().map(\.id) == [kept], "\(label)")
            #expect(try after.statistics().points == 20, "\(label)")
            #expect(try after.verify().problems.isEmpty, "\(label)")
            try after.close()
        }
    }
}
