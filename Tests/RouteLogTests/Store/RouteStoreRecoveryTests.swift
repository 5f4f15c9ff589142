import Foundation
import Testing
@testable import RouteLog

@Suite(.tags(.slow)) struct RouteStoreRecoveryTests {
    /// A store of three small routes; returns the routes and the offset where the last
    /// record starts.
    static func makeStore(at url: URL, count: Int = 3) throws -> ([RouteID: Route], lastRecordStart: Int64, segment: URL) {
        let store = try RouteStore(at: url)
        var routes: [RouteID: Route] = [:]
        var lastStart: Int64 = 0
        for i in 0..<count {
            let route = Fixtures.sampleWalk(seed: UInt64(i), points: 20)
            lastStart = try store.statistics().segments.last!.bytes
            routes[try store.save(route)] = route
        }
        try store.close()
        return (routes, lastStart, url.appendingPathComponent("seg-00000001.rlseg"))
    }

    static func copy(_ from: URL, to: URL) throws {
        try? FileManager.default.removeItem(at: to)
        try FileManager.default.copyItem(at: from, to: to)
    }

    /// The last record cut at every offset, as a crash never leaves it: the index (written
    /// after the segment's sync) names it, so it is damage, never a torn tail: the route
    /// stays listed and reads fail naming the file and offset; the writer cuts nothing
    /// and appends to a new segment.
    @Test func aCutRecordTheIndexVouchesForIsDamageNotATornTail() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let (routes, lastStart, _) = try Self.makeStore(at: template)
        let segmentName = "seg-00000001.rlseg"
        let segmentSize = try FileManager.default.attributesOfItem(atPath: template.appendingPathComponent(segmentName).path)[.size] as! Int64
        let lastID = routes.keys.max()!
        let work = dir.store("work.routelog")
        for cut in stride(from: lastStart, to: segmentSize, by: 7) {
            try Self.copy(template, to: work)
            let segment = try FileHandle(forWritingTo: work.appendingPathComponent(segmentName))
            try segment.truncate(atOffset: UInt64(cut))
            try segment.close()
            let reader = try RouteStore(readOnlyAt: work)
            #expect(try reader.count == routes.count, "cut at \(cut)")
            do {
                _ = try reader.route(lastID)
                Issue.record("cut at \(cut): a cut route loaded")
            } catch let error as RouteLogError {
                #expect(error.code == .corrupted && error.offset == lastStart, "cut at \(cut): \(error)")
            }
            let store = try RouteStore(at: work)
            for (id, route) in routes where id != lastID {
                #expect(try store.route(id).withoutUUID == RouteCodec.quantize(route), "cut at \(cut)")
            }
            let newID = try store.save(Fixtures.sampleWalk(seed: 99, points: 5))
            let report = try store.verify()
            #expect(report.problems.contains { $0.routeID == lastID && $0.offset == lastStart }, "cut at \(cut): \(report.problems)")
            try store.close()
            // Nothing was cut: the damaged bytes stay for whoever repairs the store.
            let size = try FileManager.default.attributesOfItem(atPath: work.appendingPathComponent(segmentName).path)[.size] as! Int64
            #expect(size == cut, "cut at \(cut)")
            let reopened = try RouteStore(readOnlyAt: work)
            #expect(try reopened.route(newID).points.count == 5)
            #expect(try reopened.count == routes.count + 1)
        }
    }

    /// A torn tail the index does not name (the index lost its last records, or the
    /// append was cut before its index record): readers never see it, and a writer
    /// copies it into lost/ before cutting it, so no byte is destroyed.
    @Test func aTornTailIsMovedToLostBeforeItIsCut() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let (routes, lastStart, _) = try Self.makeStore(at: template)
        let segmentName = "seg-00000001.rlseg"
        let segmentSize = try FileManager.default.attributesOfItem(atPath: template.appendingPathComponent(segmentName).path)[.size] as! Int64
        let original = try Data(contentsOf: template.appendingPathComponent(segmentName))
        let work = dir.store("work.routelog")
        for cut in stride(from: lastStart + 1, to: segmentSize, by: 5) {
            try Self.copy(template, to: work)
            try original.prefix(Int(cut)).write(to: work.appendingPathComponent(segmentName))
            try FileManager.default.removeItem(at: work.appendingPathComponent("index-00000002.rlidx"))
            let reader = try RouteStore(readOnlyAt: work)
            #expect(try reader.count == routes.count - 1, "cut at \(cut)")
            let store = try RouteStore(at: work)
            #expect(try store.count == routes.count - 1, "cut at \(cut)")
            let newID = try store.save(Fixtures.sampleWalk(seed: 99, points: 5))
            try store.close()
            let reopened = try RouteStore(readOnlyAt: work)
            #expect(try reopened.route(newID).points.count == 5)
            let report = try reopened.verify()
            #expect(report.isClean, "cut at \(cut): \(report.problems)")
            // The cut bytes are in lost/, byte for byte, with a line saying whence.
            let lost = report.lostFiles
            #expect(lost.map(\.name) == ["\(segmentName)@\(lastStart)"], "cut at \(cut)")
            let kept = try Data(contentsOf: work.appendingPathComponent("lost/\(segmentName)@\(lastStart)"))
            #expect(kept == original[Int(lastStart)..<Int(cut)], "cut at \(cut)")
            #expect(lost.first?.note?.contains("offset \(lastStart) length \(cut - lastStart)") == true, "\(lost)")
        }
    }

    /// An open that copies a torn tail into lost/ and then fails (here lost/LOG is a
    /// directory, so the line cannot be written), retried as an app retries at every
    /// launch, keeps one copy, not one a try; once the open can finish, it notes that
    /// copy and cuts the tail.
    @Test func aRetriedOpenKeepsOneCopyOfATornTail() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (routes, _, segmentURL) = try Self.makeStore(at: url, count: 4)
        let size = try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64
        let handle = try FileHandle(forWritingTo: segmentURL)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0xA7, count: 300_000))
        try handle.close()
        let lostDirectory = url.appendingPathComponent("lost")
        try FileManager.default.createDirectory(at: lostDirectory.appendingPathComponent("LOG"), withIntermediateDirectories: true)
        for attempt in 0..<4 {
            #expect(throws: RouteLogError.self, "attempt \(attempt)") { try RouteStore(at: url) }
        }
        let copies = try FileManager.default.contentsOfDirectory(atPath: lostDirectory.path).filter { $0 != "LOG" }
        #expect(copies == ["seg-00000001.rlseg@\(size)"], "\(copies)")
        try FileManager.default.removeItem(at: lostDirectory.appendingPathComponent("LOG"))
        let store = try RouteStore(at: url)
        #expect(try store.count == routes.count)
        try store.close()
        let report = try RouteStore(readOnlyAt: url).verify()
        #expect(report.lostFiles.map(\.name) == ["seg-00000001.rlseg@\(size)"])
        #expect(report.lostFiles.first?.note?.contains("offset \(size) length 300000") == true, "\(report.lostFiles)")
        #expect(try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64 == size)
    }

    /// A store with a torn tail of `length` bytes after its records; returns its URL, the
    /// segment and the tail's bytes and offset.
    static func storeWithTornTail(_ dir: TemporaryDirectory, length: Int = 3_000) throws -> (URL, URL, [UInt8], Int64) {
        let url = dir.store()
        let (_, _, segmentURL) = try Self.makeStore(at: url, count: 3)
        let size = try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64
        let tail = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let handle = try FileHandle(forWritingTo: segmentURL)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(tail))
        try handle.close()
        return (url, segmentURL, tail, size)
    }

    /// A copy a crashed open left in lost/ may never have been synced: an open that
    /// relies on it syncs it (and lost/) before it cuts the tail.
    @Test func aCopyLeftByACrashIsSyncedBeforeTheCut() throws {
        let dir = TemporaryDirectory()
        let (url, segmentURL, tail, size) = try Self.storeWithTornTail(dir)
        let lost = url.appendingPathComponent("lost")
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        let copyPath = lost.appendingPathComponent("seg-00000001.rlseg@\(size)").path
        try Data(tail).write(to: URL(fileURLWithPath: copyPath))
        let fs = InterceptingFileSystem()
        let operations = StateLock<[InterceptingFileSystem.Operation]>([])
        fs.observe { op in operations.withLock { $0.append(op) } }
        try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs).close()
        let ops = operations.withLock { $0 }
        let synced = ops.firstIndex { if case .syncAll(let ref) = $0 { return ref.path == copyPath }; return false }
        let cut = ops.firstIndex { if case .truncate(let ref, _) = $0 { return ref.path == segmentURL.path }; return false }
        #expect(synced != nil && cut != nil && synced! < cut!, "the copy synced at \(String(describing: synced)), the cut at \(String(describing: cut))")
        #expect(ops.contains { if case .syncDirectory(let path) = $0 { return path == lost.path }; return false })
        let entries = try FileManager.default.contentsOfDirectory(atPath: lost.path).sorted()
        #expect(entries == ["LOG", "seg-00000001.rlseg@\(size)"], "\(entries)")
    }

    /// A held copy that changes between the check and its sync (another file renamed
    /// over its name, or a second name linked to it) is not relied on: the open makes a
    /// copy of its own before it cuts.
    @Test(arguments: ["renamed over", "linked"])
    func aCopyThatChangesWhileItIsSyncedIsNotReliedOn(_ change: String) throws {
        let dir = TemporaryDirectory()
        let (url, segmentURL, tail, size) = try Self.storeWithTornTail(dir)
        let lost = url.appendingPathComponent("lost")
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        let copy = lost.appendingPathComponent("seg-00000001.rlseg@\(size)")
        try Data(tail).write(to: copy)
        let other = dir.url.appendingPathComponent("other")
        let fs = InterceptingFileSystem()
        let done = StateLock(false)
        fs.observe { op in
            guard case .syncAll(let ref) = op, ref.path == copy.path, !done.withLock({ $0 }) else { return }
            done.withLock { $0 = true }
            if change == "renamed over" {
                try? Data("something else".utf8).write(to: other)
                _ = rename(other.path, copy.path)
            } else {
                try? FileManager.default.linkItem(at: copy, to: other)
            }
        }
        try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs).close()
        #expect(done.withLock { $0 }, "the held copy was synced")
        #expect(try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64 == size)
        let own = lost.appendingPathComponent("seg-00000001.rlseg@\(size).2")
        #expect(try Data(contentsOf: own) == Data(tail), "a copy of its own")
        #expect(try FileManager.default.attributesOfItem(atPath: own.path)[.referenceCount] as? Int == 1)
        let log = try String(contentsOf: lost.appendingPathComponent("LOG"), encoding: .utf8)
        #expect(log.contains("seg-00000001.rlseg offset \(size) length \(tail.count)"), "\(log)")
    }

    /// What lost/ holds is relied on only when it is RouteLog's kind of copy: a hard
    /// link to a file elsewhere, a twin not named as RouteLog names them, or a lost/ that
    /// is a link are not; the open makes a copy of its own (or refuses the linked lost/).
    @Test(arguments: ["hard link", "bak twin", "zero twin", "linked lost"])
    func aPlantedCopyIsNotReliedOn(_ plant: String) throws {
        let dir = TemporaryDirectory()
        let (url, segmentURL, tail, size) = try Self.storeWithTornTail(dir)
        let lost = url.appendingPathComponent("lost")
        let outside = dir.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let outsideCopy = outside.appendingPathComponent("seg-00000001.rlseg@\(size)")
        try Data(tail).write(to: outsideCopy)
        switch plant {
        case "hard link":
            try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
            try FileManager.default.linkItem(at: outsideCopy, to: lost.appendingPathComponent("seg-00000001.rlseg@\(size)"))
        case "bak twin", "zero twin":
            try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
            try Data(tail).write(to: lost.appendingPathComponent("seg-00000001.rlseg@\(size).\(plant == "bak twin" ? "bak" : "007")"))
        default:
            try FileManager.default.createSymbolicLink(at: lost, withDestinationURL: outside)
        }
        if plant == "linked lost" {
            #expect(throws: RouteLogError.self) { try RouteStore(at: url, options: .init(compaction: .manual)) }
            #expect(try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64 == size + Int64(tail.count),
                    "nothing was cut")
            return
        }
        try RouteStore(at: url, options: .init(compaction: .manual)).close()
        #expect(try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64 == size)
        // The planted file changes or goes (the outside file emptied, the .bak removed):
        // the tail is still kept, in a copy of RouteLog's own with one name, and noted.
        try FileHandle(forWritingTo: outsideCopy).truncate(atOffset: 0)
        for twin in ["bak", "007"] { try? FileManager.default.removeItem(at: lost.appendingPathComponent("seg-00000001.rlseg@\(size).\(twin)")) }
        let kept = try FileManager.default.contentsOfDirectory(atPath: lost.path).filter { name in
            let path = lost.appendingPathComponent(name).path
            return name != "LOG" && (try? Data(contentsOf: URL(fileURLWithPath: path))) == Data(tail)
                && (try? FileManager.default.attributesOfItem(atPath: path)[.referenceCount] as? Int) == 1
        }
        #expect(kept.count == 1, "\((try? FileManager.default.contentsOfDirectory(atPath: lost.path)) ?? [])")
        let log = try String(contentsOf: lost.appendingPathComponent("LOG"), encoding: .utf8)
        #expect(log.contains("seg-00000001.rlseg offset \(size) length \(tail.count)"), "\(log)")
    }

    @Test func aFlippedBitIsReportedAndTheOtherRoutesStillLoad() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (routes, _, segmentURL) = try Self.makeStore(at: url, count: 5)
        let victim = RouteID(3)
        let location = try RouteStore(readOnlyAt: url).state.withLock { $0.index.routes[victim]!.location }
        var bytes = try Data(contentsOf: segmentURL)
        bytes[Int(location.offset) + 100] ^= 0x10
        try bytes.write(to: segmentURL)

        for store in [try RouteStore(readOnlyAt: url), try RouteStore(at: url)] {
            do {
                _ = try store.route(victim)
                Issue.record("a damaged route loaded")
            } catch let error as RouteLogError {
                #expect(error.code == .corrupted)
                #expect(error.path == segmentURL.path)
                #expect(error.offset == location.offset)
            }
            for (id, route) in routes where id != victim {
                #expect(try store.route(id).withoutUUID == RouteCodec.quantize(route))
            }
            let report = try store.verify()
            #expect(!report.isClean)
            #expect(report.problems.contains { $0.routeID == victim && $0.path == segmentURL.path })
            try store.close()
        }
        // Without the index, the rebuild from segments skips the damaged record, names it,
        // and keeps the rest.
        try FileManager.default.removeItem(at: url.appendingPathComponent("index-00000002.rlidx"))
        let rebuilt = try RouteStore(at: url)
        #expect(try rebuilt.count == 4)
        let report = try rebuilt.verify()
        #expect(report.problems.contains { $0.kind == .damagedBytes && $0.offset == location.offset })
        // The store keeps working.
        let id = try rebuilt.save(Fixtures.sampleWalk(points: 7))
        #expect(try rebuilt.route(id).points.count == 7)
    }

    @Test(arguments: ["delete", "damage", "truncate", "garbage header"])
    func aMissingOrDamagedIndexIsRebuiltFromTheSegments(_ how: String) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        var expected: ExpectedStore
        do {
            let store = try RouteStore(at: url, options: .init(compaction: .manual))
            for i in 0..<12 { try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 30)) }
            try store.delete(RouteID(4))
            try store.edit(RouteID(5), RouteEdit(shift: 3600, name: "edited"))
            expected = try ExpectedStore(store, deleted: [RouteID(4)])
            try store.close()
        }
        let indexURL = url.appendingPathComponent("index-00000002.rlidx")
        var bytes = try Data(contentsOf: indexURL)
        switch how {
        case "delete": try FileManager.default.removeItem(at: indexURL)
        case "damage": bytes[bytes.count / 2] ^= 0xFF; try bytes.write(to: indexURL)
        case "truncate": try bytes.prefix(bytes.count / 2).write(to: indexURL)
        default: bytes[3] = 0; try bytes.write(to: indexURL)
        }
        let reader = try RouteStore(readOnlyAt: url)
        #expect(expected.mismatches(in: reader).isEmpty, "\(how): \(expected.mismatches(in: reader))")
        let store = try RouteStore(at: url)
        #expect(expected.mismatches(in: store).isEmpty, "\(how): \(expected.mismatches(in: store))")
        #expect(try store.verify().isClean)
        try store.close()
        // The rewritten index is whole: the next open needs no rebuild.
        let again = try RouteStore(at: url)
        #expect(again.state.withLock { !$0.indexRebuilt })
        #expect(expected.mismatches(in: again).isEmpty)
    }

    @Test func aStoreFromANewerFormatIsRefused() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        _ = try Self.makeStore(at: url)
        for name in ["MANIFEST", "seg-00000001.rlseg"] {
            let file = url.appendingPathComponent(name)
            let original = try Data(contentsOf: file)
            var bytes = original
            bytes[10] = 3  // version 3
            let crc = Checksum.masked(Array(bytes.prefix(16)), 0..<16)
            for i in 0..<4 { bytes[16 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
            try bytes.write(to: file)
            let before = directorySnapshot(url)
            for open in [{ _ = try RouteStore(at: url) }, { _ = try RouteStore(readOnlyAt: url) }] {
                do {
                    try open()
                    Issue.record("a version 3 \(name) opened")
                } catch let error as RouteLogError {
                    #expect(error.code == .unsupportedVersion)
                    #expect(error.message.contains("version 3") && error.message.contains("up to 2"), "\(error.message)")
                }
            }
            #expect(directorySnapshot(url) == before, "opening a newer store changed it")
            try original.write(to: file)
        }
        #expect(try RouteStore(at: url).count == 3)
    }

    @Test func thingsThatAreNotStoresAreRefusedClearly() throws {
        let dir = TemporaryDirectory()
        // A directory of other files.
        let photos = dir.store("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try Data([0xFF, 0xD8, 0xFF, 0xE0]).write(to: photos.appendingPathComponent("IMG_0001.jpg"))
        #expect(throws: RouteLogError.self) { try RouteStore(at: photos) }
        do { _ = try RouteStore(at: photos) } catch let e as RouteLogError {
            #expect(e.code == .invalidArgument)
            #expect(e.message.contains("IMG_0001.jpg"))
        }
        #expect(directorySnapshot(photos).keys.sorted() == ["IMG_0001.jpg"])
        // A plain file.
        let file = dir.url.appendingPathComponent("routes.jpg")
        try Data([0xFF, 0xD8]).write(to: file)
        do { _ = try RouteStore(at: file); Issue.record("opened a file") } catch let e as RouteLogError {
            #expect(e.code == .invalidArgument)
        }
        // Nothing there, read-only.
        do { _ = try RouteStore(readOnlyAt: dir.store("missing")); Issue.record("opened nothing") } catch let e as RouteLogError {
            #expect(e.code == .notFound)
        }
        // A MANIFEST that is not one.
        let fake = dir.store("fake")
        try FileManager.default.createDirectory(at: fake, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: fake.appendingPathComponent("MANIFEST"))
        do { _ = try RouteStore(at: fake); Issue.record("opened a fake") } catch let e as RouteLogError {
            #expect(e.code == .corrupted)
            #expect(e.path?.hasSuffix("MANIFEST") == true)
        }
    }

    @Test func aSecondWriterIsRefusedAndReadersWorkBesideTheWriter() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let first = try writer.save(Fixtures.sampleWalk(seed: 1, points: 50))
        do {
            _ = try RouteStore(at: url)
            Issue.record("a second writer opened the store")
        } catch let error as RouteLogError {
            #expect(error.code == .locked)
            #expect(error.pid == getpid())
            #expect(error.message.contains("\(getpid())"))
        }
        #expect(RouteStore.writerProcess(at: url) == getpid())
        let reader = try RouteStore(readOnlyAt: url)
        #expect(try reader.count == 1)
        #expect(throws: RouteLogError.self) { try reader.save(Fixtures.sampleWalk(points: 3)) }
        let second = try writer.save(Fixtures.sampleWalk(seed: 2, points: 50))
        try writer.delete(first)
        #expect(try reader.count == 1)
        try reader.refresh()
        #expect(try reader.summaries().map(\.id) == [second])
        #expect(try reader.route(second) == writer.route(second))
        try writer.close()
        #expect(RouteStore.writerProcess(at: url) == nil)
        #expect(try RouteStore(at: url).count == 1)
    }

    @Test func anIncompleteBatchAtTheEndIsDroppedWhole() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url)
        try store.save(Fixtures.sampleWalk(seed: 1, points: 10))
        let before = try store.statistics().segments.last!.bytes
        try store.save((2..<5).map { Fixtures.sampleWalk(seed: UInt64($0), points: 10) })
        let after = try store.statistics().segments.last!.bytes
        try store.close()
        // Cut inside the batch's last record: the two complete records before it must go too.
        let segment = try FileHandle(forWritingTo: url.appendingPathComponent("seg-00000001.rlseg"))
        try segment.truncate(atOffset: UInt64(after - 3))
        try segment.close()
        try FileManager.default.removeItem(at: url.appendingPathComponent("index-00000002.rlidx"))
        let reopened = try RouteStore(at: url)
        #expect(try reopened.count == 1)
        #expect(try reopened.statistics().segments.last!.bytes == before)
    }
}
