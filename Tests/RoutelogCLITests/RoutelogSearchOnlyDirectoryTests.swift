import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import RouteLog
import RouteLogSamples

/// A store whose directory this user may search but not list (mode 0711, as a shared
/// store handed to a group, or an app's container, may be): every file in it is opened
/// by its name, which needs no listing, so every route reads, also those of segments the
/// descriptor cache closed after the open (32 kept) and opens again. Run for real: as
/// root the command runs as user nobody (setpriv).
@Suite struct RoutelogSearchOnlyDirectoryTests {
    /// A store of 40 segments, one route each, readable by others, in a directory they
    /// may only search.
    static func store(_ dir: ScratchDirectory) throws -> (url: URL, ids: [RouteID]) {
        let url = dir.path("store.routelog")
        let store = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 << 10, compaction: .manual))
        var ids: [RouteID] = []
        for seed in 0..<40 {
            var generator = WalkGenerator(seed: UInt64(seed))
            ids.append(try store.save(generator.walk(points: 1_500, start: Date(timeIntervalSince1970: 1_767_225_600 + Double(seed) * 86_400))))
        }
        let segments = try store.statistics().segments.count
        #expect(segments >= 40, "\(segments) segments")
        try store.close()
        chmod(dir.url.path, 0o755)
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            chmod(url.appendingPathComponent(name).path, 0o644)
        }
        chmod(url.path, 0o711)
        return (url, ids)
    }

    @Test func everyRouteOfAStoreInASearchOnlyDirectoryIsRead() throws {
        let dir = ScratchDirectory()
        let store = try Self.store(dir)
        defer { chmod(store.url.path, 0o755) }
        // The last segment's descriptor is still open from the open; the first's was
        // closed by the cache and is opened again for the dump.
        for id in [store.ids.last!, store.ids.first!] {
            let dump = try CLI.run(["dump", store.url.path, "\(id.rawValue)", "--format", "json"], asOtherUser: true)
            #expect(dump.status == 0, "route \(id): \(dump.stderr)")
        }
    }
}
