import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A segment the store's cache closed is opened again as the very file the store opened
/// (SegmentFileCache): a copy under its name (the same header, even the same bytes) is
/// refused, and a writer reopens it in the directory it holds, so a store moved while
/// open is read where it went, never another store put at its path. The cache keeps one
/// descriptor here, so reading one route closes the segment of the route read before.
@Suite struct SegmentReopenIdentityTests {
    /// A route of its own segment: more than half of the 4 KiB limit each.
    struct Saved {
        let id: RouteID
        let route: Route
        let segment: UInt32
    }

    /// A compaction rewrites every sealed segment, whatever its dead bytes, so that the
    /// routes kept move to new files too.
    static let options: RouteStore.Options = {
        var options = RouteStore.Options(segmentSizeLimit: 4096, compaction: .manual)
        options.compactionRewriteThreshold = 0
        return options
    }()

    /// A closed store at `url` of `count` routes from `seed` on, each in a segment of its
    /// own, the first starting `later` seconds after the fixtures' usual start.
    static func make(_ url: URL, count: Int, seed: UInt64 = 0, later: TimeInterval = 0) throws -> [Saved] {
        let store = try RouteStore(at: url, options: options)
        var saved: [Saved] = []
        for i in 0..<count {
            let route = Fixtures.sampleWalk(seed: seed + UInt64(i), points: 500,
                                            start: Date(timeIntervalSince1970: 1_767_225_600 + later))
            let id = try store.save(route)
            saved.append(Saved(id: id, route: route, segment: store.state.withLock { $0.index.routes[id]!.location.segment }))
        }
        #expect(Set(saved.map(\.segment)).count == count, "one route a segment")
        try store.close()
        return saved
    }

    /// A writer, or a read-only handle, that keeps `limit` segment descriptors.
    static func handle(_ url: URL, readOnly: Bool, limit: Int = 1) throws -> RouteStore {
        var options = Self.options
        options.mode = readOnly ? .readOnly : .mustExist
        options.openSegmentFileLimit = limit
        return try RouteStore(at: url, options: options)
    }

    static func segment(_ number: UInt32, of url: URL) -> URL {
        url.appendingPathComponent(FormatConstants.segmentName(number))
    }

    /// Puts `bytes` (the file's own when nil) under the name of the file at `url` as a new
    /// file: written beside it, then renamed over it, as a restore from a backup does.
    static func replace(_ url: URL, by bytes: Data? = nil) throws {
        let contents = try bytes ?? Data(contentsOf: url)
        let copy = url.appendingPathExtension("restored")
        try contents.write(to: copy)
        #expect(rename(copy.path, url.path) == 0)
    }

    static func inode(_ url: URL) -> UInt64? { PosixFileSystem.shared.identityOfName(url.path)?.inode }

