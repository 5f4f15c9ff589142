import Foundation
import Testing
@testable import RouteLog

/// A writer whose store directory is moved away while it is open, and another directory
/// (empty, or a store another handle writes) put at its path. Its appends still reach
/// the moved store through the files it holds open; a change that needs a path (a new
/// segment, the manifest, compaction) fails, saying the directory moved, instead of
/// writing into the directory now at the path without its lock. Every change the
/// writer acknowledged is in the moved store when it is reopened, and nothing of its
/// is in the other directory.
@Suite struct MovedStoreDirectoryTests {
    static func route(_ i: Int, points: Int) -> Route {
        let start = Date(timeIntervalSince1970: 1_767_225_600 + Double(i) * 10_000)
        var track: [TrackPoint] = []
        for p in 0..<points {
            let step = Double(p)
            let latitude: Double = 45 + Double(i) * 1e-3 + step * 1e-5
            let longitude: Double = 9 + step * 1e-5
            track.append(TrackPoint(latitude: latitude, longitude: longitude, timestamp: start.addingTimeInterval(step)))
        }
        return Route(points: track)
    }

    enum Replacement: String, CaseIterable, Sendable { case emptyDirectory, anotherStore }

    @Test(arguments: Replacement.allCases)
    func aWriterWhoseDirectoryMovedLosesNothingAndWritesNothingAtTheOldPath(replacement: Replacement) throws {
        let dir = TemporaryDirectory()
        let original = dir.store("a.routelog"), moved = dir.store("b.routelog")
        var options = RouteStore.Options(compaction: .manual)
        options.segmentSizeLimit = 8192
        let writer = try RouteStore(at: original, options: options)
        var acknowledged: [RouteID: Route] = [:]
        for i in 0..<3 {
            let route = Self.route(i, points: 20)
            acknowledged[try writer.save(route)] = route
        }
        let deleted = acknowledged.keys.min()!
        try writer.delete(deleted)
        acknowledged[deleted] = nil
        try FileManager.default.moveItem(at: original, to: moved)
        var other: RouteStore?
        switch replacement {
        case .emptyDirectory:
            try FileManager.default.createDirectory(at: original, withIntermediateDirectories: false)
        case .anotherStore:
            other = try RouteStore(at: original, options: options)
            for i in 0..<3 { _ = try other!.save(Self.route(1000 + i, points: 20)) }
        }
        // Enough points to fill several 8 KiB segments: the writer must roll.
        var refused: RouteLogError?
        for i in 3..<40 {
            let route = Self.route(i, points: 600)
            do {
                acknowledged[try writer.save(route)] = route
            } catch let error as RouteLogError {
                refused = error
                break
            }
        }
        let error = try #require(refused, "the writer rolled into the directory at the old path")
        #expect(error.message.contains("moved or replaced"), "\(error.message)")
        _ = try? writer.compact()  // may skip every segment; either way nothing is written at the old path
        try? writer.close()
        try other?.close()

        let reopened = try RouteStore(at: moved, options: options)
        defer { try? reopened.close() }
        #expect(Set(try reopened.summaries().map(\.id)) == Set(acknowledged.keys), "the moved store holds every acknowledged route")
        for (id, route) in acknowledged {
            #expect(try reopened.route(id).points.count == route.points.count, "route \(id)")
        }
        #expect(try reopened.verify().problems.isEmpty)

        let atOldPath = try FileManager.default.contentsOfDirectory(atPath: original.path).sorted()
        switch replacement {
        case .emptyDirectory:
            #expect(atOldPath.isEmpty, "the writer made files at the old path: \(atOldPath)")
        case .anotherStore:
            let store = try RouteStore(at: original, options: options)
            defer { try? store.close() }
            #expect(try store.count == 3, "the other store holds only its own routes")
            #expect(try store.verify().problems.isEmpty)
        }
    }
}
