import Foundation

/// A log scan run on a thread of its own: the thread reads, checks and unescapes the
/// next records while the caller applies those before them. Opening a large index on
/// two cores then costs about the larger of the two, not their sum.
///
/// The caller sees exactly what ``LogScanner/next()`` would give, in order: the same
/// records, then nil or the scan's error after the records before it. The thread reads
/// on only while the batches it has ready are fewer than ``batchesAhead`` and hold fewer
/// than ``batchesAhead`` batches' bytes, so what it holds ahead of the caller stays
/// bounded: about one large record when a record is larger than that (a run of 48 MiB),
/// as a scan alone holds, not ``batchesAhead`` of them.
///
/// The thread can also make a note of each record (`Note`), work of the caller's it
/// takes over: an index's open has it check every entry of a run and make them rows,
/// so that its own thread only looks them up and appends them. When the caller is
/// waiting for records as the thread reads one, the thread hands that record over at
/// once without a note (nil), and the caller does that work itself: so neither thread
/// waits while the other has work, whichever of the two steps is the slower.
final class ScanAhead<Note: Sendable>: @unchecked Sendable {
    /// Records are handed over in batches of about this many bytes: one lock and
    /// wake-up a batch, not a record.
    let batchBytes: Int
    /// The bytes of ready batches at which the thread waits: ``batchesAhead`` batches'.
    private let roomBytes: Int
    /// Batches the thread may have ready before it waits; their records' bytes too may
    /// reach this many batches' bytes before it waits.
    static var batchesAhead: Int { 4 }

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var ready: [(records: [(ScannedRecord, Note?)], bytes: Int)] = []
    /// The frame bytes of the records in `ready`.
    private var readyBytes = 0
    /// The scanner as it ended (for its damage and tail), or the error that ended it.
    private var outcome: Result<LogScanner, any Error>?
    /// Set by the caller when it wants no more records; the thread then ends.
    private var stopped = false
    /// Set by the thread when it begins; a thread that never began (none could be
    /// made) is given up after `startTimeout`, and the caller scans on its own.
    private var started = false
    private var abandoned = false
    /// Set while the caller waits for a batch.
    private var callerWaits = false

    // The caller's side, used by one thread only.
    private var batch: [(ScannedRecord, Note?)] = []
    private var position = 0
    private let note: @Sendable (ScannedRecord) -> Note?
    /// The scan, kept until the thread begins; the caller's own when it never does.
    private var own: LogScanner?
    /// How long the caller waits for the thread to begin before scanning on its own.
    private let startTimeout: TimeInterval
    /// Called on the thread as it has read each record, before it looks whether the
    /// caller waits for it: tests pace the thread with it to choose who waits.
    private let hasRead: @Sendable () -> Void

    /// Starts scanning with `scanner` on a new thread (a thread of its own, not a
    /// queue's: the caller waits for it, and a pool of busy workers must not stall it).
    /// `startsThread` false stands for a thread that cannot be made, and `hasRead` paces
    /// the thread (both for tests).
    init(_ scanner: LogScanner, batchBytes: Int = 256 << 10, startTimeout: TimeInterval = 5, startsThread: Bool = true,
         hasRead: @escaping @Sendable () -> Void = {}, note: @escaping @Sendable (ScannedRecord) -> Note?) {
        self.note = note
        self.hasRead = hasRead
        self.startTimeout = startTimeout
        self.batchBytes = max(1, batchBytes)
        let (room, overflow) = self.batchBytes.multipliedReportingOverflow(by: Self.batchesAhead)
        roomBytes = overflow ? .max : room
        own = scanner
        let thread = Thread { [self] in
            guard begin() else { return }
            scan(scanner)
        }
        thread.name = "RouteLog.ScanAhead"
        if startsThread { thread.start() }
    }

