import Foundation
import Testing
@testable import RouteLog
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Import inputs that are not regular files: a FIFO (or a socket or device) given to any
/// importer by path is refused at once, naming it, instead of blocking for ever on its
/// open or its first read; a directory import passes over such an entry without opening
/// it and reports it; a symbolic link to a regular file still imports.
@Suite struct ImportSpecialFileTests {
    /// A FIFO with no writer, in `directory`.
    static func fifo(in directory: TemporaryDirectory, named name: String = "pipe.gpx") -> URL {
        let url = directory.url.appendingPathComponent(name)
        #expect(mkfifo(url.path, 0o600) == 0)
        return url
    }

    /// The result of `body`, run on a thread of its own and waited for at most `seconds`;
    /// nil when it did not finish, so that a call blocked on the FIFO fails the test
    /// instead of hanging the suite. The FIFO is then opened for writing and closed until
    /// the call returns, which ends a blocked open (a writer came) and read (end of file).
    static func finishing<T>(_ fifo: URL, within seconds: Double = 5, onTimeout: () -> Void = {},
                             _ body: @escaping @Sendable () throws -> T) -> Result<T, RouteLogError>? {
        let box = FinishingBox<T>()
        Thread.detachNewThread {
            do {
                box.result = .success(try body())
            } catch let error as RouteLogError {
                box.result = .failure(error)
            } catch {
                box.result = .failure(RouteLogError(.io, "\(error)"))
            }
            box.done.signal()
        }
        if box.done.wait(timeout: .now() + seconds) == .success { return box.result }
        onTimeout()
        repeat {
            let writer = open(fifo.path, O_RDWR | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        } while box.done.wait(timeout: .now() + 0.1) == .timedOut
        return nil
    }

    static func expectRefused<T>(_ result: Result<T, RouteLogError>?, _ fifo: URL,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        guard let result else {
            Issue.record("blocked on the FIFO", sourceLocation: sourceLocation)
            return
        }
        guard case .failure(let error) = result else {
            Issue.record("a FIFO was read as a file", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
        #expect(error.path == fifo.path, sourceLocation: sourceLocation)
        #expect(error.message.contains("not a regular file (a FIFO, socket or device)"), "\(error)",
                sourceLocation: sourceLocation)
    }

    @Test func everyImporterGivenAFIFOIsRefusedAtOnceNamingIt() throws {
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store())
        defer { try? store.close() }
        let fifo = Self.fifo(in: directory)
        Self.expectRefused(Self.finishing(fifo) { try RouteFileKind.detect(contentsOf: fifo) }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try RouteImporter.read(contentsOf: fifo).routes.count }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try RouteImporter.importFile(fifo, into: store).routeIDs }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try GPXImporter.read(contentsOf: fifo).routes.count }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try GPXImporter.importFile(fifo, into: store).routeIDs }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try TCXImporter.read(contentsOf: fifo).routes.count }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try TCXImporter.importFile(fifo, into: store).routeIDs }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try FITImporter.read(contentsOf: fifo).routes.count }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try FITImporter.importFile(fifo, into: store).routeIDs }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try LegacyArchiveMigrator.migrate(fifo, into: store).routeIDs }, fifo)
        #expect(try store.summaries().isEmpty)
        // A FIFO that has a writer (which lets even a blocking open through) is refused
        // too, before its first read; on a timeout the writer goes, so the read ends.
        for read in [{ try RouteImporter.read(contentsOf: fifo).routes.count },
                     { try FITImporter.read(contentsOf: fifo).routes.count },
                     { try GPXImporter.read(contentsOf: fifo).routes.count }] as [@Sendable () throws -> Int] {
            var writer = open(fifo.path, O_RDWR | O_NONBLOCK)
            #expect(writer >= 0)
            Self.expectRefused(Self.finishing(fifo, onTimeout: { close(writer); writer = -1 }, read), fifo)
            if writer >= 0 { close(writer) }
        }
    }

    #if os(Linux)
    /// A FIFO (or a device) is refused from what `stat` says, before any open: opening
    /// some devices does something by itself. inotify sees every open of the FIFO; there
    /// must be none. (The open-and-`fstat` check after it is what the tests above meet
    /// when the FIFO has a writer; here nothing else opens it.)
    @Test func aFIFOIsRefusedWithoutBeingOpened() throws {
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store())
        defer { try? store.close() }
        let fifo = Self.fifo(in: directory)
        let watcher = inotify_init1(Int32(IN_NONBLOCK))
        #expect(watcher >= 0)
        defer { close(watcher) }
        #expect(inotify_add_watch(watcher, fifo.path, UInt32(IN_OPEN)) >= 0)
        Self.expectRefused(Self.finishing(fifo) { try RouteFileKind.detect(contentsOf: fifo) }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try GPXImporter.read(contentsOf: fifo).routes.count }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try TCXImporter.importFile(fifo, into: store).routeIDs }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try FITImporter.read(contentsOf: fifo).routes.count }, fifo)
        Self.expectRefused(Self.finishing(fifo) { try LegacyArchiveMigrator.migrate(fifo, into: store).routeIDs }, fifo)
        var events = [UInt8](repeating: 0, count: 4096)
        let got = read(watcher, &events, events.count)
        let code = errno
        #expect(got < 0 && code == EAGAIN, "the FIFO was opened: \(got) bytes of inotify events")
        // The watch itself works: an open of the FIFO is seen.
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        if reader >= 0 { close(reader) }
        #expect(read(watcher, &events, events.count) > 0, "inotify saw the test's own open")
    }
    #endif

    @Test func aSocketIsRefusedAsNotARegularFile() throws {
        let directory = TemporaryDirectory()
        let url = directory.url.appendingPathComponent("s.gpx")
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let socket = socket(AF_UNIX, stream, 0)
        #expect(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let path = Array(url.path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: path)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        let error = try #require(throwsError { try RouteImporter.read(contentsOf: url) })
        #expect(error.code == .invalidArgument && error.path == url.path)
        #expect(error.message.contains("not a regular file (a FIFO, socket or device)"), "\(error)")
    }

    @Test func aDirectoryImportPassesOverAFIFOWithoutOpeningItAndReportsIt() throws {
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store())
        defer { try? store.close() }
        let files = TemporaryDirectory("\(#function)-files")
        let gpx = files.url.appendingPathComponent("b-walk.gpx")
        try FileManager.default.copyItem(at: InterchangeFixtures.gpx("gpxgo__visnjan.gpx"), to: gpx)
        let fifo = Self.fifo(in: files, named: "a-pipe.gpx")
        let listed = try #require(Self.finishing(fifo) { RouteImporter.routeFiles(in: files.url) }, "blocked on the FIFO")
        #expect(try listed.get().map(\.lastPathComponent) == ["b-walk.gpx"])
        let gpxListed = try #require(Self.finishing(fifo) { GPXImporter.gpxFiles(in: files.url) }, "blocked on the FIFO")
        #expect(try gpxListed.get().map(\.lastPathComponent) == ["b-walk.gpx"])

        let imported = try #require(Self.finishing(fifo) { RouteImporter.importDirectory(files.url, into: store) },
                                    "blocked on the FIFO")
        let outcomes = try imported.get()
        #expect(outcomes.map(\.file.lastPathComponent) == ["a-pipe.gpx", "b-walk.gpx"])
        Self.expectRefused(outcomes.first?.result, fifo)
        #expect(try outcomes.last?.result.get().routeIDs.count == 1)

        let again = try #require(Self.finishing(fifo) { GPXImporter.importDirectory(files.url, into: store) },
                                 "blocked on the FIFO")
        let gpxOutcomes = try again.get()
        #expect(gpxOutcomes.map(\.file.lastPathComponent) == ["a-pipe.gpx", "b-walk.gpx"])
        Self.expectRefused(gpxOutcomes.first?.result, fifo)
        #expect(try gpxOutcomes.last?.result.get().duplicates.count == 1, "the walk was imported once already")
        #expect(try store.summaries().count == 1)
    }

    @Test func aSymbolicLinkToARouteFileStillImports() throws {
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store())
        defer { try? store.close() }
        let fit = directory.url.appendingPathComponent("ride.fit")
        try Data(FITForge.walk(5).file()).write(to: fit)
        let links = TemporaryDirectory("\(#function)-links")
        let gpxLink = links.url.appendingPathComponent("walk.gpx")
        let fitLink = links.url.appendingPathComponent("ride.fit")
        try FileManager.default.createSymbolicLink(at: gpxLink, withDestinationURL: InterchangeFixtures.gpx("gpxgo__visnjan.gpx"))
        try FileManager.default.createSymbolicLink(at: fitLink, withDestinationURL: fit)
        #expect(try RouteFileKind.detect(contentsOf: gpxLink) == .gpx)
        #expect(try GPXImporter.read(contentsOf: gpxLink).routes.count == 1)
        #expect(try FITImporter.read(contentsOf: fitLink).routes.first?.points.count == 5)
        #expect(RouteImporter.routeFiles(in: links.url).map(\.lastPathComponent) == ["ride.fit", "walk.gpx"])
        let outcomes = RouteImporter.importDirectory(links.url, into: store)
        #expect(outcomes.map { (try? $0.result.get())?.routeIDs.count } == [1, 1])
        // A link to a FIFO is refused like the FIFO.
        let fifo = Self.fifo(in: directory)
        let fifoLink = directory.url.appendingPathComponent("link-to-pipe.gpx")
        try FileManager.default.createSymbolicLink(at: fifoLink, withDestinationURL: fifo)
        let refused = Self.finishing(fifo) { try RouteImporter.read(contentsOf: fifoLink).routes.count }
        if case .failure(let error)? = refused {
            #expect(error.path == fifoLink.path && error.message.contains("not a regular file"), "\(error)")
        } else {
            Issue.record("a link to a FIFO was not refused: \(String(describing: refused))")
        }
    }
}

/// What a call run on its own thread gave, and when it finished (written by that thread
/// before it signals, read after the wait).
private final class FinishingBox<T>: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var result: Result<T, RouteLogError>?
}
