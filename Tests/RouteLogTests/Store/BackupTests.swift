import Foundation
import Testing
@testable import RouteLog

@Suite(.timeLimit(.minutes(2))) struct BackupTests {
    /// One thread saves while another backs up `rounds` times into the same
    /// destination: every backup verifies clean (its own check, in the report) and
    /// holds every route acknowledged before it began. The saver keeps at most two
    /// rounds' worth of routes ahead of the backups: it is saving while each backup
    /// runs, yet the store (and with it each backup's copy and verification) stays
    /// small however fast it runs. Each backup's first write into the destination
    /// waits for a save acknowledged after the backup began, so that every round
    /// saves while a backup runs, however the threads are scheduled.
    @Test func backupsWhileSavingHoldEveryAcknowledgedRoute() throws {
        let (rounds, perRound) = (8, 6)
        let dir = TemporaryDirectory()
        let fs = HookedFileSystem()
        let store = try RouteStore(at: dir.store(), options: .init(segmentSizeLimit: 32 << 10), fileSystem: fs)
        let acknowledged = StateLock<Set<RouteID>>([])
        let stop = StateLock(false)
        let roundsDone = StateLock(0)
        let saverDone = DispatchSemaphore(value: 0)
        let saver = Thread {
            defer { saverDone.signal() }
            var routes = RandomRoutes(seed: 41)
            while !stop.withLock({ $0 }) {
                if acknowledged.withLock({ $0.count }) >= (roundsDone.withLock { $0 } + 2) * perRound {
                    usleep(1000)
                    continue
                }
                guard let id = try? store.save(routes.next()) else { break }
                acknowledged.withLock { _ = $0.insert(id) }
            }
        }
        saver.start()
        defer {
            stop.withLock { $0 = true }
            saverDone.wait()
        }
        let destination = dir.url.appendingPathComponent("backup.routelog")
        // The count of acknowledged routes the running backup waits to see passed.
        let waitingToPass = StateLock<Int?>(nil), waits = StateLock(0)
        // On Linux the backup writes through its held directory, /proc/self/fd/N; the
        // store's own files are never reached that way.
        fs.before { call, path in
            guard call == "write", path.hasPrefix(destination.path + "/") || path.hasPrefix("/proc/self/fd/"),
                  let count = waitingToPass.withLock({ $0 }) else { return }
            _ = QuietSyncTests.eventually { acknowledged.withLock { $0.count } > count }
            waitingToPass.withLock { $0 = nil }
            waits.withLock { $0 += 1 }
        }
        defer { fs.before(nil) }
        var reusedAny = false
        var savedDuringABackup = true
        for round in 0..<rounds {
            while acknowledged.withLock({ $0.count }) < (round + 1) * perRound { usleep(1000) }
            let before = acknowledged.withLock { $0 }
            waitingToPass.withLock { $0 = before.count }
            let report = try store.backup(to: destination)
            savedDuringABackup = savedDuringABackup && acknowledged.withLock { $0.count } > before.count
            reusedAny = reusedAny || report.segmentsReused > 0
            #expect(report.verification.isClean, "round \(round): \(report.verification.problems)")
            let copy = try RouteStore(at: destination, options: .init(mode: .readOnly))
            let held = Set(try copy.summaries().map(\.id))
            #expect(before.isSubset(of: held), "round \(round): \(before.subtracting(held).count) acknowledged routes missing")
            #expect(held.isSubset(of: Set(try store.summaries().map(\.id))), "round \(round): the backup holds a route the store never had")
            try copy.close()
            roundsDone.withLock { $0 += 1 }
        }
        stop.withLock { $0 = true }
        #expect(reusedAny, "later backups kept the sealed segments of earlier ones")
        #expect(savedDuringABackup, "the saver saved while each backup ran")
        #expect(waits.withLock { $0 } == rounds, "each backup's first write waited for a save")
    }

    @Test func anIncrementalBackupRewritesOnlyWhatDiffers() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(segmentSizeLimit: 16 << 10))
        var routes = RandomRoutes(seed: 42)
        for _ in 0..<40 { try store.save(routes.next()) }
        let destination = dir.url.appendingPathComponent("backup.routelog")
        let first = try store.backup(to: destination)
        #expect(first.segmentsReused == 0 && first.segmentsCopied > 2)
        let second = try store.backup(to: destination)
        #expect(second.segmentsCopied == 0 && second.segmentsReused == first.segmentsCopied)
        // A kept segment whose bytes differ from the store's is written again.
        let segment = destination.appendingPathComponent(FormatConstants.segmentName(1))
        var bytes = try Data(contentsOf: segment)
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: segment)
        let third = try store.backup(to: destination)
        #expect(third.segmentsCopied == 1 && third.segmentsReused == first.segmentsCopied - 1)
        #expect(third.routeCount == 40)
        // Deleted and compacted away in the store: the backup follows, and drops files it no longer needs.
        for summary in try store.summaries().prefix(30) { try store.delete(summary.id) }
        try store.compact()
        let fourth = try store.backup(to: destination)
        #expect(fourth.routeCount == 10)
        let names = try FileManager.default.contentsOfDirectory(atPath: destination.path)
        let listed = try FileManager.default.contentsOfDirectory(atPath: dir.store().path).filter { $0.hasPrefix("seg") || $0.hasPrefix("index") }
        #expect(Set(names.filter { $0.hasPrefix("seg") || $0.hasPrefix("index") }) == Set(listed))
    }

    /// A store holding one route, beside a folder `real` and a symbolic link `link` to it.
    static func storeBesideALink(seed: UInt64) throws -> (dir: TemporaryDirectory, store: RouteStore, real: URL, link: URL) {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: seed)
        try store.save(routes.next())
        let real = dir.url.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
        let link = dir.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        return (dir, store, real, link)
    }

    @Test func aDestinationThatIsNoDirectoryForABackupIsRefusedUntouched() throws {
        let (dir, store, real, link) = try Self.storeBesideALink(seed: 43)
        let fm = FileManager.default
        let file = dir.url.appendingPathComponent("file")
        try Data("keep".utf8).write(to: file)
        let stranger = dir.url.appendingPathComponent("photos")
        try fm.createDirectory(at: stranger, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: stranger.appendingPathComponent("IMG_1.jpg"))
        for target in [link, file, stranger, dir.store()] {
            #expect(throws: RouteLogError.self) { try store.backup(to: target) }
        }
        #expect(try fm.contentsOfDirectory(atPath: real.path).isEmpty)
        #expect(try Data(contentsOf: file) == Data("keep".utf8))
        #expect(try fm.contentsOfDirectory(atPath: stranger.path) == ["IMG_1.jpg"])
        #expect(try store.verify().isClean)
    }

    /// A destination that is the store, or inside its directory, by real path: through
    /// symbolic links (to the store, to a folder in it), `..` after a link, or a missing
    /// folder under either. Refused before anything is written.
    @Test func aDestinationInsideTheStoreIsRefusedByRealPath() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url)
        var routes = RandomRoutes(seed: 44)
        try store.save(routes.next())
        let fm = FileManager.default
        let attic = url.appendingPathComponent("attic")
        try fm.createDirectory(at: attic, withIntermediateDirectories: false)
        let toStore = dir.url.appendingPathComponent("to-store"), toAttic = dir.url.appendingPathComponent("to-attic")
        try fm.createSymbolicLink(at: toStore, withDestinationURL: url)
        try fm.createSymbolicLink(at: toAttic, withDestinationURL: attic)
        let loop = dir.url.appendingPathComponent("loop")
        try fm.createSymbolicLink(atPath: loop.path, withDestinationPath: loop.path)
        let names = try fm.contentsOfDirectory(atPath: url.path).sorted()
        let inside = [url.path + "/b", attic.path, attic.path + "/new/deeper", toStore.path, toStore.path + "/b", toAttic.path,
                      toAttic.path + "/b", toAttic.path + "/../b", toAttic.path + "/..", attic.path + "/..", url.path + "/./b"]
        for target in inside {
            #expect {
                try store.backup(to: URL(fileURLWithPath: target))
            } throws: { error in
                let error = error as? RouteLogError
                return error?.code == .invalidArgument && error?.path == URL(fileURLWithPath: target).path
                    && error?.message.contains("give a path outside the store's directory") == true
            }
            #expect(try fm.contentsOfDirectory(atPath: url.path).sorted() == names, "\(target)")
            #expect(try fm.contentsOfDirectory(atPath: attic.path).isEmpty, "\(target)")
        }
        // A path that cannot be resolved (a link that leads to itself) is refused too.
        #expect(throws: RouteLogError.self) { try store.backup(to: loop.appendingPathComponent("b")) }
        // Beside the store, reached through `..` from inside it: a backup like any other.
        let beside = try store.backup(to: URL(fileURLWithPath: attic.path + "/../../beside.routelog"))
        #expect(beside.routeCount == 1)
        #expect(fm.fileExists(atPath: dir.url.appendingPathComponent("beside.routelog/MANIFEST").path))
        #expect(try store.verify().isClean)
    }

    @Test func aReadOnlyHandleBacksUpWhatItSees() throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 44)
        let ids = try writer.save((0..<5).map { _ in routes.next() })
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        try writer.save(routes.next())
        let destination = dir.url.appendingPathComponent("backup.routelog")
        let report = try reader.backup(to: destination)
        #expect(report.routeCount == 5)
        let copy = try RouteStore(at: destination)  // a backup is a store: it opens for writing too
        #expect(Set(try copy.summaries().map(\.id)) == Set(ids))
        try copy.save(routes.next())
        #expect(try copy.verify().isClean)
    }

    /// close() while a backup runs: the backup either finishes whole or gives up with
    /// `.closed`; the destination holds a clean store or none.
    @Test func closingTheStoreWhileABackupRuns() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(segmentSizeLimit: 8 << 10))
        var routes = RandomRoutes(seed: 45)
        try store.save((0..<200).map { _ in routes.next() })
        let destination = dir.url.appendingPathComponent("backup.routelog")
        let outcome = StateLock<Result<BackupReport, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result { try store.backup(to: destination) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        try store.close()
        done.wait()
        switch outcome.withLock({ $0 })! {
        case .success(let report):
            #expect(report.routeCount == 200)
        case .failure(let error):
            #expect((error as? RouteLogError)?.code == .closed)
        }
        if FileManager.default.fileExists(atPath: destination.appendingPathComponent("MANIFEST").path) {
            let copy = try RouteStore(at: destination, options: .init(mode: .readOnly))
            #expect(try copy.verify().isClean)
            #expect(try copy.count == 200)
        }
    }

    @Test func aCancelledAsyncBackupWritesNothing() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 46)
        try store.save(routes.next())
        let destination = dir.url.appendingPathComponent("backup.routelog")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.async.backup(to: destination)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let report = try await store.async.backup(to: destination)
        #expect(report.routeCount == 1)
    }
}
