import Foundation
import Testing
@testable import RouteLog

/// Attacks on the handoff between the read-ahead thread and the thread that opens a
/// large index (a run made into rows with a note, or handed over raw when the opening
/// thread waits): opens of a large store in a row and from several threads at once
/// give the same store every time; damage in the middle of a large index falls back as
/// for a small one; and a scan whose notes and caller are slow in turn loses, repeats
/// and reorders no record, and its thread ends at `stop()`.
@Suite struct ScanAheadHandoffAttackTests {
    typealias View = ([RouteSummary], [RouteID: RouteMetadata], Int, Int)

    /// A reader's view of `url` (listing, every route's metadata, counts), and whether
    /// its open rebuilt the index from the segments.
    static func view(_ url: URL) throws -> (view: View, rebuilt: Bool) {
        let store = try RouteStore(at: url, options: .init(mode: .readOnly))
        defer { try? store.close() }
        let rebuilt = store.state.withLock { $0.indexRebuilt }
        let summaries = try store.summaries()
        var metadata: [RouteID: RouteMetadata] = [:]
        for summary in summaries { metadata[summary.id] = try store.metadata(summary.id) }
        let statistics = try store.statistics()
        return ((summaries, metadata, statistics.liveRoutes, statistics.deletedRoutes), rebuilt)
    }

    static func same(_ a: View, _ b: View) -> Bool { a.0 == b.0 && a.1 == b.1 && a.2 == b.2 && a.3 == b.3 }

    /// The view of a copy of `url` with its index files removed (the segments alone).
    static func fromSegments(_ url: URL, _ dir: TemporaryDirectory, _ name: String) throws -> View {
        let copy = dir.store(name)
        try FileManager.default.copyItem(at: url, to: copy)
        try Fixtures.removeIndexFiles(in: copy)
        let (view, rebuilt) = try Self.view(copy)
        #expect(rebuilt)
        return view
    }

    // MARK: Opens in a row and at once

