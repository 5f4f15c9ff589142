import Foundation
import Testing
@testable import RouteLog

/// The uuids new routes are given, through every door a route comes in by: each one a
/// version 4 uuid of its own, and a uuid the caller gave kept as it was.
@Suite struct UUIDRandomSaveTests {
    /// Whether `uuid` is a random uuid as RFC 9562 marks it, in its bytes and its text.
    static func isVersion4(_ uuid: UUID?) -> Bool {
        guard let uuid else { return false }
        let b = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        let text = Array(uuid.uuidString)
        return b[6] >> 4 == 4 && b[8] >> 6 == 0b10 && text[14] == "4" && "89AB".contains(text[19])
    }

    /// Threads drawing at once each get uuids no other thread got: the generator keeps
    /// no state that two threads could share and repeat.
    @Test func uuidsDrawnOnManyThreadsAtOnceAreAllDistinct() {
        let threads = 8, each = 50_000
        let drawn = (0..<threads).map { _ in StateLock([UUID]()) }
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            var mine = [UUID]()
            mine.reserveCapacity(each)
            for _ in 0..<each { mine.append(UUID.random()) }
            drawn[t].withLock { $0 = mine }
        }
        var all = Set<UUID>()
        var marked = true
        for lock in drawn {
            for uuid in lock.withLock({ $0 }) {
                all.insert(uuid)
                marked = marked && Self.isVersion4(uuid)
            }
        }
        #expect(all.count == threads * each)
        #expect(marked)
    }

    /// Single saves, batch saves and imports give each new route a version 4 uuid of its
    /// own; a route saved with a uuid keeps it.
    @Test func savesAndImportsGiveEachRouteItsOwnVersion4UUID() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        var ids = [try store.save(Fixtures.sampleWalk(seed: 1, points: 20))]
        ids += try store.save((2..<6).map { Fixtures.sampleWalk(seed: UInt64($0), points: 20) })
        let gpx = InterchangeFixtures.gpx("gpxgo__visnjan.gpx")
        ids += try GPXImporter.importFile(gpx, into: store).routeIDs
        var given = Fixtures.sampleWalk(seed: 9, points: 20)
        let chosen = UUID(uuidString: "00000000-0000-1000-8000-00000000000A")!
        given.metadata.uuid = chosen
        let givenID = try store.save(given)

        let uuids = try ids.map { try store.summary($0).uuid }
        #expect(uuids.allSatisfy(Self.isVersion4), "\(uuids)")
        #expect(Set(uuids).count == ids.count)
        #expect(try ids.map { try store.route($0).metadata.uuid } == uuids)
        #expect(try store.summary(givenID).uuid == chosen)
        #expect(try store.route(givenID).metadata.uuid == chosen)
    }

    /// A recording is given its uuid when it starts, and the route it becomes keeps
    /// that uuid, whether it is finished with the metadata it began with or with new
    /// metadata that names no uuid: a route's uuid is how apps and exports know it,
    /// and must not change as the recording ends.
    @Test func aRecordedRouteKeepsTheUUIDItsRecordingWasGiven() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        var finished = [RouteID]()
        var started = [UUID?]()
        for newMetadata in [nil, RouteMetadata(name: "Renamed")] {
            let recorder = try store.startRecording(metadata: RouteMetadata(name: "Walk"),
                                                    flushPolicy: .init(points: 5, interval: nil))
            try recorder.append(Fixtures.sampleWalk(seed: 3, points: 12).points)
            started.append(try store.unfinishedRecordings().first { $0.id == recorder.id }?.metadata.uuid)
            finished.append(try recorder.finish(metadata: newMetadata))
        }
        let uuids = try finished.map { try store.summary($0).uuid }
        #expect(started.allSatisfy(Self.isVersion4), "\(started)")
        #expect(uuids.map(Optional.some) == started)
        #expect(uuids.allSatisfy(Self.isVersion4), "\(uuids)")
        #expect(Set(uuids).count == 2)

        // A uuid given in the finishing metadata is the route's.
        let chosen = UUID(uuidString: "00000000-0000-1000-8000-00000000000B")!
        let recorder = try store.startRecording(flushPolicy: .init(points: 5, interval: nil))
        try recorder.append(Fixtures.sampleWalk(seed: 4, points: 12).points)
        let id = try recorder.finish(metadata: RouteMetadata(name: "Given", uuid: chosen))
        #expect(try store.summary(id).uuid == chosen)
    }
}
