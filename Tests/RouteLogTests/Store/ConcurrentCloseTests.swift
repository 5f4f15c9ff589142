import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// close() called from several places at once. A close() that finds another under way
/// returns once that one has let the store go (its descriptors closed, `LOCK` and the
/// directory unlocked), so that the store opens again at once; here the first close()
/// is held up just before it unlocks `LOCK`, and the others must not return before it
/// goes on. A close() called from a thread the first one waits for (the first's own, a
/// subscriber's delivery of a commit, of a compaction or of a followed writer's change,
/// a change of settings) returns at once instead of waiting for itself. Every wait here
/// is bounded: a deadlock fails the test instead of hanging it.
@Suite struct ConcurrentCloseTests {
    /// The file system, holding up the writer's unlocking of `LOCK` once armed: the
    /// close() that reaches it stops with the store still locked, until ``resume()``.
    final class HeldLockRelease: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem = PosixFileSystem.shared
        private let armed = StateLock(false)
        private let resumed = DispatchSemaphore(value: 0)
        /// Signalled when a close() is held up.
        let reached = DispatchSemaphore(value: 0)

        /// Run instead of the hold, on the thread of the close() that reaches it, once armed.
        let instead = StateLock<(@Sendable () -> Void)?>(nil)

        func arm() { armed.withLock { $0 = true } }
        func resume() { resumed.signal() }

