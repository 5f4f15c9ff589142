import Foundation
import Testing
@testable import RouteLog

/// A listing long enough to be made on several cores (`RouteTable.summariesPerWorker`
/// routes a worker) gives the summaries one route at a time gives, in start order:
/// names, tags, activities, stats and previews included, each route's own.
@Suite struct SummariesInParallelTests {
    @Test func aLongListingIsTheSummariesOfEachRouteInOrder() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        defer { try? store.close() }
        let count = RouteTable.summariesPerWorker * 2 + 321
        var routes: [Route] = []
        for i in 0..<count {
            // Starts out of order (saved in an order the listing does not keep), some equal.
            let t = Date(timeIntervalSince1970: 1_700_000_000 + Double((i * 7_919) % count / 2) * 600)
            var metadata = RouteMetadata(name: i % 3 == 0 ? nil : "route number \(i), a name longer than fifteen bytes")
            metadata.tags = i % 5 == 0 ? ["t\(i % 7)", "every fifth"] : []
            metadata.activity = i % 2 == 0 ? .run : .custom("paddle \(i % 4)")
            routes.append(Route(points: [TrackPoint(latitude: 48 + Double(i) / 1e5, longitude: 11, timestamp: t, altitude: 500),
                                         TrackPoint(latitude: 48.002, longitude: 11.001 + Double(i) / 1e5, timestamp: t + 60,
                                                    altitude: 510)],
                                metadata: metadata))
        }
        _ = try store.save(routes)
        let listed = try store.summaries()
        #expect(listed.count == count)
        let oneByOne = try listed.map { try store.summary($0.id) }
        #expect(listed == oneByOne)
        #expect(zip(listed, listed.dropFirst()).allSatisfy { ($0.startDate, $0.id) < ($1.startDate, $1.id) })
        #expect(Set(listed.map(\.id)).count == count)
        #expect(listed.allSatisfy { $0.preview != nil && $0.stats != nil })
        // Read back from the file by a fresh reader, the same again.
        try store.close()
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        defer { try? reader.close() }
        #expect(try reader.summaries() == listed)
    }
}
