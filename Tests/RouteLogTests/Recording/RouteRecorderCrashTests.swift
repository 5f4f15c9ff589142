import Foundation
import Testing
@testable import RouteLog

@Suite(.tags(.slow)) struct RouteRecorderCrashTests {
    static let options = RouteStore.Options(segmentSizeLimit: 5 * 1024, compaction: .manual)
    static let walk = Fixtures.sampleWalk(seed: 41, points: 300)
    static let quantized = RouteCodec.quantize(walk)

    /// A store holding a saved route and a recording of the walk's first 150 points,
    /// flushed in two chunks.
    static func prepare(_ url: URL) throws -> (recording: RouteID, saved: RouteID) {
        let store = try RouteStore(at: url, options: options)
        let saved = try store.save(Fixtures.sampleWalk(seed: 40, points: 60))
        let recorder = try store.startRecording(flushPolicy: .manual)
        try RouteRecorderBasicsTests.record(Route(points: Array(walk.points[0..<100]), splits: walk.splits.filter { $0.pointIndex < 100 }), into: recorder)
        try recorder.flush()
        try recorder.append(Array(walk.points[100..<150]))
        for split in walk.splits where (100..<150).contains(split.pointIndex) { try recorder.addSplit(split) }
        try recorder.flush()
        let id = recorder.id
        try store.close()
        return (id, saved)
    }

    /// Resumes `id`, appends the rest of the walk and finishes: the route must be whole.
    static func finishRest(_ store: RouteStore, _ id: RouteID) throws {
        let recorder = try store.resumeRecording(id, flushPolicy: .manual)
        let from = recorder.pointCount
        try recorder.append(Array(walk.points[from...]))
        for split in walk.splits where split.pointIndex >= from { try recorder.addSplit(split) }
        #expect(try store.route(recorder.finish(metadata: walk.metadata)).withoutUUID == quantized)
    }

    static func copy(_ from: URL, to: URL) throws {
        try? FileManager.default.removeItem(at: to)
        try FileManager.default.copyItem(at: from, to: to)
    }

    @Test func aCrashAtEveryFileOperationOfAFlushKeepsEveryEarlierFlush() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let (id, _) = try Self.prepare(template)
        let work = dir.store("work.routelog")
        let checked = try atEveryCrashPoint(template: template, work: work, options: Self.options, limit: 200, { store in
            let recorder = try store.resumeRecording(id, flushPolicy: .manual)
            try recorder.append(Array(Self.walk.points[150..<200]))
            try recorder.flush()
        }, check: { reopened, crashPoint, flushed in
            let recordings = try reopened.unfinishedRecordings()
            let count = recordings.first?.points.count ?? -1
            #expect(recordings.count == 1 && (count == 150 || count == 200), "crash at \(crashPoint): \(count) points")
            if flushed { #expect(count == 200, "a flush returned but its points are gone") }
            #expect(recordings.first?.points == Array(Self.quantized.points.prefix(max(0, count))), "crash at \(crashPoint)")
            #expect(try reopened.verify().isClean, "crash at \(crashPoint)")
            try Self.finishRest(reopened, id)
        })
        print("flush crash cases checked: \(checked)")
    }

    @Test func aCrashAtEveryFileOperationOfAFinishLeavesTheRecordingOrTheWholeRoute() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let (id, saved) = try Self.prepare(template)
        let work = dir.store("work.routelog")
        let checked = try atEveryCrashPoint(template: template, work: work, options: Self.options, limit: 200, { store in
            let recorder = try store.resumeRecording(id, flushPolicy: .manual)
            try recorder.append(Array(Self.walk.points[150...]))
            for split in Self.walk.splits where split.pointIndex >= 150 { try recorder.addSplit(split) }
            try recorder.finish(metadata: Self.walk.metadata)
        }, check: { reopened, crashPoint, finished in
            let recordings = try reopened.unfinishedRecordings()
            let ids = try reopened.summaries().map(\.id)
            if ids == [saved] {
                #expect(!finished, "a finish returned but the route is not there")
                #expect(recordings.map { $0.points.count } == [150], "crash at \(crashPoint)")
                #expect(recordings.first?.points == Array(Self.quantized.points.prefix(150)))
                try Self.finishRest(reopened, id)
            } else {
                #expect(Set(ids) == [saved, id], "crash at \(crashPoint): routes \(ids)")
                #expect(recordings.isEmpty, "crash at \(crashPoint): a finished recording is still unfinished")
                let route = try reopened.route(id).withoutUUID
                #expect(route == Self.quantized, "crash at \(crashPoint)")
            }
            #expect(try reopened.verify().isClean, "crash at \(crashPoint)")
        })
        print("finish crash cases checked: \(checked)")
    }

    /// A store with every kind of recording beside saved, deleted and edited routes,
    /// spread over several segments.
    static func prepareForCompaction(_ url: URL) throws -> (ExpectedStore, [UnfinishedRecording]) {
        let store = try RouteStore(at: url, options: options)
        var deleted: Set<RouteID> = []
        for i in 0..<6 {
            let id = try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 80))
            if i % 3 == 0 { try store.delete(id); deleted.insert(id) }
        }
        let finished = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        try RouteRecorderBasicsTests.record(Fixtures.sampleWalk(seed: 10, points: 140), into: finished)
        let discarded = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        try discarded.append(Fixtures.sampleWalk(seed: 11, points: 90).points)
        let edited = try store.startRecording(flushPolicy: .init(points: 40, interval: nil))
        try edited.append(Fixtures.sampleWalk(seed: 12, points: 120).points)
        let unfinished = try store.startRecording(metadata: RouteMetadata(name: "still going"), flushPolicy: .init(points: 30, interval: nil))
        try RouteRecorderBasicsTests.record(Fixtures.sampleWalk(seed: 13, points: 150), into: unfinished)
        let empty = try store.startRecording()
        _ = empty
        try finished.finish()
        try discarded.discard()
        let editedID = try edited.finish(metadata: RouteMetadata(name: "edited later"))
        try store.edit(editedID, RouteEdit(shift: 3600, calories: 42))
        try store.save(Fixtures.sampleWalk(seed: 14, points: 50))
        let expected = try ExpectedStore(store, deleted: deleted)
        let recordings = try store.unfinishedRecordings()
        #expect(recordings.count == 2)
        try store.close()
        return (expected, recordings)
    }

    @Test func aCrashAtEveryFileOperationOfACompactionWithRecordingsLosesNothing() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let (expected, recordings) = try Self.prepareForCompaction(template)
        let work = dir.store("work.routelog")
        let checked = try compactionAtEveryCrashPoint(template: template, work: work, options: Self.options) { reopened, crashPoint in
            let problems = expected.mismatches(in: reopened)
            #expect(problems.isEmpty, "crash at operation \(crashPoint): \(problems)")
            let unfinished = try reopened.unfinishedRecordings()
            #expect(unfinished == recordings, "crash at operation \(crashPoint)")
            #expect(try reopened.verify().isClean, "crash at operation \(crashPoint)")
        }
        // After the full compaction: finished recordings are RoutePuts, the unfinished
        // one still resumes and finishes.
        let store = try RouteStore(at: work)
        #expect(try store.statistics().chunkedRoutes == 0)
        let unfinished = recordings.first { !$0.points.isEmpty }!
        let recorder = try store.resumeRecording(unfinished.id)
        #expect(recorder.pointCount == 150)
        let id = try recorder.finish()
        #expect(try store.route(id).withoutUUID == RouteCodec.quantize(Route(points: Fixtures.sampleWalk(seed: 13, points: 150).points,
                                                              splits: Fixtures.sampleWalk(seed: 13, points: 150).splits,
                                                              metadata: RouteMetadata(name: "still going"))))
        print("compaction with recordings crash cases checked: \(checked)")
    }

    /// Truncates the store's index before its last record, as after a crash between a
    /// segment append and its index record.
    static func dropLastIndexRecord(_ url: URL) throws {
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: url.path).first { $0.hasPrefix("index-") })
        let file = try DurableFile.open(url.appendingPathComponent(name).path, flags: O_RDWR, fileSystem: PosixFileSystem.shared)
        var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: try file.size())
        var lastStart: Int64 = Int64(FormatConstants.fileHeaderSize)
        while let record = try scanner.next() { lastStart = record.offset }
        try file.truncate(to: lastStart)
    }

    @Test func aTornChunkAtEveryOffsetLeavesTheChunksBeforeIt() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let (id, _) = try Self.prepare(template)
        let last = try RouteStore(readOnlyAt: template).state.withLock { $0.index.recordings[id]!.chunks.last!.location }
        let segment = "seg-\(String(format: "%08d", last.segment)).rlseg"
        let work = dir.store("work.routelog")
        for cut in last.offset..<last.end {
            try Self.copy(template, to: work)
            let handle = try FileHandle(forWritingTo: work.appendingPathComponent(segment))
            try handle.truncate(atOffset: UInt64(cut))
            try handle.close()
            // The crash came before the chunk's index record was written.
            try Self.dropLastIndexRecord(work)
            let reader = try RouteStore(readOnlyAt: work)
            #expect(try reader.unfinishedRecordings().first?.points == Array(Self.quantized.points.prefix(100)), "cut at \(cut)")
            #expect(reader.state.withLock { $0.tornTails.count } == (cut > last.offset ? 1 : 0), "cut at \(cut)")
            let report = try reader.verify()
            #expect(report.isClean, "cut at \(cut): \(report.problems.map(\.message))")
            guard (cut - last.offset) % 16 == 0 else { continue }  // resuming every byte adds nothing but time
            let store = try RouteStore(at: work)
            try Self.finishRest(store, id)
            #expect(try store.verify().isClean, "cut at \(cut)")
        }
    }

    /// The test recorder executable, built beside this test bundle.
    static func recorderExecutable() -> URL? {
        let names = ["/proc/self/exe", CommandLine.arguments.first ?? ""]
        for start in names where !start.isEmpty {
            var url = URL(fileURLWithPath: start).resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = url.appendingPathComponent("routelog-test-recorder")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                url.deleteLastPathComponent()
            }
        }
        let fallback = Fixtures.packageRoot.appendingPathComponent(".build/debug/routelog-test-recorder")
        return FileManager.default.isExecutableFile(atPath: fallback.path) ? fallback : nil
    }

    /// Runs the recorder, paced: each of its flushes waits for this reader's go. At the
    /// `kills`th flush it is let go and killed with SIGKILL at once (it is then inside
    /// that flush, or about to be, or just past it: never further, so it cannot have
    /// finished); nil `kills` lets it finish. Returns the lines it printed.
    static func runRecorder(_ executable: URL, store: URL, points: Int, batch: Int, killAtFlush kills: Int?) throws -> [String] {
        let process = Process()
        process.executableURL = executable
        process.arguments = [store.path, "31", String(points), String(batch), "--paced"]
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        defer { try? input.fileHandleForWriting.close() }
        var lines: [String] = []
        var buffer = Data()
        var flushes = 0
        reading: while true {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            buffer += data
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[(newline + 1)...])
                lines.append(line)
                if line.hasPrefix("flushing") {
                    flushes += 1
                    try input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
                    if let kills, flushes == kills {
                        kill(process.processIdentifier, SIGKILL)
                        break reading
                    }
                }
            }
        }
        process.waitUntilExit()
        if kills != nil { #expect(process.terminationReason == .uncaughtSignal) } else { #expect(process.terminationStatus == 0) }
        return lines
    }

    @Test func killingTheRecordingProcessKeepsEveryFlushedPoint() throws {
        guard let executable = Self.recorderExecutable() else {
            Issue.record("routelog-test-recorder is not built; run swift build first")
            return
        }
        let dir = TemporaryDirectory()
        let url = dir.store()
        let points = 1200
        let walk = Fixtures.sampleWalk(seed: 31, points: points)  // what the recorder process records
        let quantized = RouteCodec.quantize(walk)
        var resumedFrom = 0
        for (round, kills) in [3, 8, 1, 20, 5].enumerated() {
            let lines = try Self.runRecorder(executable, store: url, points: points, batch: 10, killAtFlush: kills)
            let acknowledged = lines.last { $0.hasPrefix("flushed") }.flatMap { Int($0.split(separator: " ")[1]) } ?? resumedFrom
            let inFlight = lines.last { $0.hasPrefix("flushing") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
            let store = try RouteStore(readOnlyAt: url)
            let recordings = try store.unfinishedRecordings()
            #expect(recordings.count == 1, "round \(round)")
            let flushed = recordings.first?.points.count ?? 0
            // Every flush reported as returned is there; the one in flight is there whole
            // or not at all, and none after it was let go.
            #expect(flushed == acknowledged || flushed == inFlight,
                    "round \(round): \(flushed) points, acknowledged \(acknowledged), in flight \(inFlight)")
            print("killed at flush \(kills): acknowledged \(acknowledged), in flight \(inFlight), found \(flushed)")
            #expect(recordings.first?.points == Array(quantized.points.prefix(flushed)), "round \(round)")
            #expect(recordings.first?.splits == quantized.splits.filter { $0.pointIndex < flushed }, "round \(round)")
            #expect(try store.verify().isClean, "round \(round)")
            resumedFrom = flushed
        }
        let lines = try Self.runRecorder(executable, store: url, points: points, batch: 10, killAtFlush: nil)
        let finished = lines.last { $0.hasPrefix("finished") }.flatMap { RouteID(String($0.split(separator: " ")[1])) }
        let store = try RouteStore(at: url)
        #expect(try store.unfinishedRecordings().isEmpty)
        #expect(try store.summaries().map(\.id) == finished.map { [$0] })
        #expect(try finished.map { try store.route($0).withoutUUID } == quantized)
        #expect(try store.verify().isClean)
    }
}
