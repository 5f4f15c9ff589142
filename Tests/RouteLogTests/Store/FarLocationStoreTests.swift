import Foundation
import Testing
@testable import RouteLog

/// Whole stores whose records sit where an index row's packed word cannot say (format-
/// spec.md allows segments up to 2^32 and offsets up to 2^62; a row packs segments below
/// 2^24 and offsets below 2^40 and keeps the rest beside it): a store whose segment is
/// numbered past 2^24 works through every change, reopen, verify and compaction, each
/// route read from its own record; an index forged to name an offset past 2^40 never
/// stops the process nor hands out another route's record.
@Suite struct FarLocationStoreTests {
    /// A segment number past what a row packs.
    static let farSegment: UInt32 = 1 << 24 + 1

    /// Renumbers the store's only segment `farSegment` (its file and header, and the
    /// manifest), and removes its index: the next writer rebuilds it from the segment.
    static func moveSegmentFar(_ url: URL) throws {
        var manifest = try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared))
        try #require(manifest.segments.count == 1)
        let old = url.appendingPathComponent(FormatConstants.segmentName(manifest.segments[0]))
        let bytes = [UInt8](try Data(contentsOf: old))
        let header = FileHeader(kind: .segment, fileNumber: farSegment).encoded()
        try Data(header + bytes.dropFirst(FormatConstants.fileHeaderSize))
            .write(to: url.appendingPathComponent(FormatConstants.segmentName(farSegment)))
        try FileManager.default.removeItem(at: old)
        try Fixtures.removeIndexFiles(in: url)
        manifest.segments = [farSegment]
        manifest.nextFileNumber = farSegment + 1
        manifest.generation += 1
        try Data(manifest.encoded()).write(to: url.appendingPathComponent(FormatConstants.manifestName))
    }

    /// The segments the index locates live routes in.
    static func locatedSegments(_ store: RouteStore) -> Set<UInt32> {
        store.state.withLock { s in
            var segments = Set<UInt32>()
            s.index.routes.forEachLocation { location, edit, _ in
                segments.insert(location.segment)
                if let edit { segments.insert(edit.segment) }
            }
            return segments
        }
    }

    @Test func aStoreWhoseSegmentIsNumberedPast2To24WorksThroughout() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options.rewritingEverySegment
        let first = try RouteStore(at: url, options: options)
        var ids: [RouteID] = []
        for seed in 1...8 { ids.append(try first.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 40))) }
        _ = try first.edit(ids[1], RouteEdit(name: "edited before"))
        try first.delete(ids[2])
        try first.close()
        try Self.moveSegmentFar(url)

        // Rebuilt from the segment: every route at a location kept beside its row.
        var deleted: Set<RouteID> = [ids[2]]
        let writer = try RouteStore(at: url, options: options)
        #expect(writer.state.withLock { $0.indexRebuilt })
        #expect(Self.locatedSegments(writer) == [Self.farSegment])
        // Changes of far rows: edits (the edit's location far too), a delete (the last
        // row moved into its hole), a save appended to the far segment.
        _ = try writer.edit(ids[3], RouteEdit(name: "edited far"))
        _ = try writer.edit(ids[1], RouteEdit(shift: 3600))
        try writer.delete(ids[0])
        deleted.insert(ids[0])
        ids.append(try writer.save(Fixtures.sampleWalk(seed: 20, points: 25)))
        let expected = try ExpectedStore(writer, deleted: deleted)
        #expect(expected.routes.count == 7)
        #expect(try writer.verify().isClean)
        try writer.close()

        // Opened from the index the rebuild wrote (runs: the bulk path), read-only.
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(!reader.state.withLock { $0.indexRebuilt })
        #expect(Self.locatedSegments(reader) == [Self.farSegment])
        #expect(expected.mismatches(in: reader).isEmpty)
        #expect(try reader.verify().isClean)
        try reader.close()

        // Compacted: every route rewritten to a new segment, numbered past the far one.
        let compactor = try RouteStore(at: url, options: options)
        #expect(expected.mismatches(in: compactor).isEmpty)
        _ = try compactor.compact()
        #expect(expected.mismatches(in: compactor).isEmpty)
        #expect(Self.locatedSegments(compactor).allSatisfy { $0 > Self.farSegment })
        #expect(try compactor.verify().isClean)
        try compactor.close()
        let reopened = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(expected.mismatches(in: reopened).isEmpty)
        #expect(try reopened.verify().isClean)
        try reopened.close()
    }

    /// An index whose last put in its segment names offset 2^40 + 5 (in order, so not
    /// caught as ahead by the order alone), as a run's last entry or as an IndexPut
    /// after a run: every open answers; the other routes read their own records; the
    /// forged one reads as damaged or as its own route, never as another's; verify and
    /// compaction work, and the segments keep every route they held.
    @Test(arguments: [false, true]) func anIndexNamingAnOffsetPast2To40NeverMisplacesARoute(asSingleRecord: Bool) throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 5)
        let honest = try RouteStore(at: url, options: .init(mode: .readOnly))
        let routes = try Dictionary(uniqueKeysWithValues: entries.map { ($0.id, try honest.route($0.id)) })
        try honest.close()
        let before = try IndexPutRunAttackTests.idsInSegments(url, dir)
        var forged = entries
        let last = forged.count - 1
        forged[last].location.offset = 1 << 40 + 5
        if asSingleRecord {
            let put = LogEvent.put(forged[last].id, forged[last].shape, forged[last].metadata, forged[last].location).indexRecord()
            try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRun.payload(Array(forged.dropLast()))),
                                                  (put.type, put.payload)])
        } else {
            try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, IndexPutRun.payload(forged))])
        }

        func check(_ store: RouteStore) throws {
            #expect(try store.count == entries.count)
            // The forged location kept (a far row: the index believed, its last
            // record reported as damage) or the true one (the segments replayed).
            let kept = store.state.withLock { $0.index.routes.location(forged[last].id) }
            #expect(kept == forged[last].location || kept == entries[last].location)
            for entry in entries {
                do {
                    #expect(try store.route(entry.id) == routes[entry.id], "route \(entry.id) is another's")
                } catch let error as RouteLogError {
                    #expect(entry.id == forged[last].id && error.code == .corrupted, "route \(entry.id): \(error)")
                }
            }
        }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        try check(reader)
        let readerKeptTheForgery = reader.state.withLock { $0.index.routes.location(forged[last].id) } == forged[last].location
        if readerKeptTheForgery { #expect(try !reader.verify().isClean, "a route whose record is not where the index says is not reported") }
        try reader.close()

        let options = RouteStore.Options.rewritingEverySegment
        let writer = try RouteStore(at: url, options: options)
        try check(writer)
        _ = try writer.edit(forged[last].id, RouteEdit(name: "edited"))
        _ = try writer.edit(entries[0].id, RouteEdit(name: "edited"))
        _ = try writer.verify()
        _ = try? writer.compact()
        _ = try writer.summaries()
        try writer.close()
        #expect(try IndexPutRunAttackTests.idsInSegments(url, dir) == before)
        let reopened = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try reopened.count == entries.count)
        for entry in entries.dropLast() { #expect(try reopened.route(entry.id).points == routes[entry.id]!.points) }
        _ = try reopened.verify()
        try reopened.close()
    }

    /// A MetadataEdit in a segment holding the largest metadata the format accepts,
    /// every text invalid UTF-8: replayed, it is decoded and encoded again (about 2.3
    /// times as long), the row counting it well under its 2^20 bytes. Every open, read,
    /// change, compaction and verify of such a store answers (errors allowed).
    @Test func anEditOfTheLargestMetadataOfInvalidUTF8NeverStopsTheProcess() throws {
        let dir = TemporaryDirectory()
        let url = try InvalidUTF8IndexTests.storeWithInvalidUTF8Edit(dir)

        let replacement = String(repeating: "\u{FFFD}", count: FormatConstants.maxNameBytes)
        let options = RouteStore.Options.rewritingEverySegment
        for round in 0..<2 {
            let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
            #expect(try reader.count == 1)
            #expect(try reader.metadata(RouteID(1)).name == replacement)
            try IndexPutRunAttackTests.exercise(reader, writable: false, dir: dir)
            try reader.close()
            let writer = try RouteStore(at: url, options: options)
            #expect(try writer.count == 1)
            if round == 0 { #expect(try writer.metadata(RouteID(1)).name == replacement) }
            try IndexPutRunAttackTests.exercise(writer, writable: true, dir: dir)
            try writer.close()
        }
    }
}
