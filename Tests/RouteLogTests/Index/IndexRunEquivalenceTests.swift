import Foundation
import Testing
@testable import RouteLog

/// Randomized histories (saves one by one and in batches, edits, deletes, recordings
/// finished, discarded and left unfinished, compactions, closes that rewrite the index
/// as runs) and then the store as opened from its index file (runs and single records)
/// against the store opened from its segments alone: the same routes, metadata,
/// recordings and tombstones, and the same live bytes and coverage per segment.
@Suite struct IndexRunEquivalenceTests {
    /// Everything the in-memory index holds that a reader or a compaction uses.
    struct IndexState: Equatable {
        var summaries: [RouteSummary]
        var metadata: [RouteID: RouteMetadata]
        var recordings: [RouteID: IndexedRecording]
        var tombstones: [RouteID: Tombstone]
        var liveBytes: [UInt32: Int64]
        var coveredEnd: [UInt32: Int64]
        var chunkedBytes: Int64
        var maxSeenID: UInt64
        var routes: [RouteID: IndexedRoute]

        init(_ store: RouteStore) throws {
            summaries = try store.summaries()
            var metadata: [RouteID: RouteMetadata] = [:]
            for summary in summaries { metadata[summary.id] = try store.metadata(summary.id) }
            self.metadata = metadata
            let index = store.state.withLock { $0.index }
            recordings = index.recordings
            tombstones = index.tombstones
            let numbers = store.state.withLock { $0.segments.numbers }
            liveBytes = Dictionary(uniqueKeysWithValues: numbers.map { ($0, index.liveBytes[$0] ?? 0) })
            coveredEnd = Dictionary(uniqueKeysWithValues: numbers.map { ($0, index.coveredEnd[$0] ?? 0) })
            chunkedBytes = index.chunkedBytes
            maxSeenID = index.maxSeenID
            routes = Dictionary(uniqueKeysWithValues: index.routes.map { ($0.key, $0.value) })
        }
    }

    /// The store at `url` opened read-only from its index (which must be used), and from
    /// its segments alone (a copy without index files).
    static func compare(_ url: URL, _ dir: TemporaryDirectory) throws {
        let fromIndex = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(!fromIndex.state.withLock { $0.indexRebuilt })
        let indexed = try IndexState(fromIndex)
        try fromIndex.close()
        let copy = dir.store("segments-\(UUID().uuidString.prefix(8)).routelog")
        try FileManager.default.copyItem(at: url, to: copy)
        try Fixtures.removeIndexFiles(in: copy)
        let fromSegments = try RouteStore(at: copy, options: .init(mode: .readOnly))
        let replayed = try IndexState(fromSegments)
        try fromSegments.close()
        #expect(indexed.summaries == replayed.summaries)
        #expect(indexed.metadata == replayed.metadata)
        #expect(indexed.routes == replayed.routes)
        #expect(indexed.recordings == replayed.recordings)
        #expect(indexed.tombstones == replayed.tombstones)
        #expect(indexed.liveBytes == replayed.liveBytes)
        #expect(indexed.coveredEnd == replayed.coveredEnd)
        #expect(indexed.chunkedBytes == replayed.chunkedBytes)
        #expect(indexed.maxSeenID == replayed.maxSeenID)
    }

    static func route(_ g: inout SeededGenerator, _ n: Int) -> Route {
        let start = Date(timeIntervalSince1970: Double.random(in: 0...4_000_000_000, using: &g))
        let count = Int.random(in: 1...6, using: &g)
        let lat = Double.random(in: -60...60, using: &g), lon = Double.random(in: -170...170, using: &g)
        var metadata = RouteMetadata(name: Bool.random(using: &g) ? "route \(n)" : nil)
        metadata.tags = Bool.random(using: &g) ? ["t\(n % 3)"] : []
        metadata.activity = [nil, .walk, .custom("kayak")].randomElement(using: &g)!
        return Route(points: (0..<count).map { i in
            TrackPoint(latitude: lat + Double(i) / 1e3, longitude: lon, timestamp: start + Double(i) * 10)
        }, metadata: metadata)
    }

