import Foundation
import Testing
@testable import RouteLog

/// `ScanAhead`, the scan on a thread of its own that a large index's open reads
/// through: it gives what `LogScanner` gives (records, damage, valid end, tail, and an
/// I/O error after the records before it) with any batch size, and a caller that stops
/// early is never left waiting and leaves no thread reading, and the records read ahead
/// of the caller stay within `batchesAhead` batches' bytes, however large a record is.
@Suite struct ScanAheadTests {
    struct Outcome: Equatable {
        var records: [LogScannerTests.Record] = []
        var damage: [DamagedRange] = []
        var validEnd: Int64 = 0
        var tail: Int64 = 0
        var error: String?
    }

    static func record(_ r: ScannedRecord) -> LogScannerTests.Record {
        LogScannerTests.Record(type: r.type, flags: r.flags, offset: r.offset, length: r.frameLength, payload: Array(r.payload))
    }

    /// A scanner of `memory`'s file "log", read through `fileSystem` (`memory` itself by default).
    static func scanner(_ memory: MemoryFiles, version: UInt16, through fileSystem: (any FileSystem)? = nil) throws -> LogScanner {
        let file = try DurableFile.open(memory.path("log"), flags: O_RDONLY, fileSystem: fileSystem ?? memory)
        return LogScanner(file: file, from: 0, fileSize: try file.size(), version: version)
    }

    /// What the scanner alone gives.
    static func plain(_ scanner: LogScanner) -> Outcome {
        var scanner = scanner, outcome = Outcome()
        do {
            while let r = try scanner.next() { outcome.records.append(record(r)) }
            outcome.damage = scanner.damage
            outcome.validEnd = scanner.validEnd
            outcome.tail = scanner.tailLength
        } catch {
            outcome.error = "\(error)"
        }
        return outcome
    }

    /// What the scan on its own thread gives (or, without `thread`, on the caller's
    /// after the thread never began).
    static func ahead(_ scanner: LogScanner, batchBytes: Int, thread: Bool = true) -> Outcome {
        let ahead = ScanAhead(scanner, batchBytes: batchBytes, startTimeout: thread ? 5 : 0.02, startsThread: thread)
        defer { ahead.stop() }
        var outcome = Outcome()
        do {
            while let r = try ahead.next()?.record { outcome.records.append(record(r)) }
            #expect(try ahead.next() == nil, "the end stays the end")
            guard let ended = ahead.finish() else {
                Issue.record("a scan that ended without error gives its scanner")
                return outcome
            }
            outcome.damage = ended.damage
            outcome.validEnd = ended.validEnd
            outcome.tail = ended.tailLength
        } catch {
            outcome.error = "\(error)"
            #expect(ahead.finish() == nil, "a scan that ended in an error gives no scanner")
        }
        return outcome
    }

    @Test(arguments: [UInt16(1), 2])
    func damagedLogsGiveWhatTheScannerGives(version: UInt16) throws {
        for seed in UInt64(1)...300 {
            var g = SeededGenerator(seed: seed &* 104_729 &+ UInt64(version))
            let bytes = LogScannerReferenceTests.damagedLog(&g, version: version)
            let memory = MemoryFiles(["log": bytes])
            let expected = Self.plain(try Self.scanner(memory, version: version))
            #expect(!expected.records.isEmpty || bytes.count < 400 || !expected.damage.isEmpty || expected.tail > 0)
            for batchBytes in [1, 200, 1 << 20] {
                let got = Self.ahead(try Self.scanner(memory, version: version), batchBytes: batchBytes)
                #expect(got == expected, "seed \(seed), version \(version), batches of \(batchBytes) bytes")
            }
        }
    }

    /// A thread that never begins (none could be made): the caller gives up waiting
    /// and scans on its own, with the same outcome, and stopping does not hang.
    @Test func aThreadThatNeverBeginsIsDoneWithout() throws {
        var g = SeededGenerator(seed: 7)
        for _ in 0..<20 {
            let bytes = LogScannerReferenceTests.damagedLog(&g, version: 2)
            let memory = MemoryFiles(["log": bytes])
            let expected = Self.plain(try Self.scanner(memory, version: 2))
            #expect(Self.ahead(try Self.scanner(memory, version: 2), batchBytes: 100, thread: false) == expected)
        }
        let memory = MemoryFiles(["log": RecordFrame.encode(type: .indexPut, payload: [1, 2, 3])])
        let ahead = ScanAhead(try Self.scanner(memory, version: 2), startTimeout: 0.02, startsThread: false)
        ahead.stop()
        #expect(ahead.finish() != nil)
    }