        func unlock(_ file: FileRef) {
            if file.path.hasSuffix("/" + FormatConstants.lockName), armed.withLock({ was in defer { was = false }; return was }) {
                if let instead = instead.withLock({ $0 }) {
                    instead()
                } else {
                    reached.signal()
                    _ = resumed.wait(timeout: .now() + 60)
                }
            }
            base.unlock(file)
        }
    }

    /// Work on a thread of its own: whether it has ended, and what it threw.
    final class Background: Sendable {
        private let ended = DispatchSemaphore(value: 0)
        private let state = StateLock((done: false, error: String?.none))

        init(_ body: @escaping @Sendable () throws -> Void) {
            Thread { [self] in
                var failure: String?
                do { try body() } catch { failure = "\(error)" }
                state.withLock { $0.error = failure }
                ended.signal()
            }.start()
        }

        /// Whether it ended within `seconds`.
        func ends(within seconds: Double) -> Bool {
            if state.withLock({ $0.done }) { return true }
            guard ended.wait(timeout: .now() + seconds) == .success else { return false }
            state.withLock { $0.done = true }
            return true
        }

        var error: String? { state.withLock { $0.error } }
    }

    /// A writer on `fs` with a route saved.
    func writer(in dir: TemporaryDirectory, fs: any FileSystem = PosixFileSystem.shared) throws -> (URL, RouteStore) {
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs)
        _ = try store.save(Fixtures.sampleWalk(seed: 1, points: 50))
        return (url, store)
    }

    /// Starts a close() of `store` on a thread of its own, and returns once it is held up
    /// at `LOCK`'s unlocking.
    func closeHeldAtLOCK(_ store: RouteStore, _ fs: HeldLockRelease) -> Background {
        fs.arm()
        let first = Background { try store.close() }
        #expect(fs.reached.wait(timeout: .now() + 30) == .success, "the first close() never reached LOCK's unlocking")
        return first
    }

    /// Nothing of this process is open under `url` (unless `descriptors` is false: a
    /// read under way keeps its segment until it ends), no writer holds it, and a writer
    /// opens it at once: what a close() that returned promises.
    static func letGo(_ url: URL, descriptors: Bool = true) -> String? {
        let held = descriptors ? ParquetExportDescriptorTests.held(under: url) : []
        guard held.isEmpty else { return "still open: \(held)" }
        if let holder = RouteStore.writerProcess(at: url) { return "still locked by \(holder)" }
        do {
            try RouteStore(at: url).close()
        } catch {
            return "a new writer could not open the store: \(error)"
        }
        return nil
    }

    @Test func aSecondCloseReturnsOnlyOnceTheFirstHasLetTheStoreGo() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let dir = TemporaryDirectory()
        let fs = HeldLockRelease()
        let (url, store) = try writer(in: dir, fs: fs)
        let first = closeHeldAtLOCK(store, fs)
        let afterSecond = StateLock<String??>(nil)
        let second = Background {
            try store.close()
            afterSecond.withLock { $0 = .some(Self.letGo(url)) }
        }
        #expect(!second.ends(within: 0.3), "the second close() returned while the first still held the store")
        fs.resume()
        #expect(second.ends(within: 30) && first.ends(within: 30))
        #expect(first.error == nil && second.error == nil, "\(first.error ?? "") \(second.error ?? "")")
        #expect(afterSecond.withLock { $0 } == .some(nil), "after the second close() returned: \(String(describing: afterSecond.withLock { $0 }))")
        // And later calls return at once.
        try store.close()
    }

    @Test func manyClosesAtOnceAllReturnOnceTheStoreIsLetGo() throws {
        let dir = TemporaryDirectory()
        let fs = HeldLockRelease()
        let (url, store) = try writer(in: dir, fs: fs)
        let first = closeHeldAtLOCK(store, fs)
        let returned = StateLock([String?]())
        let others = (0..<16).map { _ in
            Background {
                try store.close()
                let holder = RouteStore.writerProcess(at: url)
                returned.withLock { $0.append(holder.map { "still locked by \($0)" }) }
            }
        }
        usleep(300_000)
        #expect(returned.withLock { $0.count } == 0, "close() calls returned while the first still held the store")
        fs.resume()
        #expect(first.ends(within: 30))
        #expect(others.allSatisfy { $0.ends(within: 30) }, "a close() never returned")
        #expect(others.compactMap(\.error).isEmpty && first.error == nil)
        #expect(returned.withLock { $0 } == Array(repeating: nil, count: 16))
        #expect(Self.letGo(url) == nil)
    }

    /// A subscriber told of the end as close() ends the subscriptions, on close()'s own
    /// thread, closes the store again: that close() returns at once.
    @Test func aCloseFromASubscriberToldOfTheEndReturnsAtOnce() throws {
        let dir = TemporaryDirectory()
        let (url, store) = try writer(in: dir)
        let again = StateLock(false)
        _ = store.changeHub.subscribe(ChangeHub.Subscriber(deliver: { _ in }, finish: { [weak store] _ in
            try? store?.close()
            again.withLock { $0 = true }
        }))
        let closing = Background { try store.close() }
        #expect(closing.ends(within: 30), "close() from the subscriber waited for the close() that called it")
        #expect(again.withLock { $0 })
        #expect(Self.letGo(url) == nil)
    }

    /// Work that close() itself runs calls close() again, on close()'s thread (here the
    /// file system, as close() unlocks `LOCK`): that close() returns at once.
    @Test func aCloseReenteredOnTheClosingThreadReturnsAtOnce() throws {
        let dir = TemporaryDirectory()
        let fs = HeldLockRelease()
        let (url, store) = try writer(in: dir, fs: fs)
        let again = StateLock(false)
        fs.instead.withLock { $0 = { [weak store] in
            try? store?.close()
            again.withLock { $0 = true }
        } }
        fs.arm()
        let closing = Background { try store.close() }
        #expect(closing.ends(within: 30), "close() re-entered on its own thread waited for itself")
        #expect(again.withLock { $0 })
        #expect(Self.letGo(url) == nil)
    }

    /// From `place`, a thread that the close() started there waits for: starts a close()
    /// on another thread, lets it reach its wait, then closes the store itself, which
    /// must return at once; says whether it did.
    final class CloseFromAThreadCloseWaitsFor: Sendable {
        let store: RouteStore
        private let state = StateLock((started: false, returned: false))
        private let others = StateLock<Background?>(nil)

        init(_ store: RouteStore) { self.store = store }

        /// Called on that thread; does its work the first time only.
        func closeTwice() {
            guard state.withLock({ s in defer { s.started = true }; return !s.started }) else { return }
            let store = self.store
            others.withLock { $0 = Background { try store.close() } }
            _ = QuietSyncTests.eventually { store.state.withLock { $0.lifecycle != .open } }
            usleep(50_000)  // the other close() goes on to its wait for this thread
            try? store.close()
            state.withLock { $0.returned = true }
        }

        var returned: Bool { state.withLock { $0.returned } }
        var started: Bool { state.withLock { $0.started } }
        /// Whether the other close() ended within `seconds`.
        func otherEnds(within seconds: Double) -> Bool { others.withLock { $0 }?.ends(within: seconds) ?? false }
    }

    /// Both of `twice`'s closes returned, and the store at `url` is let go.
    static func expectBothClosesReturned(_ twice: CloseFromAThreadCloseWaitsFor, _ url: URL,
                                         sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(twice.started && twice.returned, sourceLocation: sourceLocation)
        #expect(twice.otherEnds(within: 30), sourceLocation: sourceLocation)
        #expect(letGo(url) == nil, sourceLocation: sourceLocation)
    }

    /// A subscriber hears of a save while the save's group holds the writer lock, which
    /// the other close() waits for.
    @Test func aCloseFromTheDeliveryOfACommitReturnsAtOnce() throws {
        let dir = TemporaryDirectory()
        let (url, store) = try writer(in: dir)
        let twice = CloseFromAThreadCloseWaitsFor(store)
        _ = store.changeHub.subscribe(ChangeHub.Subscriber(deliver: { _ in twice.closeTwice() }, finish: { _ in }))
        let saving = Background { _ = try store.save(Fixtures.sampleWalk(seed: 2, points: 50)) }
        #expect(saving.ends(within: 30), "the save whose delivery closed the store never returned")
        Self.expectBothClosesReturned(twice, url)
    }

    /// A subscriber hears of a compaction on the compaction's thread, which the other
    /// close() waits for.
    @Test func aCloseFromTheDeliveryOfACompactionReturnsAtOnce() throws {
        let dir = TemporaryDirectory()
        let (url, store) = try writer(in: dir)
        var ids: [RouteID] = []
        for seed in 0..<20 { ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(10 + seed), points: 200))) }
        for id in ids.prefix(18) { try store.delete(id) }
        let twice = CloseFromAThreadCloseWaitsFor(store)
        _ = store.changeHub.subscribe(ChangeHub.Subscriber(deliver: { changes in
            if changes.contains(.compacted) { twice.closeTwice() }
        }, finish: { _ in }))
        let compacting = Background { _ = try store.compact() }
        #expect(compacting.ends(within: 30), "the compaction whose delivery closed the store never returned")
        Self.expectBothClosesReturned(twice, url)
    }

    /// A change of settings holds the writer lock, which the other close() waits for.
    @Test func aCloseFromAChangeOfSettingsReturnsAtOnce() throws {
        let dir = TemporaryDirectory()
        let (url, store) = try writer(in: dir)
        let twice = CloseFromAThreadCloseWaitsFor(store)
        let changing = Background {
            try? store.updateSettings { settings in
                twice.closeTwice()
                settings.privacyZones = [try PrivacyZone(center: Coordinate(latitude: 45, longitude: 9), radius: 200)]
            }
        }
        #expect(changing.ends(within: 30), "the change of settings that closed the store never returned")
        Self.expectBothClosesReturned(twice, url)
    }

    /// The first close() called from inside a change of settings would wait for the
    /// writer lock its own thread holds: it is refused, the store left open.
    @Test func theFirstCloseFromAChangeOfSettingsIsRefused() throws {
        let dir = TemporaryDirectory()
        let (url, store) = try writer(in: dir)
        let refused = StateLock<RouteLogError?>(nil)
        let changing = Background {
            try store.updateSettings { settings in
                do { try store.close() } catch let error as RouteLogError { refused.withLock { $0 = error } }
                settings.privacyZones = [try PrivacyZone(center: Coordinate(latitude: 45, longitude: 9), radius: 200)]
            }
        }
        #expect(changing.ends(within: 30), "close() from inside the change waited for the lock its thread holds")
        #expect(changing.error == nil)
        #expect(refused.withLock { $0?.code } == .invalidArgument)
        #expect(try store.settings().privacyZones.count == 1, "the store stayed open, and the change was made")
        try store.close()
        #expect(Self.letGo(url) == nil)
    }

    /// A read-only handle following a writer delivers the writer's save from the
    /// following's queue, holding the deliveries, which the other close() waits for to
    /// end the subscriptions.
    @Test func aCloseFromTheDeliveryOfAFollowedChangeReturnsAtOnce() throws {
        let dir = TemporaryDirectory()
        let (url, writer) = try writer(in: dir)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        let twice = CloseFromAThreadCloseWaitsFor(reader)
        _ = reader.changeHub.subscribe(ChangeHub.Subscriber(deliver: { _ in twice.closeTwice() }, finish: { _ in }))
        _ = try writer.save(Fixtures.sampleWalk(seed: 3, points: 50))
        #expect(QuietSyncTests.eventually { twice.returned }, "the follower's delivery that closed the reader never went on")
        #expect(twice.otherEnds(within: 30))
        try writer.close()
        #expect(Self.letGo(url) == nil)
    }

    /// A close() from an export's or a verify's progress, while a close() from another
    /// thread is held up: the work's thread is not one close() waits for, so this close()
    /// waits too, and returns once the store is let go.
    @Test(arguments: ["export", "verify"]) func aCloseFromAProgressWaitsForTheCloseUnderWay(work: String) throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let dir = TemporaryDirectory()
        let fs = HeldLockRelease()
        let (url, store) = try writer(in: dir, fs: fs)
        for seed in 0..<4 { _ = try store.save(Fixtures.sampleWalk(seed: UInt64(20 + seed), points: 100)) }
        let inProgress = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0)
        let state = StateLock((called: false, returned: false, letGo: String??.none))
        let progress: @Sendable () -> Void = {
            guard state.withLock({ s in defer { s.called = true }; return !s.called }) else { return }
            inProgress.signal()
            _ = go.wait(timeout: .now() + 30)
            try? store.close()
            let found = Self.letGo(url, descriptors: false)
            state.withLock { ($0.returned, $0.letGo) = (true, .some(found)) }
        }
        let working = Background {
            var options = ParquetExportOptions()
            options.routesPerRowGroup = 1
            if work == "export" {
                _ = try? ParquetExporter.export(store, to: dir.url.appendingPathComponent("out"), options: options) { _, _ in progress() }
            } else {
                _ = try? store.verify { _ in progress() }
            }
        }
        #expect(inProgress.wait(timeout: .now() + 30) == .success, "the \(work) never called its progress")
        let first = closeHeldAtLOCK(store, fs)
        go.signal()
        usleep(300_000)
        #expect(!state.withLock { $0.returned }, "close() from the \(work)'s progress returned while the first still held the store")
        fs.resume()
        #expect(first.ends(within: 30) && working.ends(within: 30))
        #expect(state.withLock { $0.returned && $0.letGo == .some(nil) }, "\(state.withLock { $0 })")
    }

    /// A read-only handle closed while its following catches up (on the following's
    /// own queue, not in a call close() waits for), held just after it read the
    /// writer's mark from `LOCK`, the file still open: close() returns only once that
    /// catch-up has ended, and then nothing of the handle is open under the store. (It
    /// returned at once, and `LOCK`'s descriptor outlived it: the test of closes from
    /// everywhere below met that now and then.)
    @Test func aCloseWaitsForTheFollowingsCatchUpUnderWay() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .init(compaction: .manual))
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 30))
        let readerFS = InterceptingFileSystem()
        let armed = StateLock(false), held = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
        readerFS.observe { operation in
            guard case .read(let ref, _, _) = operation, ref.path.hasSuffix("/" + FormatConstants.lockName),
                  armed.withLock({ let was = $0; $0 = false; return was }) else { return }
            held.signal()
            _ = resume.wait(timeout: .now() + 30)
        }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: readerFS)
        // A subscriber starts the following (its first catch-up runs at once).
        _ = reader.changeHub.subscribe(ChangeHub.Subscriber(deliver: { _ in }, finish: { _ in }))
        armed.withLock { $0 = true }
        _ = try writer.save(Fixtures.sampleWalk(seed: 2, points: 30))
        #expect(held.wait(timeout: .now() + 30) == .success, "the following never caught up")
        try writer.close()
        let close = Background { try reader.close() }
        #expect(!close.ends(within: 0.3), "close() returned while a catch-up still had the store's files open")
        resume.signal()
        #expect(close.ends(within: 30))
        #expect(close.error == nil, "\(close.error ?? "")")
        #expect(ParquetExportDescriptorTests.held(under: url).isEmpty, "\(ParquetExportDescriptorTests.held(under: url))")
    }

    /// A close() on the thread of a catch-up (here its file system, as it reads `LOCK`)
    /// while a close() from another thread waits for that catch-up: it returns at once.
    /// (It waited for the first close(), which waited for the catch-up: neither returned.)
    @Test func aCloseFromTheCatchUpWhileAnotherWaitsForItReturnsAtOnce() throws {
        let dir = TemporaryDirectory()
        let (url, writer) = try writer(in: dir)
        let readerFS = InterceptingFileSystem()
        let twice = StateLock<CloseFromAThreadCloseWaitsFor?>(nil)
        readerFS.observe { operation in
            guard case .read(let ref, _, _) = operation, ref.path.hasSuffix("/" + FormatConstants.lockName) else { return }
            twice.withLock { $0 }?.closeTwice()
        }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: readerFS)
        twice.withLock { $0 = CloseFromAThreadCloseWaitsFor(reader) }
        // A subscriber starts the following, whose first catch-up reads LOCK at once.
        _ = reader.changeHub.subscribe(ChangeHub.Subscriber(deliver: { _ in }, finish: { _ in }))
        let closes = try #require(twice.withLock { $0 })
        #expect(QuietSyncTests.eventually { closes.returned }, "close() on the catch-up's thread waited for the close() waiting for it")
        #expect(closes.otherEnds(within: 30))
        try writer.close()
        #expect(Self.letGo(url) == nil)
    }

    /// Rounds of a writer at work on several threads (saves, compactions, exports,
    /// verifies, reads) while closes come from four threads at random moments and from
    /// the exports' progress, and a read-only handle following it is closed from its own
    /// deliveries: every close() returns, and once one has returned no writer holds the
    /// store; nothing is left open once all have.
    @Test func closesFromEverywhereRacingWorkReturnOnceTheStoreIsLetGo() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 8 << 10, compaction: .manual)
        var ids: [RouteID] = []
        do {
            let store = try RouteStore(at: url, options: options)
            for seed in 0..<16 { ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 120))) }
            for id in ids.prefix(4) { try store.delete(id) }
            try store.close()
        }
        let live = Array(ids.dropFirst(4))
        var rng = SeededGenerator(state: 17)
        for round in 0..<24 {
            let store = try RouteStore(at: url, options: options)
            let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
            _ = reader.changeHub.subscribe(ChangeHub.Subscriber(deliver: { [weak reader] _ in
                if Bool.random() { try? reader?.close() }
            }, finish: { _ in }))
            let stillLocked = StateLock([String]())
            @Sendable func closeAndCheck() {
                try? store.close()
                if let holder = RouteStore.writerProcess(at: url) {
                    stillLocked.withLock { $0.append("locked by \(holder) after a close() returned") }
                }
            }
            let workers = (0..<5).map { kind in
                Background {
                    var n = 0
                    while true {
                        n += 1
                        do {
                            switch kind {
                            case 0: _ = try store.save(Fixtures.sampleWalk(seed: UInt64(1_000 + round * 1_000 + n), points: 30))
                            case 1: _ = try store.compact()
                            case 2:
                                try ParquetExporter.export(store, to: dir.url.appendingPathComponent("out-\(kind)")) { done, _ in
                                    if done == 3, Int.random(in: 0..<4) == 0 { closeAndCheck() }
                                }
                            case 3: _ = try store.verify()
                            default: _ = try store.route(live[n % live.count])
                            }
                        } catch let error as RouteLogError where error.code == .closed {
                            return
                        }
                    }
                }
            }
            let pauses = (0..<4).map { _ in UInt32.random(in: 0...30_000, using: &rng) }
            let closers = pauses.map { pause in Background { usleep(pause); closeAndCheck() } }
            #expect(closers.allSatisfy { $0.ends(within: 60) }, "round \(round): a close() never returned")
            #expect(workers.allSatisfy { $0.ends(within: 60) }, "round \(round): work went on after close()")
            #expect(workers.compactMap(\.error).isEmpty, "round \(round): \(workers.compactMap(\.error))")
            #expect(stillLocked.withLock { $0 }.isEmpty, "round \(round): \(stillLocked.withLock { $0 })")
            try reader.close()
            #expect(ParquetExportDescriptorTests.held(under: url).isEmpty, "round \(round): \(ParquetExportDescriptorTests.held(under: url))")
        }
        let reopened = try RouteStore(at: url, options: options)
        #expect(try reopened.verify().isClean)
        try reopened.close()
    }
}
