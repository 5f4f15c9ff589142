import Foundation
import Testing
@testable import RouteLog

/// A segment may hold metadata of invalid UTF-8 (a file from elsewhere: RouteLog writes
/// only valid text). Decoded, each invalid byte becomes a three-byte replacement
/// character, so metadata encoded again can pass the format's limits. An index written
/// from such a store keeps the stored bytes: it opens as it is, with no rebuild and no
/// damage reported, open after open.
@Suite struct InvalidUTF8IndexTests {
    /// Whether `store`'s open rebuilt the index, and whether it found it damaged.
    static func indexState(_ store: RouteStore) -> (rebuilt: Bool, damaged: Bool) {
        store.state.withLock { ($0.indexRebuilt, $0.indexDamaged) }
    }

    /// Opens `url` read-only and expects it to use its index as written (neither
    /// rebuilt nor damaged), list `summaries` and verify clean; `more` looks further
    /// before it is closed.
    static func expectReopenedFromItsIndex(_ url: URL, listing summaries: [RouteSummary],
                                           _ more: (RouteStore) throws -> Void = { _ in }) throws {
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(indexState(reader) == (false, false))
        try more(reader)
        #expect(try reader.summaries() == summaries)
        #expect(try reader.verify().problems.isEmpty)
        try reader.close()
    }

    /// A store of one route whose segment then holds a MetadataEdit of the largest
    /// metadata the format accepts, every text in it invalid UTF-8; no index.
    static func storeWithInvalidUTF8Edit(_ dir: TemporaryDirectory) throws -> URL {
        let url = try ForgedRouteStore.make(dir, route: Fixtures.sampleWalk(seed: 4, points: 30), withIndex: false) { _ in }
        let segmentURL = url.appendingPathComponent(FormatConstants.segmentName(1))
        var payload = ByteWriter(capacity: 70_000)
        payload.u64(1)
        payload.append(contentsOf: RouteTableFarRowTests.largestInvalidUTF8Metadata())
        let edit = RecordFrame.encode(type: .metadataEdit, payload: payload.bytes)
        try Data([UInt8](try Data(contentsOf: segmentURL)) + edit).write(to: segmentURL)
        return url
    }

    @Test func anIndexRebuiltFromAnInvalidUTF8EditOpensAsItIs() throws {
        let dir = TemporaryDirectory()
        let url = try Self.storeWithInvalidUTF8Edit(dir)
        let replacement = String(repeating: "\u{FFFD}", count: FormatConstants.maxNameBytes)
        for round in 0..<3 {
            let writer = try RouteStore(at: url, options: RouteStore.Options(compaction: .manual))
            // Only the first open finds no index, and makes one.
            #expect(Self.indexState(writer) == (round == 0, false), "round \(round)")
            #expect(try writer.metadata(RouteID(1)).name == replacement)
            try writer.close()
            let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
            #expect(Self.indexState(reader) == (false, false), "round \(round)")
            #expect(try reader.metadata(RouteID(1)).name == replacement)
            #expect(try reader.verify().problems.isEmpty)
            try reader.close()
        }
    }

    /// Opens the store at `url`, compacts it with every segment rewritten, and closes it.
    static func compactEverySegment(_ url: URL) throws {
        let options = RouteStore.Options.rewritingEverySegment
        let writer = try RouteStore(at: url, options: options)
        _ = try writer.compact()
        try writer.close()
    }

    @Test func anIndexWrittenByACompactionOfTheEditOpensAsItIs() throws {
        let dir = TemporaryDirectory()
        let url = try Self.storeWithInvalidUTF8Edit(dir)
        try Self.compactEverySegment(url)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(Self.indexState(reader) == (false, false))
        #expect(try reader.verify().problems.isEmpty)
        #expect(try reader.count == 1)
        try reader.close()
    }
}
