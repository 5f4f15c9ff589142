import Foundation
import Testing
@testable import RouteLog

/// A store made of hard links to another store's files (`cp -al`, `rsync --link-dest`,
/// links made by hand), without its LOCK: two writers, one of each store, would append
/// to the same last segment and index. Each writer's open gives it copies of its own of
/// the files it writes (LinkedFiles); sealed segments stay shared. Every acknowledged
/// change of each store is in that store and in no other, and a torn tail is cut only
/// in the writer's own copy.
@Suite struct HardLinkedStoreTests {
    static let pointCount = 600

    /// A route told apart by where it starts.
    static func route(_ n: Int) -> Route {
        let start = Date(timeIntervalSince1970: 1_767_225_600 + Double(n) * 10_000)
        let base: Double = 45 + Double(n) * 1e-3
        var points: [TrackPoint] = []
        for p in 0..<pointCount {
            // A wiggle, so that the route takes some bytes: 600 points fill a few kilobytes.
            let step = Double(p) * 1e-5 + Double((UInt64(p * 1000 + n) &* 0x9E37_79B9_7F4A_7C15) >> 48) * 1e-7
            points.append(TrackPoint(latitude: base + step, longitude: 9 + step, timestamp: start.addingTimeInterval(Double(p))))
        }
        return Route(points: points)
    }

    /// Each route's id and the latitude it starts at, in millionths of a degree.
    static func contents(_ url: URL) throws -> [UInt64: Double] {
        let store = try RouteStore(at: url, options: .init(mode: .readOnly))
        defer { try? store.close() }
        return try contents(of: store)
    }

    static func contents(of store: RouteStore) throws -> [UInt64: Double] {
        var found: [UInt64: Double] = [:]
        for summary in try store.summaries() {
            let points = try store.route(summary.id).points
            #expect(points.count == pointCount)
            found[summary.id.rawValue] = (points[0].latitude * 1e6).rounded()
        }
        return found
    }

    static func expected(_ routes: [UInt64: Int]) -> [UInt64: Double] {
        routes.mapValues { (route($0).points[0].latitude * 1e6).rounded() }
    }

