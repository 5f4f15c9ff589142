import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Any number of segments under a small limit of open files (issue 12, part 8): a
/// store keeps at most `openSegmentFileLimit` segment descriptors open when it is not
/// reading them, so a thousand segments open, read, take saves and compact under
/// `ulimit -n 64`, where one descriptor per segment failed at 248 segments under 256.
@Suite(.tags(.slow)) struct SegmentFileLimitTests {
    static let segmentCount = 1_000

    /// A store of `segmentCount` segments, one route each (every route is bigger than
    /// half the 4 KiB segment limit), saved without syncs to keep the test short.
    static func makeStore(at url: URL) throws -> [RouteID: Route] {
        var options = RouteStore.Options(segmentSizeLimit: 4096, compaction: .manual)
        options.durability = .buffered
        let store = try RouteStore(at: url, options: options, fileSystem: InterceptingFileSystem.unsynced())
        var routes: [RouteID: Route] = [:]
        for i in 0..<segmentCount {
            let route = Fixtures.sampleWalk(seed: UInt64(i), points: 500)
            routes[try store.save(route)] = route
        }
        let segments = try store.statistics().segments
        #expect(segments.count >= segmentCount, "each route fills a segment: \(segments.count) segments")
        try store.close()
        return routes
    }

    @Test func aThousandSegmentsAreReadThroughAFewDescriptors() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let routes = try Self.makeStore(at: url)
        var options = RouteStore.Options(segmentSizeLimit: 4096, compaction: .manual)
        options.openSegmentFileLimit = 8
        let store = try RouteStore(at: url, options: options)
        #expect(store.segmentFiles.openCount <= 8)
        for (id, route) in routes.sorted(by: { $0.key < $1.key }) {
            #expect(try store.route(id).withoutUUID == RouteCodec.quantize(route), "route \(id)")
            #expect(store.segmentFiles.openCount <= 8)
        }
        #expect(store.segmentFiles.reopenCount >= Self.segmentCount - 8, "reads reopened evicted segments")
        // The active segment was evicted by those reads: appending reopens it read-write.
        let extra = Fixtures.sampleWalk(seed: 5_000, points: 50)
        let extraID = try store.save(extra)
        #expect(try store.route(extraID).withoutUUID == RouteCodec.quantize(extra))
        // Compaction reads every segment it rewrites through the same few descriptors.
        for id in routes.keys.sorted().prefix(600) { try store.delete(id) }
        _ = try store.compact()
        #expect(store.segmentFiles.openCount <= 8)
        #expect(try store.verify().problems.isEmpty)
        try store.close()
        let reopened = try RouteStore(readOnlyAt: url)
        #expect(try reopened.count == routes.count - 600 + 1)
    }

    @Test func aSegmentReplacedBehindTheCacheIsRefusedNotRead() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: RouteStore.Options(segmentSizeLimit: 4096, compaction: .manual))
        let first = try store.save(Fixtures.sampleWalk(seed: 1, points: 500))
        let second = try store.save(Fixtures.sampleWalk(seed: 2, points: 500))
        let (segmentOfFirst, segmentOfSecond) = store.state.withLock {
            ($0.index.routes[first]!.location.segment, $0.index.routes[second]!.location.segment)
        }
        #expect(segmentOfFirst != segmentOfSecond)
        try store.close()
        var options = RouteStore.Options(mode: .readOnly)
        options.openSegmentFileLimit = 1
        let reader = try RouteStore(at: url, options: options)
        _ = try reader.route(second)
        // The first route's segment is closed by now; put the other's bytes under its name.
        let one = url.appendingPathComponent(FormatConstants.segmentName(segmentOfFirst))
        let two = url.appendingPathComponent(FormatConstants.segmentName(segmentOfSecond))
        try FileManager.default.removeItem(at: one)
        try FileManager.default.copyItem(at: two, to: one)
        do {
            _ = try reader.route(first)
            Issue.record("another file's bytes were read as segment 1's")
        } catch let error as RouteLogError {
            #expect(error.code == .corrupted && error.message.contains("replaced"), "\(error)")
        }
    }

    @Test func theCLIWorksOnAThousandSegmentsUnderUlimit64() throws {
        let routelog = try #require(Self.routelog, "the routelog executable is built beside the tests")
        let dir = TemporaryDirectory()
        let url = dir.store()
        let routes = try Self.makeStore(at: url)
        let gpx = dir.url.appendingPathComponent("one.gpx")
        try Data(Self.gpx.utf8).write(to: gpx)

        let ls = try Self.run(routelog, ["ls", url.path, "--json"])
        #expect(ls.status == 0, "ls: \(ls.stderr)")
        let verify = try Self.run(routelog, ["verify", url.path])
        #expect(verify.status == 0, "verify reads every route: \(verify.stderr)")
        let importing = try Self.run(routelog, ["import", url.path, gpx.path])
        #expect(importing.status == 0, "import opens the store for writing: \(importing.stderr)")
        let compact = try Self.run(routelog, ["compact", url.path])
        #expect(compact.status == 0, "compact: \(compact.stderr)")
        #expect(!ls.stderr.contains("Too many open files") && !importing.stderr.contains("Too many open files"))
        let reader = try RouteStore(readOnlyAt: url)
        #expect(try reader.count == routes.count + 1)
        #expect(try reader.verify().problems.isEmpty)
    }

    static let gpx = """
        <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><name>one</name><trkseg><trkpt lat="45.0" lon="14.0"><time>2025-01-01T10:00:00Z</time></trkpt>
        <trkpt lat="45.001" lon="14.001"><time>2025-01-01T10:00:10Z</time></trkpt></trkseg></trk></gpx>
        """

    /// The built `routelog`, beside the test bundle.
    static let routelog: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("routelog")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        let built = Fixtures.packageRoot.appendingPathComponent(".build/debug/routelog")
        return FileManager.default.isExecutableFile(atPath: built.path) ? built : nil
    }()

    /// Runs `routelog` in a shell that first lowers its limit of open files to `limit`:
    /// the child's descriptors run out, never those of the tests running beside it.
    static func run(_ routelog: URL, _ arguments: [String], limit: Int = 64) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "ulimit -S -n \(limit) && exec \"$0\" \"$@\" >/dev/null", routelog.path] + arguments
        let err = Pipe()
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