    /// The next record, as ``LogScanner/next()`` gives it, with its note: nil when the
    /// record needs none or the thread left it to the caller.
    func next() throws -> (record: ScannedRecord, note: Note?)? {
        if position < batch.count {
            position += 1
            return batch[position - 1]
        }
        if abandoned { return try own!.next().map { ($0, nil) } }
        condition.lock()
        while ready.isEmpty && outcome == nil {
            if started {
                callerWaits = true
                condition.wait()
                callerWaits = false
            } else if !condition.wait(until: Date(timeIntervalSinceNow: startTimeout)) && !started {
                // No thread began (none could be made): scan here, as one thread does.
                abandoned = true
                condition.unlock()
                return try next()
            }
        }
        if ready.isEmpty {
            let outcome = outcome!
            condition.unlock()
            batch = []
            position = 0
            if case .failure(let error) = outcome { throw error }
            return nil
        }
        let taken = ready.removeFirst()
        readyBytes -= taken.bytes
        batch = taken.records
        condition.broadcast()
        condition.unlock()
        position = 1
        return batch[0]
    }

    /// The scanner as the scan left it (its damage, valid end and tail), once
    /// ``next()`` returned nil. Nil when the scan ended in an error or was stopped.
    func finish() -> LogScanner? {
        if abandoned { return own }
        waitForTheThread()
        condition.lock()
        defer { condition.unlock() }
        return try? outcome?.get()
    }

    /// Tells the thread to stop and waits for it to end: after this, nothing reads
    /// the file. Called whenever the caller stops early (an error of its own).
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        waitForTheThread()
    }

    private func waitForTheThread() {
        condition.lock()
        while outcome == nil && !abandoned {
            if started {
                condition.wait()
            } else if !condition.wait(until: Date(timeIntervalSinceNow: startTimeout)) && !started {
                abandoned = true
            }
        }
        condition.unlock()
    }

    /// The thread's first step: false when the caller gave up waiting for it.
    private func begin() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !abandoned else { return false }
        started = true
        own = nil
        condition.broadcast()
        return true
    }

    // MARK: The scanning thread

    private func scan(_ start: LogScanner) {
        var scanner = start
        var records: [(ScannedRecord, Note?)] = []
        var bytes = 0
        do {
            while let record = try scanner.next() {
                hasRead()
                // A caller waiting for this record gets it now, and makes its note
                // itself; one that began to wait while the note was made gets the
                // records read so far.
                let notes = Note.self != Void.self
                let waiting = notes && callerIsWaiting()
                records.append((record, waiting ? nil : note(record)))
                bytes += record.frameLength
                if bytes >= batchBytes || waiting || (notes && callerIsWaiting()) {
                    guard hand(records, bytes: bytes, thenWaitForRoom: true) else { return end(.success(scanner)) }
                    records = []
                    bytes = 0
                }
            }
            _ = hand(records, bytes: bytes, thenWaitForRoom: false)
            end(.success(scanner))
        } catch {
            // The records before the error first, as the scanner would give them.
            _ = hand(records, bytes: bytes, thenWaitForRoom: false)
            end(.failure(error))
        }
    }

    /// Whether the caller waits in ``next()`` for records not yet read.
    func callerIsWaiting() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return callerWaits
    }

    /// Queues `records` (`bytes` of frames), then, when the thread is to read on, waits
    /// until there is room for more: the room is checked before reading, not before
    /// queueing, so that the thread never holds a large record it cannot queue while
    /// others wait to be taken. False when the caller stopped.
    private func hand(_ records: [(ScannedRecord, Note?)], bytes: Int, thenWaitForRoom: Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        if !records.isEmpty {
            ready.append((records, bytes))
            readyBytes += bytes
        }
        condition.broadcast()
        guard thenWaitForRoom else { return true }
        while (ready.count >= Self.batchesAhead || readyBytes >= roomBytes) && !stopped { condition.wait() }
        return !stopped
    }

    /// Whether ``next()`` would return without waiting: records are ready or the scan
    /// ended. Asked by the caller.
    var hasRecordsReady: Bool {
        if position < batch.count || abandoned { return true }
        condition.lock()
        defer { condition.unlock() }
        return !ready.isEmpty || outcome != nil
    }

    private func end(_ result: Result<LogScanner, any Error>) {
        condition.lock()
        outcome = result
        condition.broadcast()
        condition.unlock()
    }
}

extension ScanAhead where Note == Void {
    /// A scan ahead that makes no note of its records.
    convenience init(_ scanner: LogScanner, batchBytes: Int = 256 << 10, startTimeout: TimeInterval = 5,
                     startsThread: Bool = true) {
        self.init(scanner, batchBytes: batchBytes, startTimeout: startTimeout, startsThread: startsThread) { _ in nil }
    }
}