    /// Notes: each record comes with the note the thread made of it, or with none when
    /// the caller was waiting as the thread read it (the caller then does that work);
    /// the records are the scanner's either way. The thread is paced so that the test,
    /// not the scheduler, chooses who waits: a caller waiting for every record is given
    /// none with a note, one that never waits is given every note.
    @Test(arguments: [true, false]) func notesAreMadeOrLeftToAWaitingCaller(callerWaits: Bool) throws {
        var g = SeededGenerator(seed: 9)
        var bytes: [UInt8] = []
        for i in 0..<12 {
            bytes += RecordFrame.encode(type: .indexPutRun, payload: [UInt8(i)] + (0..<2_000).map { _ in UInt8.random(in: 0...255, using: &g) })
        }
        let memory = MemoryFiles(["log": bytes])
        let expected = Self.plain(try Self.scanner(memory, version: 2))
        let made = StateLock<ScanAhead<Int>?>(nil)
        let ahead = ScanAhead(try Self.scanner(memory, version: 2), batchBytes: 1, hasRead: {
            // The thread has read a record: when the caller is to wait for each, it
            // looks whether the caller waits only once it does.
            guard callerWaits else { return }
            _ = QuietSyncTests.eventually { made.withLock { $0?.callerIsWaiting() ?? false } }
        }) { record -> Int? in Int(record.payload.first!) * 10 }
        made.withLock { $0 = ahead }
        defer {
            ahead.stop()
            made.withLock { $0 = nil }
        }
        var records: [LogScannerTests.Record] = [], left = 0
        while true {
            // A caller that never waits asks only once the thread has records ready.
            if !callerWaits { #expect(QuietSyncTests.eventually { ahead.hasRecordsReady }) }
            guard let next = try ahead.next() else { break }
            records.append(Self.record(next.record))
            if let note = next.note {
                #expect(note == Int(next.record.payload.first!) * 10, "a note is its own record's")
            } else {
                left += 1
            }
        }
        #expect(records == expected.records)
        #expect(left == (callerWaits ? records.count : 0), "\(left) of \(records.count) left to the caller")
    }

    /// A read that fails part way: the records before it, then the same error.
    @Test func anIOErrorComesAfterTheRecordsBeforeIt() throws {
        var g = SeededGenerator(seed: 5)
        // Records of about 4 MiB in all, so that the scan reads the file in several windows.
        var bytes: [UInt8] = []
        while bytes.count < 4 << 20 {
            let payload = (0..<Int.random(in: 1_000...60_000, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            bytes += RecordFrame.encode(type: .indexPutRun, payload: payload)
        }
        let memory = MemoryFiles(["log": bytes])
        for failingRead in 2...3 {
            func failing() -> InterceptingFileSystem {
                InterceptingFileSystem(base: memory, fault: .init(.kind(.read, failingRead), errno: EIO, .persistent))
            }
            let expected = Self.plain(try Self.scanner(memory, version: 2, through: failing()))
            #expect(expected.error != nil && !expected.records.isEmpty, "read \(failingRead) fails after some records")
            for batchBytes in [1, 100_000, 1 << 20] {
                let got = Self.ahead(try Self.scanner(memory, version: 2, through: failing()), batchBytes: batchBytes)
                #expect(got == expected, "read \(failingRead) failing, batches of \(batchBytes) bytes")
            }
        }
    }

    /// A caller that stops after one record, with the thread waiting for room or still
    /// reading, is not kept waiting; once `stop()` returns the thread reads nothing more.
    @Test func stoppingEarlyEndsTheThread() throws {
        var g = SeededGenerator(seed: 6)
        var bytes: [UInt8] = []
        for _ in 0..<10_000 {
            bytes += RecordFrame.encode(type: .indexPut, payload: (0..<500).map { _ in UInt8.random(in: 0...255, using: &g) })
        }
        let memory = MemoryFiles(["log": bytes])
        for batchBytes in [1, 10_000] {
            let files = InterceptingFileSystem(base: memory)
            let ahead = ScanAhead(try Self.scanner(memory, version: 2, through: files), batchBytes: batchBytes)
            #expect(try ahead.next()?.record.offset == 0)
            ahead.stop()
            let reads = files.count(.read)
            Thread.sleep(forTimeInterval: 0.05)
            #expect(files.count(.read) == reads, "no read after stop()")
            // Batches of one record: the thread was held back by the batches ahead, and
            // did not read the file's 5 MiB.
            if batchBytes == 1 { #expect(reads <= 2) }
            #expect(ahead.finish() != nil, "stopped, not failed")
        }
    }

    /// Records of several MiB each (runs of 48 MiB are what a writer writes): the thread
    /// reads ahead of the caller at most `batchesAhead` batches' bytes, or one batch when
    /// a batch is larger, so a scan ahead holds about what a scan alone holds, not
    /// `batchesAhead` large records more (format-spec.md, "Bounds on hostile files").
    @Test func largeRecordsAreNotReadFarAhead() throws {
        let recordBytes = 4 << 20
        var bytes: [UInt8] = []
        for i in 0..<10 { bytes += RecordFrame.encode(type: .indexPutRun, payload: [UInt8](repeating: UInt8(i), count: recordBytes)) }
        let memory = MemoryFiles(["log": bytes])
        final class Furthest: @unchecked Sendable {
            let lock = NSLock()
            var end: Int64 = 0
        }
        let furthest = Furthest()
        let files = InterceptingFileSystem(base: memory)
        files.observe { operation in
            guard case .read(_, let offset, let count) = operation else { return }
            furthest.lock.withLock { furthest.end = max(furthest.end, offset + Int64(count)) }
        }
        let ahead = ScanAhead(try Self.scanner(memory, version: 2, through: files))
        defer { ahead.stop() }
        #expect(try ahead.next()?.record.offset == 0)
        // The caller holds the first record; the thread may read the next one (and the
        // window's read past it, of at most 1 MiB and a quarter) and then waits, however
        // long the caller takes. Without the bound in bytes it read five records ahead.
        Thread.sleep(forTimeInterval: 0.3)
        let frameBytes = bytes.count / 10
        let read = furthest.lock.withLock { furthest.end }
        #expect(read <= Int64(2 * frameBytes + 2 * ScanWindow.readSize), "read \(read) bytes of \(bytes.count) with one \(frameBytes)-byte record taken")
        var offsets: [Int64] = [0]
        while let record = try ahead.next()?.record { offsets.append(record.offset) }
        #expect(offsets == (0..<10).map { Int64($0 * frameBytes) }, "every record still comes, in order")
        #expect(ahead.finish()?.validEnd == Int64(bytes.count))
    }
}