    /// Links every file of `store` but LOCK and `lost/` into a new directory `copy`; with
    /// `everything`, LOCK too, and `lost/` as a new directory of links, as `cp -al` does.
    static func link(_ store: URL, to copy: URL, everything: Bool = false) throws {
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: false)
        for name in try FileManager.default.contentsOfDirectory(atPath: store.path) {
            let from = store.appendingPathComponent(name), to = copy.appendingPathComponent(name)
            if name == LostAndFound.directoryName {
                guard everything else { continue }
                try FileManager.default.createDirectory(at: to, withIntermediateDirectories: false)
                for entry in try FileManager.default.contentsOfDirectory(atPath: from.path) {
                    try FileManager.default.linkItem(at: from.appendingPathComponent(entry), to: to.appendingPathComponent(entry))
                }
            } else if name != FormatConstants.lockName || everything {
                try FileManager.default.linkItem(at: from, to: to)
            }
        }
    }

    /// A store at `url` holding routes `routes` (ids from 1), closed.
    /// Store `a` made in `dir` with routes 1...3, and store `b` its hard-linked copy
    /// (`cp -al`).
    static func linkedPair(in dir: TemporaryDirectory) throws -> (a: URL, b: URL) {
        let a = dir.store("a.routelog"), b = dir.store("b.routelog")
        try make(a, routes: 1...3)
        try link(a, to: b)
        return (a, b)
    }

    static func make(_ url: URL, routes: ClosedRange<Int>) throws {
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        for n in routes { _ = try store.save(route(n)) }
        try store.close()
    }

    /// Appends `count` bytes of `byte` to the file at `url`: a record cut short.
    static func appendTail(_ byte: UInt8, count: Int, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: byte, count: count))
        try handle.close()
    }

    static func linkCount(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.referenceCount] as? NSNumber)?.intValue ?? 0
    }

    static func segments(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).filter {
            $0.hasPrefix(FormatConstants.segmentPrefix) && $0.hasSuffix(FormatConstants.segmentSuffix)
        }.sorted()
    }

    enum Order: String, CaseIterable, Sendable { case originalOpensFirst, linkedOpensFirst }

    @Test(arguments: Order.allCases)
    func twoWritersOfLinkedStoresKeepTheirChangesApart(order: Order) throws {
        let dir = TemporaryDirectory()
        let a = dir.store("a.routelog"), b = dir.store("b.routelog")
        var options = RouteStore.Options(compaction: .manual)
        options.segmentSizeLimit = 4096
        var first = try RouteStore(at: a, options: options)
        for n in 1...6 { _ = try first.save(Self.route(n)) }
        try first.close()
        let sealed = try Self.segments(a).dropLast()
        let listing = try FileManager.default.contentsOfDirectory(atPath: a.path).map { name in
            "\(name) \((try? FileManager.default.attributesOfItem(atPath: a.appendingPathComponent(name).path)[.size]) as? Int ?? -1)"
        }
        try #require(!sealed.isEmpty, "the test wants sealed segments as well as a last one: \(listing)")
        try Self.link(a, to: b)

        // Both writers open at once, their saves and deletes interleaved.
        first = try RouteStore(at: order == .originalOpensFirst ? a : b, options: options)
        let second = try RouteStore(at: order == .originalOpensFirst ? b : a, options: options)
        let (storeA, storeB) = order == .originalOpensFirst ? (first, second) : (second, first)
        for n in 0..<4 {
            _ = try storeA.save(Self.route(100 + n))
            if n < 2 { _ = try storeB.save(Self.route(200 + n)) }
        }
        try storeB.delete(RouteID(2))
        try storeA.delete(RouteID(5))
        try storeA.close()
        try storeB.close()

        #expect(try Self.contents(a) == Self.expected([1: 1, 2: 2, 3: 3, 4: 4, 6: 6, 7: 100, 8: 101, 9: 102, 10: 103]))
        #expect(try Self.contents(b) == Self.expected([1: 1, 3: 3, 4: 4, 5: 5, 6: 6, 7: 200, 8: 201]))
        // The sealed segments are still one file for both stores: no space was spent on them.
        for name in sealed {
            #expect(try Self.linkCount(a.appendingPathComponent(name)) == 2, "\(name)")
        }
        #expect(!FileManager.default.fileExists(atPath: a.appendingPathComponent(LostAndFound.directoryName).path))
        #expect(!FileManager.default.fileExists(atPath: b.appendingPathComponent(LostAndFound.directoryName).path))
    }

    @Test func aTornTailOfASharedSegmentIsCutOnlyInTheWritersOwnCopy() throws {
        let dir = TemporaryDirectory()
        let a = dir.store("a.routelog"), b = dir.store("b.routelog")
        try Self.make(a, routes: 1...2)
        // A record cut short: the first 40 bytes of the last one, appended again.
        let segment = a.appendingPathComponent(try #require(try Self.segments(a).last))
        var bytes = try Data(contentsOf: segment)
        let recordStart = try #require(try RouteStore(at: a, options: .init(mode: .readOnly)).state.withLock { s in
            s.index.routes[RouteID(2)]?.location.offset
        })
        bytes.append(bytes[Int(recordStart)..<Int(recordStart) + 40])
        try bytes.write(to: segment)
        try Self.link(a, to: b)

        let linked = try RouteStore(at: b, options: .init(compaction: .manual))
        _ = try linked.save(Self.route(300))
        try linked.close()
        // The file A names is as it was: its tail is A's to judge.
        #expect(try Data(contentsOf: segment) == bytes)
        #expect(try Self.contents(b) == Self.expected([1: 1, 2: 2, 3: 300]))
        let lostB = LostAndFound(files: LogFiles(directory: b.path, fileSystem: PosixFileSystem.shared)).listing().entries
        #expect(lostB.count == 1 && lostB[0].bytes == 40, "\(lostB)")

        let original = try RouteStore(at: a, options: .init(compaction: .manual))
        _ = try original.save(Self.route(400))
        try original.close()
        #expect(try Self.contents(a) == Self.expected([1: 1, 2: 2, 3: 400]))
        #expect(try Self.contents(b) == Self.expected([1: 1, 2: 2, 3: 300]))
        let lostA = LostAndFound(files: LogFiles(directory: a.path, fileSystem: PosixFileSystem.shared)).listing().entries
        #expect(lostA.count == 1 && lostA[0].bytes == 40, "\(lostA)")
    }

    /// A crash at each changing call of the open that makes the copies, then the
    /// original's writer saves (in the file the linked store named before), then the
    /// linked store opens on the real file system: each store has its own changes and no
    /// other's, a reader of the linked store opened before the crash follows it, and a
    /// copy a crash left behind is a leftover like any other.
    @Test func aCrashWhileCopyingLosesNothingInEitherStore() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        try Self.make(template, routes: 1...3)
        let names = try FileManager.default.contentsOfDirectory(atPath: template.path).filter { $0 != FormatConstants.lockName }
        let original = try names.map { try Data(contentsOf: template.appendingPathComponent($0)) }

        var crashPoint = 1
        var copiesCutShort = 0
        while true {
            let a = dir.store("a\(crashPoint).routelog"), b = dir.store("b\(crashPoint).routelog")
            try FileManager.default.copyItem(at: template, to: a)
            try Self.link(a, to: b)
            let reader = try RouteStore(at: b, options: .init(mode: .readOnly))
            let crashing = InterceptingFileSystem.crashing(atChange: crashPoint)
            do {
                let linked = try RouteStore(at: b, options: .init(compaction: .manual), fileSystem: crashing)
                _ = try linked.save(Self.route(500))
                try linked.close()
            } catch {}
            let crashed = !crashing.failures.isEmpty
            if crashed, try FileManager.default.contentsOfDirectory(atPath: b.path).contains(where: { $0.hasSuffix(".tmp") }) {
                copiesCutShort += 1
            }
            #expect(try names.map { try Data(contentsOf: a.appendingPathComponent($0)) } == original,
                    "crash at change \(crashPoint) changed the original store's files")
            let writerA = try RouteStore(at: a, options: .init(compaction: .manual))
            _ = try writerA.save(Self.route(600))
            try writerA.close()

            let reopened = try RouteStore(at: b, options: .init(compaction: .manual))
            try reopened.close()
            let found = try Self.contents(b)
            #expect(found == Self.expected([1: 1, 2: 2, 3: 3]) || found == Self.expected([1: 1, 2: 2, 3: 3, 4: 500]),
                    "crash at change \(crashPoint): \(found)")
            try reader.refresh()
            #expect(try Self.contents(of: reader) == found, "crash at change \(crashPoint): the reader of B")
            try reader.close()
            #expect(try Self.contents(a) == Self.expected([1: 1, 2: 2, 3: 3, 4: 600]), "crash at change \(crashPoint)")
            // A copy cut short is a prefix of the file it copied, which is still there: it goes.
            let lost = LostAndFound(files: LogFiles(directory: b.path, fileSystem: PosixFileSystem.shared)).listing().entries
            #expect(!lost.contains { $0.name.contains(FormatConstants.temporarySuffix) }, "crash at change \(crashPoint): \(lost)")
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: b.path).contains { $0.hasSuffix(FormatConstants.temporarySuffix) }))
            try FileManager.default.removeItem(at: a)
            try FileManager.default.removeItem(at: b)
            if !crashed { break }
            crashPoint += 1
        }
        #expect(crashPoint > 5, "the open and save made \(crashPoint - 1) changes")
        #expect(copiesCutShort > 0, "no crash left a copy behind")
    }

    /// The original's writer saves while the linked store's writer opens, right after its
    /// copy of the last segment is in place: the linked store never takes the original's
    /// index entries for records its copy lacks.
    @Test func theOriginalsSavesDuringTheCopyingOpenStayTheOriginals() throws {
        let dir = TemporaryDirectory()
        let a = dir.store("a.routelog"), b = dir.store("b.routelog")
        let writerA = try RouteStore(at: a, options: .init(compaction: .manual))
        for n in 1...3 { _ = try writerA.save(Self.route(n)) }
        try Self.link(a, to: b)
        let fs = InterceptingFileSystem()
        let savedDuringTheOpen = StateLock<[RouteID]>([])
        fs.observe { operation in
            guard case .exchange(let from, _) = operation, from.hasSuffix(FormatConstants.segmentSuffix + FormatConstants.temporarySuffix) else { return }
            for n in 100..<103 { if let id = try? writerA.save(Self.route(n)) { savedDuringTheOpen.withLock { $0.append(id) } } }
        }
        let writerB = try RouteStore(at: b, options: .init(compaction: .manual), fileSystem: fs)
        #expect(savedDuringTheOpen.withLock { $0.count } == 3, "the hook did not run")
        _ = try writerB.save(Self.route(300))
        try writerB.close()
        try writerA.close()
        #expect(try Self.contents(a) == Self.expected([1: 1, 2: 2, 3: 3, 4: 100, 5: 101, 6: 102]))
        #expect(try Self.contents(b) == Self.expected([1: 1, 2: 2, 3: 3, 4: 300]))
        let report = try RouteStore(at: b, options: .init(mode: .readOnly)).verify()
        #expect(report.isClean, "\(report)")
    }

    /// A read-only handle of the linked store, opened before its writer took its own
    /// copy, follows its own store from then on, not the file the other store now owns.
    @Test func aReaderOpenedBeforeTheCopyFollowsItsOwnStore() throws {
        let dir = TemporaryDirectory()
        let a = dir.store("a.routelog"), b = dir.store("b.routelog")
        try Self.make(a, routes: 1...3)
        try Self.link(a, to: b)

        let readerB = try RouteStore(at: b, options: .init(mode: .readOnly))
        let writerB = try RouteStore(at: b, options: .init(compaction: .manual))
        let idB = try writerB.save(Self.route(200))
        try writerB.close()
        let writerA = try RouteStore(at: a, options: .init(compaction: .manual))
        #expect(try writerA.save(Self.route(100)) == idB)
        try writerA.close()

        try readerB.refresh()
        let seen = (try readerB.route(idB).points[0].latitude * 1e6).rounded()
        #expect(seen == Self.expected([idB.rawValue: 200])[idB.rawValue], "the reader of B shows A's route \(idB.rawValue)")
        let backup = dir.store("b-backup.routelog")
        try readerB.backup(to: backup)
        #expect(try Self.contents(backup) == Self.expected([1: 1, 2: 2, 3: 3, 4: 200]))
    }

    /// `cp -al` links LOCK and the files in `lost/` too: a writer of the copy takes a
    /// LOCK of its own beside the original's writer (its name of the shared one kept in
    /// its `lost/`), and writes its notes in a `lost/LOG` of its own.
    @Test func aCopyMadeWithEveryLinkGetsItsOwnLockAndLostLog() throws {
        let dir = TemporaryDirectory()
        let a = dir.store("a.routelog"), b = dir.store("b.routelog")
        try Self.make(a, routes: 1...2)
        // A torn tail, which A's next open keeps in lost/ with a line in lost/LOG.
        let segmentName = try #require(try Self.segments(a).last)
        try Self.appendTail(0xA5, count: 50, to: a.appendingPathComponent(segmentName))
        let writerA = try RouteStore(at: a, options: .init(compaction: .manual))
        let logA = a.appendingPathComponent(LostAndFound.directoryName).appendingPathComponent(LostAndFound.logName)
        let notesA = try Data(contentsOf: logA)
        #expect(!notesA.isEmpty)

        // Linked while A's writer holds it: LOCK (locked, with A's pid) and lost/LOG too.
        try Self.link(a, to: b, everything: true)
        #expect(try Self.linkCount(b.appendingPathComponent(FormatConstants.lockName)) == 2)
        // Nobody has B open, whatever the LOCK it shares says.
        #expect(RouteStore.writerProcess(at: b) == nil)
        // A directory where B's writer would copy lost/LOG: kept in lost/, not in the way.
        let planted = b.appendingPathComponent(LostAndFound.directoryName).appendingPathComponent(LostAndFound.logName + ".tmp")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
        // A torn tail of B's own, cut from B's copy when B's writer opens beside A's.
        try Self.appendTail(0x5A, count: 30, to: b.appendingPathComponent(segmentName))
        let writerB = try RouteStore(at: b, options: .init(compaction: .manual))
        _ = try writerB.save(Self.route(300))
        _ = try writerA.save(Self.route(400))
        #expect(RouteStore.writerProcess(at: b) == getpid())
        try writerB.close()
        #expect(RouteStore.writerProcess(at: b) == nil, "B's LOCK is its own: nobody holds B")
        // B's writer moved its name of the shared LOCK into B's lost/ (never unlinked):
        // A's LOCK, still shared, names no pid until A's writer puts a LOCK of its own
        // in place, as its close does.
        #expect(RouteStore.writerProcess(at: a) == -1, "A's writer still holds A")
        let sharedLOCK = b.appendingPathComponent(LostAndFound.directoryName).appendingPathComponent("LOCK@0")
        #expect(try Self.linkCount(sharedLOCK) == 2)
        try writerA.close()
        #expect(RouteStore.writerProcess(at: a) == nil)
        #expect(try Self.linkCount(a.appendingPathComponent(FormatConstants.lockName)) == 1, "A's LOCK is its own again")
        #expect(try Self.linkCount(sharedLOCK) == 2, "the old LOCK, in both lost/ folders")

        // A's log: its notes, and its own line about its LOCK; none of B's.
        let addedToA = String(decoding: try Data(contentsOf: logA).dropFirst(notesA.count), as: UTF8.self)
        #expect(try Data(contentsOf: logA).prefix(notesA.count) == notesA)
        #expect(addedToA.split(separator: "\n").count == 1 && addedToA.contains("LOCK moved whole: a second name of the LOCK"),
                "B's note went into A's lost/LOG: \(addedToA)")
        #expect(FileManager.default.fileExists(atPath: planted.deletingLastPathComponent().appendingPathComponent("LOG.tmp@0").path))
        let logB = b.appendingPathComponent(LostAndFound.directoryName).appendingPathComponent(LostAndFound.logName)
        let notesB = String(decoding: try Data(contentsOf: logB), as: UTF8.self)
        #expect(notesB.hasPrefix(String(decoding: notesA, as: UTF8.self)) && notesB.contains("length 30"), "\(notesB)")
        #expect(try Self.contents(a) == Self.expected([1: 1, 2: 2, 3: 400]))
        #expect(try Self.contents(b) == Self.expected([1: 1, 2: 2, 3: 300]))
    }

    /// A damaged last record of a linked store: its index still vouches for it, so it is
    /// reported as damage and its route stays listed, as in a store of its own; it is
    /// not cut away as a torn tail.
    @Test func aDamagedLastRecordOfALinkedStoreIsReportedNotCut() throws {
        let dir = TemporaryDirectory()
        let a = dir.store("a.routelog"), b = dir.store("b.routelog")
        try Self.make(a, routes: 1...3)
        let segment = a.appendingPathComponent(try #require(try Self.segments(a).last))
        var bytes = try Data(contentsOf: segment)
        bytes[bytes.count - 40] ^= 0xFF
        try bytes.write(to: segment)
        try Self.link(a, to: b)

        for url in [b, a] {
            let writer = try RouteStore(at: url, options: .init(compaction: .manual))
            #expect(try writer.summaries().map(\.id.rawValue) == [1, 2, 3], "\(url.lastPathComponent)")
            _ = try writer.save(Self.route(700))
            try writer.close()
            let report = try RouteStore(at: url, options: .init(mode: .readOnly)).verify()
            #expect(!report.isClean, "\(url.lastPathComponent): the damaged route 3 went unreported")
        }
        // B's open left A's file as it was.
        #expect(try Data(contentsOf: segment).prefix(bytes.count) == bytes)
    }

    /// The same when the original's writer, live, rolled to a new segment after the
    /// stores were linked: the linked store's copy of the index ends, for it, where the
    /// original's entries for that segment begin, and still vouches for what comes before.
    @Test func aDamagedLastRecordIsReportedAfterTheOriginalRolledPastTheLink() throws {
        let dir = TemporaryDirectory()
        let a = dir.store("a.routelog"), b = dir.store("b.routelog")
        var options = RouteStore.Options(compaction: .manual)
        options.segmentSizeLimit = 16_384
        let writerA = try RouteStore(at: a, options: options)
        defer { try? writerA.close() }
        var inFirstSegment: [UInt64] = []
        var n = 1
        for _ in 0..<2 {
            inFirstSegment.append(try writerA.save(Self.route(n)).rawValue)
            n += 1
        }
        let first = try #require(try Self.segments(a).first)
        try #require(try Self.segments(a).count == 1)
        try Self.link(a, to: b)
        // The original goes on, into the shared segment and then past it.
        while try Self.segments(a).count == 1, n < 40 {
            let id = try writerA.save(Self.route(n)).rawValue
            if try Self.segments(a).count == 1 { inFirstSegment.append(id) }
            n += 1
        }
        try #require(try Self.segments(a).count == 2, "the original never rolled")
        // The last record of the shared first segment, damaged (in both stores' file).
        let segment = b.appendingPathComponent(first)
        var bytes = try Data(contentsOf: segment)
        bytes[bytes.count - 40] ^= 0xFF
        try bytes.write(to: segment)

        let writerB = try RouteStore(at: b, options: .init(compaction: .manual))
        #expect(try writerB.summaries().map(\.id.rawValue) == inFirstSegment)
        try writerB.close()
        let report = try RouteStore(at: b, options: .init(mode: .readOnly)).verify()
        #expect(!report.isClean, "the damaged route \(inFirstSegment.last!) went unreported")
    }
}
