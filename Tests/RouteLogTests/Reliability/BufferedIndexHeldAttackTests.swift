import Foundation
import Testing
@testable import RouteLog

/// Attacks on the held index records of buffered saves (IndexFile.hold): at many crash
/// points of each workload, the worst state for the index's vouching (every index
/// write on disk, every other file only as far as it was synced) must open clean,
/// report no damage, and list only routes it can read.
@Suite struct BufferedIndexHeldAttackTests {
    static func route(_ i: Int, points: Int = 3) -> Route { Fixtures.sampleWalk(seed: UInt64(i), points: points) }

    /// Runs `workload` traced on a store of 3 closed routes, then checks the worst state
    /// after each index write (and at the end). Returns how many states were checked.
    @discardableResult
    static func worstStates(_ name: String, options: RouteStore.Options, maxPoints: Int = 40,
                            workload: (RouteStore) throws -> Void) throws -> Int {
        let dir = TemporaryDirectory(name)
        let live = dir.store("live.routelog")
        let first = try RouteStore(at: live, options: options)
        for i in 0..<3 { try first.save(route(i)) }
        try first.close()
        let fs = InterceptingFileSystem()
        let trace = try fs.trace(live)
        let store = try RouteStore(at: live, options: options, fileSystem: fs)
        try workload(store)
        // Killed here: no close().
        let model = CrashStateModel(trace)
        // Names of inodes (index files are created under their own names).
        var names: [Int: String] = [:]
        for (name, inode) in model.initialInodes { names[inode] = name }
        var points: [Int] = []
        for (i, op) in model.operations.enumerated() {
            switch op {
            case .create(let name, let inode): names[inode] = name
            case .write(let inode, _, _):
                if names[inode]?.hasPrefix(FormatConstants.indexPrefix) == true { points.append(i + 1) }
            default: break
            }
        }
        points.append(model.operations.count)
        if points.count > maxPoints {
            let step = Double(points.count) / Double(maxPoints)
            points = (0..<maxPoints).map { points[Int(Double($0) * step)] } + [model.operations.count]
        }
        let crashed = dir.store("crashed.routelog")
        for point in Set(points).sorted() {
            try materialize(model.filesWithTheIndexAhead(at: point), at: crashed)
            let reopened = try RouteStore(at: crashed, options: .init(compaction: .manual))
            defer { try? reopened.close() }
            let damage = reopened.state.withLock { $0.openDamage }
            #expect(damage.isEmpty, "crash point \(point) of \(model.operations.count): damage at open \(damage)")
            let report = try reopened.verify()
            #expect(report.isClean, "crash point \(point): \(report.problems)")
            for summary in try reopened.summaries() {
                #expect(throws: Never.self, "crash point \(point): route \(summary.id) is listed") {
                    _ = try reopened.route(summary.id)
                }
            }
            #expect(throws: Never.self, "crash point \(point): unfinished recordings") {
                _ = try reopened.unfinishedRecordings()
            }
            #expect(try reopened.count >= 3, "crash point \(point): the 3 routes closed before")
        }
        return points.count
    }

    static let buffered = RouteStore.Options(durability: .buffered, segmentSizeLimit: 1 << 20, compaction: .manual).withoutQuietSync()

    /// Recordings (start, chunks, finish, discard), deletes and edits, all buffered.
    @Test func recordings_deletes_and_edits() throws {
        let n = try Self.worstStates("recordings", options: Self.buffered) { store in
            let ids = try store.summaries().map(\.id)
            try store.delete(ids[0])
            _ = try store.edit(ids[1], RouteEdit(shift: 3600))
            let recorder = try store.startRecording(flushPolicy: .manual)
            for (k, point) in Self.route(50, points: 60).points.enumerated() {
                try recorder.append(point)
                if k % 10 == 9 { try recorder.flush() }
            }
            try recorder.finish()
            let open = try store.startRecording(flushPolicy: .manual)
            try open.append(Self.route(51, points: 20).points)
            try open.flush()
            try store.startRecording().discard()
            _ = try BackgroundIndexRewrite(store: store).run(evenIfFew: true)
            let more = try (0..<5).map { try store.save(Self.route(60 + $0)) }
            try store.delete(more[0])
            try open.append(Self.route(52, points: 5).points)
            try open.flush()
        }
        #expect(n > 2, "\(n) crash states")
    }

    /// Many rolls (small segments), with deletes, a compaction that rewrites the active
    /// segment, a background rewrite, and saves after each.
    @Test func rolls_compactions_and_rewrites() throws {
        let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 4096, compaction: .manual).withoutQuietSync()
        let n = try Self.worstStates("rolls", options: options) { store in
            var ids = try (0..<40).map { try store.save(Self.route(100 + $0, points: 20)) }
            for id in ids.prefix(20) { try store.delete(id) }
            ids.removeFirst(20)
            _ = try store.compact()
            for i in 0..<10 { ids.append(try store.save(Self.route(200 + i, points: 20))) }
            _ = try BackgroundIndexRewrite(store: store).run(evenIfFew: true)
            for i in 0..<10 { ids.append(try store.save(Self.route(300 + i, points: 20))) }
            for id in ids.suffix(8) { try store.delete(id) }
            _ = try store.compact()
            for i in 0..<3 { try store.save(Self.route(400 + i, points: 20)) }
        }
        #expect(n > 5, "\(n) crash states")
    }

    /// Saves from other threads while compactions and rewrites run.
    @Test func saves_racing_compaction_and_rewrite() throws {
        let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 8192, compaction: .manual).withoutQuietSync()
        let n = try Self.worstStates("racing", options: options) { store in
            let ids = try (0..<30).map { try store.save(Self.route(500 + $0, points: 10)) }
            for id in ids.prefix(15) { try store.delete(id) }
            let done = StateLock(false)
            let saver = Thread {
                var i = 0
                while !done.withLock({ $0 }) && i < 400 {
                    _ = try? store.save(Self.route(600 + i, points: 10))
                    i += 1
                }
            }
            saver.start()
            for _ in 0..<3 {
                _ = try store.compact()
                _ = try BackgroundIndexRewrite(store: store).run(evenIfFew: true)
            }
            done.withLock { $0 = true }
            while !saver.isFinished { usleep(1000) }
        }
        #expect(n > 5, "\(n) crash states")
    }

    enum Leftover: String, CaseIterable, Sendable { case tornTail, noIndex, damagedActive }

    /// A buffered writer killed before its sync, its last segment then torn, its index
    /// gone, or its last segment damaged: the next writer indexes the records it finds
    /// in the page cache only after a sync of the segment holding them.
    @Test(arguments: Leftover.allCases)
    func an_open_after_a_kill_syncs_before_it_indexes(_ leftover: Leftover) throws {
        let dir = TemporaryDirectory("killed-\(leftover.rawValue)")
        let live = dir.store("live.routelog")
        let first = try RouteStore(at: live, options: Self.buffered)
        for i in 0..<3 { try first.save(Self.route(i)) }
        try first.close()
        let again = try RouteStore(at: live, options: Self.buffered)
        defer { try? again.close() }
        for i in 3..<8 { try again.save(Self.route(i)) }
        let killed = try BackgroundIndexRewriteTests.killedCopy(of: live, dir, "killed.routelog")
        let names = try FileManager.default.contentsOfDirectory(atPath: killed.path)
        let segment = killed.appendingPathComponent(names.filter { $0.hasPrefix(FormatConstants.segmentPrefix) }.sorted().last!)
        switch leftover {
        case .tornTail:
            let handle = try FileHandle(forWritingTo: segment)
            handle.seekToEndOfFile()
            handle.write(Data([0xAB, 0x52, 0x4C, 0x01, 0x02, 0x03]))
            try handle.close()
        case .noIndex:
            try Fixtures.removeIndexFiles(in: killed)
        case .damagedActive:
            // A bit of the second record flipped (the last records stay whole).
            var bytes = [UInt8](try Data(contentsOf: segment))
            let at = FormatConstants.fileHeaderSize + 40
            bytes[at] ^= 0x10
            try Data(bytes).write(to: segment)
        }
        let (fs, order) = InterceptingFileSystem.notingSyncsAndWrites()
        let opener = try RouteStore(at: killed, options: Self.buffered, fileSystem: fs)
        defer { try? opener.close() }
        let seen = order.withLock { $0 }
        let segmentName = segment.lastPathComponent
        if let indexWrite = seen.firstIndex(where: { $0.hasPrefix("write " + FormatConstants.indexPrefix) }) {
            #expect(seen[..<indexWrite].contains("sync " + segmentName),
                    "\(leftover): no sync of \(segmentName) before the index write: \(seen)")
        }
        #expect(try opener.count >= 7, "\(leftover)")
    }

    /// close() racing buffered saves, deletes and compactions: once it returns, every
    /// change answered before is durable (the state with only synced data and directory
    /// operations holds it), and the store opens clean.
    @Test func close_racing_saves_and_compactions() throws {
        let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 4096, compaction: .manual).withoutQuietSync()
        for round in 0..<3 {
            let dir = TemporaryDirectory("close-race-\(round)")
            let live = dir.store("live.routelog")
            try RouteStore(at: live, options: options).close()
            let fs = InterceptingFileSystem()
            let trace = try fs.trace(live)
            let store = try RouteStore(at: live, options: options, fileSystem: fs)
            let saved = StateLock<Set<RouteID>>([])
            let deleted = StateLock<Set<RouteID>>([])
            var threads: [Thread] = []
            for worker in 0..<2 {
                threads.append(Thread {
                    for i in 0..<2000 {
                        guard let id = try? store.save(Self.route(10_000 * worker + i, points: 8)) else { return }
                        saved.withLock { _ = $0.insert(id) }
                        if i % 3 == 0, (try? store.delete(id)) != nil { deleted.withLock { _ = $0.insert(id) } }
                    }
                })
            }
            threads.append(Thread {
                while (try? store.compact()) != nil {}
            })
            for t in threads { t.start() }
            // close() comes once a few saves are in, and later each round.
            #expect(QuietSyncTests.eventually { saved.withLock { $0.count } > 10 }, "round \(round): no saves")
            usleep(UInt32(250_000 * round))
            try store.close()
            while threads.contains(where: { !$0.isFinished }) { usleep(1000) }
            let model = CrashStateModel(trace)
            let crashed = dir.store("crashed.routelog")
            try materialize(model.filesSyncedOnly(at: model.operations.count), at: crashed)
            let reopened = try RouteStore(at: crashed, options: .init(compaction: .manual))
            defer { try? reopened.close() }
            #expect(reopened.state.withLock { $0.openDamage }.isEmpty)
            #expect(try reopened.verify().isClean)
            let listed = Set(try reopened.summaries().map(\.id))
            let (s, d) = (saved.withLock { $0 }, deleted.withLock { $0 })
            #expect(listed == s.subtracting(d), "round \(round): \(s.count) saved, \(d.count) deleted, \(listed.count) listed")
        }
    }

    /// One I/O error (EIO, then ENOSPC) at each changing call of a buffered workload
    /// with rolls, a compaction and a rewrite, the workload going on past it: the
    /// worst index-ahead state at the end opens without damage and lists only routes
    /// it can read.
    @Test(arguments: [EIO, ENOSPC])
    func one_io_error_anywhere(_ errno: Int32) throws {
        let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 4096, compaction: .manual).withoutQuietSync()
        let dir = TemporaryDirectory("io-error-\(errno)")
        let template = dir.store("template.routelog")
        let first = try RouteStore(at: template, options: options)
        for i in 0..<3 { try first.save(Self.route(i, points: 20)) }
        try first.close()
        /// The routes the workload was told it saved and has not deleted, and whether
        /// close() returned normally.
        @discardableResult
        func workload(_ store: RouteStore) -> (live: Set<RouteID>, closed: Bool) {
            var ids: [RouteID] = []
            var live = Set(try! store.summaries().map(\.id))
            for i in 0..<24 {
                if let id = try? store.save(Self.route(100 + i, points: 20)) { ids.append(id); live.insert(id) }
                if i % 4 == 3, let id = ids.first {
                    if (try? store.delete(id)) != nil { live.remove(id) }
                    ids.removeFirst()
                }
                if i == 12 { _ = try? store.compact() }
                if i == 18 { _ = try? BackgroundIndexRewrite(store: store).run(evenIfFew: true) }
            }
            return (live, (try? store.close()) != nil)
        }
        let dry = dir.store("dry.routelog")
        try FileManager.default.copyItem(at: template, to: dry)
        let counting = InterceptingFileSystem()
        workload(try RouteStore(at: dry, options: options, fileSystem: counting))
        let total = counting.changes
        let step = ProcessInfo.processInfo.environment["HELD_ATTACK_FULL"] != nil ? 1 : max(1, total / 24)
        for n in stride(from: 1, through: total, by: step) {
            let url = dir.store("live.routelog")
            try? FileManager.default.removeItem(at: url)
            try FileManager.default.copyItem(at: template, to: url)
            let fs = InterceptingFileSystem(fault: .init(.change(n), errno: errno))
            let trace = try fs.trace(url)
            guard let store = try? RouteStore(at: url, options: options, fileSystem: fs) else { continue }
            let (live, closed) = workload(store)
            let model = CrashStateModel(trace)
            if closed {
                // close() returned: every change it was told of is durable.
                let lost = dir.store("power-loss.routelog")
                try materialize(model.filesSyncedOnly(at: model.operations.count), at: lost)
                let after = try RouteStore(at: lost, options: .init(compaction: .manual))
                let listed = Set(try after.summaries().map(\.id))
                #expect(listed == live, "fault at change \(n) (\(fs.failures)), close() returned: \(live.subtracting(listed).sorted()) lost, \(listed.subtracting(live).sorted()) back")
                try after.close()
            }
            let crashed = dir.store("crashed.routelog")
            try materialize(model.filesWithTheIndexAhead(at: model.operations.count), at: crashed)
            let reopened = try RouteStore(at: crashed, options: .init(compaction: .manual))
            defer { try? reopened.close() }
            let damage = reopened.state.withLock { $0.openDamage }
            #expect(damage.isEmpty, "fault at change \(n) (\(fs.failures)): damage at open \(damage)")
            #expect(try reopened.verify().isClean, "fault at change \(n)")
            for summary in try reopened.summaries() {
                #expect(throws: Never.self, "fault at change \(n): route \(summary.id) listed") { _ = try reopened.route(summary.id) }
            }
        }
    }
}