    static func expectReplaced(_ store: RouteStore, _ saved: Saved, at url: URL) {
        let path = segment(saved.segment, of: url).path
        do {
            _ = try store.route(saved.id)
            Issue.record("a copy put under segment \(saved.segment)'s name was read as the segment")
        } catch let error as RouteLogError {
            #expect(error.code == .corrupted && error.path == path && error.message.contains("replaced"), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test(arguments: [true, false]) func aSegmentReplacedByAnIdenticalCopyIsRefused(readOnly: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.make(url, count: 4)
        let store = try Self.handle(url, readOnly: readOnly)
        for route in saved { #expect(try store.route(route.id).withoutUUID == RouteCodec.quantize(route.route)) }
        #expect(store.segmentFiles.openCount <= 1)
        let replaced = Self.segment(saved[1].segment, of: url)
        let before = Self.inode(replaced)
        try Self.replace(replaced)
        #expect(Self.inode(replaced) != before, "the same bytes in another file")

        Self.expectReplaced(store, saved[1], at: url)
        // Refused each time, not only the first: the refused descriptor was not kept.
        Self.expectReplaced(store, saved[1], at: url)
        for route in saved where route.id != saved[1].id {
            #expect(try store.route(route.id).withoutUUID == RouteCodec.quantize(route.route), "route \(route.id)")
        }
        if !readOnly {
            let extra = Fixtures.sampleWalk(seed: 99, points: 50)
            let id = try store.save(extra)
            #expect(try store.route(id).withoutUUID == RouteCodec.quantize(extra))
        }
        try store.close()
    }

    /// A file system that gives every segment file made at a name the inode number of the
    /// one the name had (as ext4 does for a file made just after another was removed,
    /// with no descriptor left open on it): device and inode alone cannot tell a copy
    /// restored there from the file the store opened.
    struct InodeNumbersGivenAgain: ForwardingFileSystem {
        let base: any FileSystem

        static func given(_ identity: FileIdentity?, at path: String) -> FileIdentity? {
            guard let identity, path.contains(FormatConstants.segmentPrefix) else { return identity }
            var info = stat()
            info.st_dev = dev_t(identity.device)
            info.st_ino = ino_t(path.utf8.reduce(UInt64(5381)) { $0 &* 33 &+ UInt64($1) } >> 1)
            return FileIdentity(info)
        }

        func identity(_ file: FileRef) -> FileIdentity? { Self.given(base.identity(file), at: file.path) }
        func identityOfName(_ path: String) -> FileIdentity? { Self.given(base.identityOfName(path), at: path) }
        func identityOfName(_ name: String, in directory: DirectoryRef) -> FileIdentity? {
            Self.given(base.identityOfName(name, in: directory), at: directory.path(name))
        }
    }

    /// A copy restored where a segment was, with the device and inode of the segment (the
    /// number its removal freed): told apart by when it was made.
    @Test(arguments: [true, false]) func aCopyGivenTheSegmentsInodeNumberIsRefused(readOnly: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.make(url, count: 4)
        var options = Self.options
        options.mode = readOnly ? .readOnly : .mustExist
        options.openSegmentFileLimit = 1
        let fileSystem = InodeNumbersGivenAgain(base: PosixFileSystem.shared)
        let store = try RouteStore(at: url, options: options, fileSystem: fileSystem)
        for route in saved { #expect(try store.route(route.id).withoutUUID == RouteCodec.quantize(route.route)) }
        let replaced = Self.segment(saved[1].segment, of: url)
        let before = fileSystem.identityOfName(replaced.path)
        try Self.replace(replaced)
        #expect(fileSystem.identityOfName(replaced.path) == before, "the copy has the segment's device and inode")

        Self.expectReplaced(store, saved[1], at: url)
        for route in saved where route.id != saved[1].id {
            #expect(try store.route(route.id).withoutUUID == RouteCodec.quantize(route.route), "route \(route.id)")
        }
        try store.close()
    }

    /// The same on the real file system: the segment removed while no descriptor held it,
    /// and another store's segment of that number written at its name, which ext4 gives
    /// the removed file's inode number at once. Its records are whole, the same ids at the
    /// same places: only the file's identity tells it is not the segment.
    @Test func anotherStoresSegmentWrittenAtARemovedSegmentsNameIsRefused() throws {
        let dir = TemporaryDirectory()
        let url = dir.store("a.routelog"), other = dir.store("b.routelog")
        let saved = try Self.make(url, count: 4)
        _ = try Self.make(other, count: 4, later: 60)
        let reader = try Self.handle(url, readOnly: true)
        for route in saved { #expect(try reader.route(route.id).withoutUUID == RouteCodec.quantize(route.route)) }
        let target = Self.segment(saved[1].segment, of: url)
        let bytes = try Data(contentsOf: Self.segment(saved[1].segment, of: other))
        #expect(unlink(target.path) == 0)
        let fd = open(target.path, O_CREAT | O_EXCL | O_WRONLY, 0o600)
        #expect(fd >= 0)
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
        #expect(close(fd) == 0)

        Self.expectReplaced(reader, saved[1], at: url)
        try reader.close()
    }

    /// A symbolic link (to the segment's own bytes, kept elsewhere) or a FIFO put at the
    /// name of a segment the cache closed: never followed, never waited on, refused as no
    /// regular file (DurableFile's open, before any identity is compared).
    @Test(arguments: [(true, "link"), (true, "fifo"), (false, "link"), (false, "fifo")])
    func aLinkOrFIFOAtAClosedSegmentsNameIsRefused(readOnly: Bool, plant: String) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.make(url, count: 3)
        let store = try Self.handle(url, readOnly: readOnly)
        for route in saved { #expect(try store.route(route.id).withoutUUID == RouteCodec.quantize(route.route)) }
        let target = Self.segment(saved[0].segment, of: url)
        let aside = dir.url.appendingPathComponent("aside.rlseg")
        try FileManager.default.moveItem(at: target, to: aside)
        if plant == "link" {
            try FileManager.default.createSymbolicLink(at: target, withDestinationURL: aside)
        } else {
            #expect(mkfifo(target.path, 0o600) == 0)
        }
        do {
            _ = try store.route(saved[0].id)
            Issue.record("a \(plant) at segment \(saved[0].segment)'s name was read")
        } catch let error as RouteLogError {
            #expect(error.code == .corrupted && error.path == target.path, "\(error)")
            #expect(error.message.contains(plant == "link" ? "symbolic link" : "special file"), "\(error)")
        }
        #expect(try store.route(saved[1].id).withoutUUID == RouteCodec.quantize(saved[1].route))
        try store.close()
    }

    /// A writer whose last segment was closed by its cache, and an older copy of that
    /// segment restored over it: the next save is refused and writes nothing into the
    /// copy (which would have taken the record past its end, after a hole).
    @Test func anOlderCopyOfTheWritersLastSegmentIsNeverWritten() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.make(url, count: 3)
        let store = try Self.handle(url, readOnly: false)
        let last = store.state.withLock { $0.segments.last!.number }
        let lastURL = Self.segment(last, of: url)
        let older = try Data(contentsOf: lastURL)
        let small = try store.save(Fixtures.sampleWalk(seed: 50, points: 20))
        #expect(store.state.withLock { $0.index.routes[small]!.location.segment } == last, "appended to the last segment")
        #expect(try store.route(saved[0].id).withoutUUID == RouteCodec.quantize(saved[0].route))
        try Self.replace(lastURL, by: older)

        #expect(throws: RouteLogError.self, "the save reaches the restored copy") {
            _ = try store.save(Fixtures.sampleWalk(seed: 51, points: 20))
        }
        #expect(try Data(contentsOf: lastURL) == older, "the copy is as it was restored")
        do {
            _ = try store.route(small)
            Issue.record("a route read from the restored copy of segment \(last)")
        } catch let error as RouteLogError {
            #expect(error.code == .corrupted && error.path == lastURL.path && error.message.contains("replaced"), "\(error)")
        }
        try? store.close()
    }

    /// The store's directory renamed away and another store put at its path, whose
    /// routes start a minute later: the same ids in the same segments at the same places,
    /// each record whole, its checksum right. A writer reads on in the directory it
    /// holds; a read-only handle, which holds none, says the directory was moved.
    /// Neither reads the other store's routes.
    @Test(arguments: [true, false]) func aStoreMovedAwayIsNeverReadAsTheOnePutAtItsPath(readOnly: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store("a.routelog"), other = dir.store("b.routelog"), moved = dir.store("moved.routelog")
        let saved = try Self.make(url, count: 4)
        let others = try Self.make(other, count: 4, later: 60)
        #expect(saved.map(\.id) == others.map(\.id) && saved.map(\.segment) == others.map(\.segment))
        for route in saved {
            let size = { (store: URL) in try FileManager.default.attributesOfItem(atPath: Self.segment(route.segment, of: store).path)[.size] as? Int }
            #expect(try size(url) == size(other), "segment \(route.segment) is laid out alike in both stores")
        }
        let store = try Self.handle(url, readOnly: readOnly)
        for route in saved { #expect(try store.route(route.id).withoutUUID == RouteCodec.quantize(route.route)) }
        try FileManager.default.moveItem(at: url, to: moved)
        try FileManager.default.moveItem(at: other, to: url)

        for route in saved {
            do {
                let read = try store.route(route.id).withoutUUID
                #expect(read == RouteCodec.quantize(route.route), "route \(route.id) is the moved store's")
            } catch let error as RouteLogError {
                // The last route's segment is still open: it is read where it went.
                #expect(readOnly && route.id != saved.last!.id, "\(error)")
                #expect(error.message.contains("moved or replaced"), "\(error)")
            }
        }
        try store.close()
        // Both stores are whole, each with its own routes.
        for (location, routes) in [(moved, saved), (url, others)] {
            let reader = try RouteStore(readOnlyAt: location)
            for route in routes { #expect(try reader.route(route.id).withoutUUID == RouteCodec.quantize(route.route)) }
        }
    }

    /// Reads, saves, deletes and a compaction through a cache of two descriptors: every
    /// segment is opened again many times, by the writer and by a read-only handle that
    /// was open across the compaction, and each is the file the store opened.
    @Test func evictionAndReopeningAcrossACompactionRaiseNoAlarm() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        var saved = try Self.make(url, count: 10)
        let writer = try Self.handle(url, readOnly: false, limit: 2)
        let reader = try Self.handle(url, readOnly: true, limit: 2)
        for _ in 0..<2 {
            for route in saved.shuffled() {
                #expect(try writer.route(route.id).withoutUUID == RouteCodec.quantize(route.route))
                #expect(try reader.route(route.id).withoutUUID == RouteCodec.quantize(route.route))
            }
        }
        for seed in 200..<205 {
            let route = Fixtures.sampleWalk(seed: UInt64(seed), points: 500)
            let id = try writer.save(route)
            saved.append(Saved(id: id, route: route, segment: writer.state.withLock { $0.index.routes[id]!.location.segment }))
        }
        for route in saved.prefix(5) { try writer.delete(route.id) }
        let kept = Array(saved.dropFirst(5))
        _ = try writer.compact()
        let compacted = writer.state.withLock { $0.segments.numbers }
        #expect(!compacted.contains(saved[0].segment), "the compaction wrote new segments")
        for route in kept.shuffled() + kept.shuffled() {
            #expect(try writer.route(route.id).withoutUUID == RouteCodec.quantize(route.route))
        }
        // The reader's older segments are gone: each read follows its route to the new ones.
        for route in kept.prefix(5).shuffled() {
            #expect(try reader.route(route.id).withoutUUID == RouteCodec.quantize(route.route))
        }
        try reader.refresh()
        for route in kept.shuffled() + kept.shuffled() {
            #expect(try reader.route(route.id).withoutUUID == RouteCodec.quantize(route.route))
        }
        #expect(writer.segmentFiles.reopenCount > 20 && reader.segmentFiles.reopenCount > 20,
                "\(writer.segmentFiles.reopenCount) and \(reader.segmentFiles.reopenCount) reopens")
        #expect(try writer.verify().problems.isEmpty)
        try writer.close()
        try reader.close()
    }

    /// A read-only handle whose last segment's name leads to another file, that segment
    /// closed by its cache: its reads of the segment are refused until it catches up with
    /// the store's files, which tells the change from the identity it took at the open
    /// (not from a descriptor it no longer has) and reads the store again, as it does for
    /// a writer's open that gave the store a last segment of its own (below), before any
    /// look at that segment's bytes; also when the new file has the old one's device and
    /// inode (``InodeNumbersGivenAgain``).
    @Test(arguments: [false, true]) func aReaderCatchingUpReadsTheStoreAgainWhenItsLastSegmentIsAnotherFile(inodeGivenAgain: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.make(url, count: 4)
        var options = Self.options
        options.mode = .readOnly
        options.openSegmentFileLimit = 1
        let reader = try RouteStore(at: url, options: options, fileSystem: inodeGivenAgain
                                    ? InodeNumbersGivenAgain(base: PosixFileSystem.shared) : PosixFileSystem.shared)
        for route in saved.reversed() { #expect(try reader.route(route.id).withoutUUID == RouteCodec.quantize(route.route)) }
        try Self.replace(Self.segment(saved.last!.segment, of: url))
        Self.expectReplaced(reader, saved.last!, at: url)

        try reader.refresh()
        for route in saved { #expect(try reader.route(route.id).withoutUUID == RouteCodec.quantize(route.route)) }
        try reader.close()
    }

    /// The one change the store itself makes to the file at a listed segment's name: a
    /// writer's open gives the store a last segment of its own when a hard link shares it
    /// (LinkedFiles). A read-only handle open meanwhile reads the store again
    /// (refresh(), or following the writer) and then reads every route, the last
    /// segment's through the new file.
    @Test func aReaderReadsTheLastSegmentAWritersOpenMadeItsOwn() throws {
        let dir = TemporaryDirectory()
        let url = dir.store("a.routelog"), copy = dir.store("b.routelog")
        let saved = try Self.make(url, count: 4)
        let reader = try Self.handle(url, readOnly: true)
        for route in saved { #expect(try reader.route(route.id).withoutUUID == RouteCodec.quantize(route.route)) }
        try HardLinkedStoreTests.link(url, to: copy)
        let last = Self.segment(saved.last!.segment, of: url)
        let shared = Self.inode(last)
        let writer = try Self.handle(url, readOnly: false)
        #expect(Self.inode(last) != shared, "the writer's open gave the store a last segment of its own")
        let extra = Fixtures.sampleWalk(seed: 77, points: 40)
        let extraID = try writer.save(extra)

        try reader.refresh()
        for route in saved.shuffled() + saved.shuffled() {
            #expect(try reader.route(route.id).withoutUUID == RouteCodec.quantize(route.route))
        }
        #expect(try reader.route(extraID).withoutUUID == RouteCodec.quantize(extra))
        try writer.close()
        try reader.close()
    }
}
