import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import RouteLog
import RouteLogSamples

/// `verify` and `ls` of a store with a sealed segment this user may not read (its
/// permissions changed by a `sudo` copy, say): the routes are listed, verify names the
/// file and says it was not checked, and its advice puts the permission first. Run
/// for real: as root the command runs as user nobody (setpriv) and the segment is
/// root's alone (0600); as another user the segment is made unreadable (0000).
@Suite struct RoutelogUnreadableSegmentTests {
    /// A store of several segments, everything readable by others but `denied`.
    static func store(_ dir: ScratchDirectory) throws -> (url: URL, denied: String, ids: [RouteID], locations: [RouteID: (String, Int64)]) {
        let url = dir.path("store.routelog")
        let store = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 << 10, compaction: .manual))
        var ids: [RouteID] = []
        var locations: [RouteID: (String, Int64)] = [:]
        for seed in 0..<10 {
            var generator = WalkGenerator(seed: UInt64(seed))
            let before = try store.statistics().segments.last!
            let id = try store.save(generator.walk(points: 300, start: Date(timeIntervalSince1970: 1_767_225_600 + Double(seed) * 86_400)))
            let after = try store.statistics().segments.last!
            // (The offset is known when the route did not start a segment.)
            if after.number == before.number { locations[id] = (after.name, before.bytes) }
            ids.append(id)
        }
        try store.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        let segments = names.filter { $0.hasSuffix(".rlseg") }.sorted()
        #expect(segments.count >= 3, "\(segments)")
        for dir in [dir.url, url] { chmod(dir.path, 0o755) }
        for name in names { chmod(url.appendingPathComponent(name).path, 0o644) }
        let denied = segments[1]
        chmod(url.appendingPathComponent(denied).path, getuid() == 0 ? 0o600 : 0)
        return (url, denied, ids, locations)
    }

    @Test func verifyNamesTheSegmentAndPutsThePermissionFirst() throws {
        let dir = ScratchDirectory()
        let store = try Self.store(dir)
        let list = try CLI.run(["ls", store.url.path, "--json"], asOtherUser: true)
        #expect(list.status == 0, "\(list.stderr)")
        #expect((try parseJSON(list.stdout)["routes"] as? [Any])?.count == store.ids.count, "\(list.stdout)")

        let verify = try CLI.run(["verify", store.url.path], asOtherUser: true)
        #expect(verify.status == 1)
        #expect(verify.stdout.contains(store.denied), "\(verify.stdout)")
        #expect(verify.stdout.contains("could not be opened"))
        #expect(verify.stderr.contains("give this user read permission on the segments that could not be opened, then verify again"),
                "\(verify.stderr)")
        #expect(!verify.stderr.contains("found damaged"), "nothing was checked there: \(verify.stderr)")
        #expect(!verify.stderr.contains("routelog delete"))
    }

    @Test func damageElsewhereAddsItsAdviceAfterThePermission() throws {
        let dir = ScratchDirectory()
        let store = try Self.store(dir)
        // A flipped byte in a route of the first (readable) segment.
        let first = store.locations.filter { $0.value.0 < store.denied }.min { $0.key < $1.key }!
        let file = store.url.appendingPathComponent(first.value.0)
        var bytes = try Data(contentsOf: file)
        bytes[Int(first.value.1) + 120] ^= 0x20
        try bytes.write(to: file)
        let verify = try CLI.run(["verify", store.url.path], asOtherUser: true)
        #expect(verify.status == 1)
        #expect(verify.stderr.contains("damaged route \(first.key)"), "\(verify.stderr)")
        #expect(verify.stderr.contains("give this user read permission on the segments that could not be opened, then verify again: they were not checked, nor the index against the segments; every other route is readable"),
                "\(verify.stderr)")
    }
}
