import Foundation
import Testing
@testable import RouteLog

/// close() writes the index again as runs when saves have piled up records one by one
/// (format-spec.md, "Index records"): the new file replaces the old through the
/// manifest, the store reads the same, a close with nothing piled up rewrites nothing,
/// and a crash at any step of the rewrite loses nothing.
@Suite struct IndexRewriteAtCloseTests {
    static let routeCount = StoreWriter.sprawlingRecords + 76

    /// A store of ``routeCount`` two-point routes saved one by one, copied to
    /// `template` before it closes (so the copy's index holds one record a route);
    /// returns the store's URL, closed.
    static func make(_ dir: TemporaryDirectory, template: URL? = nil) throws -> URL {
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(durability: .ordered, compaction: .manual), fileSystem: InterceptingFileSystem.unsynced())
        for i in 0..<routeCount {
            let t = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 3600)
            let route = Route(points: [TrackPoint(latitude: 48 + Double(i) / 1e4, longitude: 11, timestamp: t),
                                       TrackPoint(latitude: 48.001 + Double(i) / 1e4, longitude: 11.001, timestamp: t + 60)],
                              metadata: RouteMetadata(name: "walk \(i)"))
            try store.save(route)
        }
        if let template {
            // Saves one by one, each with its own index record: the copy reads them all.
            try FileManager.default.copyItem(at: url, to: template)
        }
        try store.close()
        return url
    }

    static func indexNumber(_ url: URL) throws -> UInt32 {
        try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared)).indexFile
    }

    static func indexFiles(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasPrefix("index-") }.sorted()
    }

    @Test func closeGathersPiledUpRecordsIntoRuns() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let url = try Self.make(dir, template: template)
        // The copy taken before close holds one index record a route; the store, runs.
        let before = try IndexPutRunTests.indexRecordTypes(template)
        #expect(before.count == Self.routeCount)
        #expect(!before.contains(FormatConstants.RecordType.indexPutRun.rawValue))
        let after = try IndexPutRunTests.indexRecordTypes(url)
        #expect(after.allSatisfy { $0 == FormatConstants.RecordType.indexPutRun.rawValue })
        #expect(after.count == (Self.routeCount + FormatConstants.maxIndexPutRunEntries - 1) / FormatConstants.maxIndexPutRunEntries)
        #expect(try Self.indexNumber(url) != Self.indexNumber(template))
        #expect(try Self.indexFiles(url) == [FormatConstants.indexName(Self.indexNumber(url))])
        #expect(try IndexLoadTests.view(url).0 == IndexLoadTests.view(template).0)
        try IndexLoadTests.bothWays(url, dir)

        // Nothing piled up since: a close leaves the index as it is.
        let number = try Self.indexNumber(url)
        let again = try RouteStore(at: url)
        try again.save(Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 1e9))]))
        try again.close()
        #expect(try Self.indexNumber(url) == number)
    }

    /// A close whose rewrite meets a crash at any step: the reopened store holds every
    /// route the template held, with one index file.
    @Test func aCrashAtAnyStepOfTheRewriteLosesNothing() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        _ = try Self.make(dir, template: template)
        let expected = try ExpectedStore(try RouteStore(at: template, options: .init(mode: .readOnly)))
        let work = dir.store("work.routelog")
        let points = try atEveryCrashPoint(template: template, work: work, options: .init(compaction: .manual), { store in
            try store.close()
        }, check: { store, crashPoint, _ in
            #expect(expected.mismatches(in: store).isEmpty, "crash at \(crashPoint)")
        })
        // The open, the new file's creation, write and sync, the manifest's switch, the
        // old file's removal: the rewrite was crashed at each.
        #expect(points > 6)
        #expect(try Self.indexFiles(work).count == 1)
    }
}