    /// One history of `steps` changes; the store is closed between some of them (each
    /// close may rewrite the index as runs), and at the end.
    static func history(_ url: URL, seed: UInt64, steps: Int) throws {
        var g = SeededGenerator(state: seed)
        var options = RouteStore.Options(durability: .buffered, compaction: .manual)
        options.compactionRewriteThreshold = 0.1
        var store = try RouteStore(at: url, options: options)
        var live: [RouteID] = []
        var recorders: [RouteRecorder] = []
        var n = 0
        for _ in 0..<steps {
            n += 1
            switch Int.random(in: 0..<100, using: &g) {
            case 0..<35:
                live.append(try store.save(Self.route(&g, n)))
            case 35..<45:
                let batch = (0..<Int.random(in: 2...30, using: &g)).map { _ in Self.route(&g, n) }
                live += try store.save(batch)
            case 45..<60 where !live.isEmpty:
                let id = live.randomElement(using: &g)!
                _ = try store.edit(id, RouteEdit(shift: Double.random(in: -1000...1000, using: &g), name: "edited \(n)",
                                                 tags: Bool.random(using: &g) ? ["e"] : nil))
            case 60..<72 where !live.isEmpty:
                let i = Int.random(in: 0..<live.count, using: &g)
                try store.delete(live.remove(at: i))
            case 72..<80:
                let recorder = try store.startRecording(metadata: RouteMetadata(name: "recorded \(n)"))
                let t = Date(timeIntervalSince1970: 1_800_000_000 + Double(n) * 1000)
                try recorder.append((0..<3).map { TrackPoint(latitude: 10, longitude: 10 + Double($0) / 1e3, timestamp: t + Double($0)) })
                try recorder.flush()
                recorders.append(recorder)
            case 80..<88 where !recorders.isEmpty:
                let recorder = recorders.removeFirst()
                switch Int.random(in: 0..<3, using: &g) {
                case 0: live.append(try recorder.finish())
                case 1: try recorder.discard()
                default:
                    try recorder.append([TrackPoint(latitude: 11, longitude: 11, timestamp: Date(timeIntervalSince1970: 1_900_000_000 + Double(n)))])
                    try recorder.flush()
                    recorders.append(recorder)
                }
            case 88..<92:
                // Its own index accounts for every record: no segment is kept for that.
                let report = try store.compact()
                #expect(!report.segmentsSkipped.contains { $0.reason.contains("account") }, "\(report.segmentsSkipped)")
            case 92..<95:
                recorders = []
                try store.close()
                store = try RouteStore(at: url, options: options)
            default:
                // Many saves in a row, one by one: enough single records for close() to
                // gather into runs.
                for _ in 0..<Int.random(in: 50...400, using: &g) { live.append(try store.save(Self.route(&g, n))) }
            }
        }
        recorders = []
        try store.close()
    }

    @Test(arguments: [11, 12, 13, 14] as [UInt64]) func aRandomHistoryOpensTheSameFromItsIndexAndItsSegments(seed: UInt64) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try Self.history(url, seed: seed, steps: 120)
        try Self.compare(url, dir)
        // The index rebuilt from the segments (runs wherever puts are in a row), then
        // compacted, opens the same too.
        try Fixtures.removeIndexFiles(in: url)
        try RouteStore(at: url, options: .init(compaction: .manual)).close()
        try Self.compare(url, dir)
        let options = RouteStore.Options.rewritingEverySegment
        let store = try RouteStore(at: url, options: options)
        let report = try store.compact()
        #expect(!report.segmentsSkipped.contains { $0.reason.contains("account") }, "\(report.segmentsSkipped)")
        try store.close()
        try Self.compare(url, dir)
    }
}