    /// A large index (read ahead) opened read-only 8 times in a row, then by 4 threads
    /// 3 times each at once: every open uses the index (no rebuild) and gives the view
    /// the segments give.
    @Test func aLargeIndexOpensAlikeInARowAndAtOnce() throws {
        let dir = TemporaryDirectory()
        let url = try IndexScanAheadTests.make(dir)
        let size = try FileManager.default.attributesOfItem(atPath: try IndexScanAheadTests.indexPath(url))[.size] as! Int
        #expect(Int64(size) >= IndexRecovery.scanAheadFileBytes)
        let expected = try Self.fromSegments(url, dir, "segments.routelog")
        #expect(expected.2 == 1_360)
        for i in 0..<8 {
            let (view, rebuilt) = try Self.view(url)
            #expect(!rebuilt && Self.same(view, expected), "open \(i) in a row")
        }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var outcomes: [String] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in 0..<3 {
                let outcome: String
                do {
                    let (view, rebuilt) = try Self.view(url)
                    outcome = rebuilt ? "rebuilt" : Self.same(view, expected) ? "same" : "different"
                } catch {
                    outcome = "error \(error)"
                }
                results.lock.withLock { results.outcomes.append("\(worker).\(i) \(outcome)") }
            }
        }
        #expect(results.outcomes.count == 12)
        #expect(results.outcomes.allSatisfy { $0.hasSuffix(" same") }, "\(results.outcomes.sorted())")
    }

    // MARK: Damage in the middle

    /// A large index damaged in the middle, several ways: a flipped byte at several
    /// places (damage: rebuilt from the segments), a cut through a record at several
    /// places (a torn tail: the records before it kept, the rest caught up from the
    /// segments), and a frame whose checksum holds but whose run is cut short inside
    /// (a forged index: rebuilt). Each is opened read-only twice, and the view is the
    /// segments' every time.
    @Test func aLargeIndexDamagedInTheMiddleFallsBackAsASmallOne() throws {
        let dir = TemporaryDirectory()
        let url = try IndexScanAheadTests.make(dir)
        let expected = try Self.fromSegments(url, dir, "segments.routelog")
        let indexBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try IndexScanAheadTests.indexPath(url))))
        var cases: [(name: String, bytes: [UInt8], rebuilt: Bool)] = []
        for fraction in [0.2, 0.45, 0.55, 0.8] {
            var flipped = indexBytes
            flipped[Int(Double(indexBytes.count) * fraction)] ^= 0x04
            cases.append(("flip at \(fraction)", flipped, true))
        }
        for fraction in [0.3, 0.5, 0.7] {
            // Torn tails keep the index, the records cut away found in the segments.
            cases.append(("cut at \(fraction)", Array(indexBytes.prefix(Int(Double(indexBytes.count) * fraction))), false))
        }
        // A run cut short inside a frame that checks: take the records, cut the middle
        // run's payload by 3 bytes and frame it again.
        let file = try DurableFile.open(try IndexScanAheadTests.indexPath(url), flags: O_RDONLY, fileSystem: PosixFileSystem.shared)
        var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: try file.size())
        var records: [(type: UInt8, payload: [UInt8])] = []
        while let record = try scanner.next() { records.append((record.type, Array(record.payload))) }
        let runs = records.indices.filter { records[$0].type == FormatConstants.RecordType.indexPutRun.rawValue }
        #expect(runs.count >= 2, "\(runs.count) runs")
        var forged = Array(indexBytes.prefix(FormatConstants.fileHeaderSize))
        for (i, record) in records.enumerated() {
            let payload = i == runs[1] ? Array(record.payload.dropLast(3)) : record.payload
            forged += RecordFrame.encode(type: FormatConstants.RecordType(rawValue: record.type)!, payload: payload)
        }
        #expect(forged.count == indexBytes.count - 3, "the index framed again is the file")
        cases.append(("a run cut inside a checked frame", forged, true))

        for (i, damage) in cases.enumerated() {
            let copy = dir.store("copy\(i).routelog")
            try FileManager.default.copyItem(at: url, to: copy)
            try Data(damage.bytes).write(to: URL(fileURLWithPath: try IndexScanAheadTests.indexPath(copy)))
            for attempt in 0..<2 {
                let (view, rebuilt) = try Self.view(copy)
                #expect(rebuilt == damage.rebuilt, "\(damage.name), open \(attempt): rebuilt \(rebuilt)")
                #expect(Self.same(view, expected), "\(damage.name), open \(attempt)")
            }
        }
    }

    // MARK: Slow notes and a slow caller in turn

    final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var notes: [Int64] = []
        var afterStop = 0
        var stopped = false
    }

    /// Records whose first payload byte is their number, 60 of them.
    static func log() -> [UInt8] {
        var g = SeededGenerator(seed: 1_207)
        var bytes: [UInt8] = []
        for i in 0..<60 {
            bytes += RecordFrame.encode(type: .indexPutRun,
                                        payload: [UInt8(i)] + (0..<Int.random(in: 100...3_000, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) })
        }
        return bytes
    }

    /// In turns of 5 records, the notes are slow (2 ms) and the caller quick, then the
    /// caller slow and the notes quick, with batches of one record and of about five:
    /// every record comes once, in order, with its own note or none (never another's);
    /// a note is made at most once a record; the scan ends with the scanner's end.
    @Test(arguments: [1, 10_000])
    func slowNotesAndASlowCallerInTurnLoseNothing(batchBytes: Int) throws {
        let memory = MemoryFiles(["log": Self.log()])
        let expected = ScanAheadTests.plain(try ScanAheadTests.scanner(memory, version: 2))
        #expect(expected.records.count == 60)
        let counter = Counter()
        let ahead = ScanAhead(try ScanAheadTests.scanner(memory, version: 2), batchBytes: batchBytes) { record -> Int? in
            let n = Int(record.payload.first!)
            if (n / 5) % 2 == 0 { Thread.sleep(forTimeInterval: 0.002) }
            counter.lock.withLock { counter.notes.append(record.offset) }
            return n * 3 + 1
        }
        defer { ahead.stop() }
        var records: [LogScannerTests.Record] = [], left = 0
        while let next = try ahead.next() {
            let n = Int(next.record.payload.first!)
            records.append(ScanAheadTests.record(next.record))
            if let note = next.note {
                #expect(note == n * 3 + 1, "record \(n) comes with its own note")
            } else {
                left += 1
            }
            if (n / 5) % 2 == 1 { Thread.sleep(forTimeInterval: 0.002) }
        }
        #expect(records == expected.records, "every record once, in order")
        let notes = counter.lock.withLock { counter.notes }
        #expect(Set(notes).count == notes.count, "no record noted twice")
        #expect(notes == notes.sorted(), "notes made in order")
        #expect(notes.count + left >= 60, "a record without a note was not noted (\(notes.count) notes, \(left) left)")
        #expect(ahead.finish()?.validEnd == expected.validEnd)
    }

    /// A caller that stops part way through the turns, while the thread makes a slow
    /// note or waits for room: `stop()` returns (a hang would never end the run), after it no note is made and no read
    /// happens, and the scan ends stopped (a scanner, not an error).
    @Test(arguments: [1, 10_000])
    func stoppingDuringTheTurnsEndsTheThread(batchBytes: Int) throws {
        let memory = MemoryFiles(["log": Self.log()])
        for stopAfter in [1, 7, 12, 33] {
            let files = InterceptingFileSystem(base: memory)
            let counter = Counter()
            let ahead = ScanAhead(try ScanAheadTests.scanner(memory, version: 2, through: files), batchBytes: batchBytes) { record -> Int? in
                let n = Int(record.payload.first!)
                if (n / 5) % 2 == 0 { Thread.sleep(forTimeInterval: 0.003) }
                counter.lock.withLock {
                    if counter.stopped { counter.afterStop += 1 }
                    counter.notes.append(record.offset)
                }
                return n
            }
            var taken = 0
            while taken < stopAfter, let next = try ahead.next() {
                #expect(Int(next.record.payload.first!) == taken)
                taken += 1
                if (taken / 5) % 2 == 1 { Thread.sleep(forTimeInterval: 0.002) }
            }
            ahead.stop()
            counter.lock.withLock { counter.stopped = true }
            let reads = files.count(.read)
            Thread.sleep(forTimeInterval: 0.03)
            #expect(files.count(.read) == reads, "no read after stop() (stop after \(stopAfter))")
            #expect(counter.lock.withLock { counter.afterStop } == 0, "no note after stop() (stop after \(stopAfter))")
            #expect(ahead.finish() != nil, "stopped, not failed")
        }
    }
}
