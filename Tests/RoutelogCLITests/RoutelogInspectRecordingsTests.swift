import Foundation
import Testing
import RouteLog
import RouteLogSamples

/// `routelog inspect` on a store with a recording in progress and a finished one not
/// compacted yet.
@Suite struct RoutelogInspectRecordingsTests {
    /// Recording 1 ("Evening") has 100 points flushed in 2 chunks and 20 lost (the store
    /// closed under it, as in a crash); recording 2 is finished but still in chunks.
    static func makeStore(at url: URL) throws {
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var generator = WalkGenerator(seed: 5)
        let walk = generator.walk(points: 120, start: Date(timeIntervalSince1970: 1_767_225_600))
        let recorder = try store.startRecording(metadata: RouteMetadata(name: "Evening"), flushPolicy: .init(points: 50, interval: nil))
        for point in walk.points { try recorder.append(point) }
        let finished = try store.startRecording(flushPolicy: .manual)
        try finished.append(walk.points)
        try finished.finish()
        try store.close()
    }

    @Test func inspectListsRecordingsInProgress() throws {
        let dir = ScratchDirectory()
        let url = dir.path("recording.routelog")
        try Self.makeStore(at: url)

        let json = try parseJSON(CLI.run(["inspect", url.path, "--json"]).stdout)
        let recordings = json["recordingsInProgress"] as? [[String: Any]] ?? []
        #expect(recordings.count == 1)
        #expect(recordings.first?["id"] as? Int == 1)
        #expect(recordings.first?["name"] as? String == "Evening")
        #expect(recordings.first?["points"] as? Int == 100)
        #expect(recordings.first?["chunks"] as? Int == 2)
        #expect((recordings.first?["bytes"] as? Int ?? 0) > 0)
        #expect(recordings.first?["startedAt"] is String)
        #expect(json["chunkedRoutes"] as? Int == 1)
        #expect(json["liveRoutes"] as? Int == 1)

        let human = try CLI.run(["inspect", url.path])
        #expect(human.status == 0)
        let lines = human.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("recordings") && $0.contains("1 in progress") && $0.contains("1 finished, still in chunks") })
        let header = try #require(lines.firstIndex { $0.hasPrefix("RECORDING") })
        let row = lines[header + 1].split(separator: " ").map(String.init)
        #expect(row.first == "1")
        #expect(row.contains("100") && row.contains("2") && row.last == "Evening")

        // Once compacted, the finished one is an ordinary route; the other stays listed.
        #expect(try CLI.run(["compact", url.path]).status == 0)
        let after = try parseJSON(CLI.run(["inspect", url.path, "--json"]).stdout)
        #expect(after["chunkedRoutes"] as? Int == 0)
        #expect((after["recordingsInProgress"] as? [[String: Any]])?.count == 1)
    }

    @Test func aStoreWithoutRecordingsSaysSo() throws {
        let dir = ScratchDirectory()
        let url = dir.path("plain.routelog")
        let store = try RouteStore(at: url)
        var generator = WalkGenerator(seed: 6)
        try store.save(generator.walk(points: 30, start: Date(timeIntervalSince1970: 1_767_225_600)))
        try store.close()
        let human = try CLI.run(["inspect", url.path])
        #expect(human.stdout.contains("recordings       none in progress"))
        #expect(!human.stdout.contains("RECORDING"))
    }
}
