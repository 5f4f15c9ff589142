import Foundation
import Testing
@testable import RouteLog

/// Damage at seams of the recovery and compaction protocol that the other suites
/// reach only in single-segment stores: a sealed segment's header damaged and then
/// compacted over, the last record of a segment whose index was rewritten as runs,
/// a sealed segment cut inside its last record and then compacted, and the last
/// segment's header damaged or the file cut shorter than a header. In each the other
/// routes load, a save after it survives a reopen and a compaction, and nothing is cut.
@Suite struct StorageAttackProbeTests {
    /// Small segments and compaction only when asked, as DeadRecordEndingASegmentTests has them.
    static var options: RouteStore.Options { DeadRecordEndingASegmentTests.options }

    static func fillUntilRoll(_ store: RouteStore, seed: UInt64) throws -> [RouteID] {
        try DeadRecordEndingASegmentTests.fillUntilRoll(store, seed: seed)
    }

    /// A store whose first segment is sealed and whose second has rolled too, closed;
    /// returns its path, and the routes saved into the first segment (the last of them
    /// went to the second: its save rolled the store).
    static func storeOfSealedSegments(in dir: TemporaryDirectory) throws -> (url: URL, first: [RouteID], store: RouteStore) {
        let url = dir.store()
        let store = try RouteStore(at: url, options: options)
        let first = try fillUntilRoll(store, seed: 1)
        _ = try fillUntilRoll(store, seed: 500)
        return (url, first, store)
    }

    static func flip(_ url: URL, at offset: Int) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[offset] ^= 0x10
        try Data(bytes).write(to: url)
    }

    static func truncate(_ url: URL, to size: Int) throws {
        let h = try FileHandle(forWritingTo: url)
        try h.truncate(atOffset: UInt64(size))
        try h.close()
    }

    /// A sealed segment's header damaged, then deletes and a compaction over it: every
    /// route left loads as before, after the compaction and after a reopen.
    @Test func aSealedSegmentsDamagedHeaderIsCompactedOver() throws {
        let dir = TemporaryDirectory()
        let (url, first, store) = try Self.storeOfSealedSegments(in: dir)
        try store.close()
        try Self.flip(url.appendingPathComponent(FormatConstants.segmentName(1)), at: 3)
        let writer = try RouteStore(at: url, options: Self.options)
        for id in first.prefix(first.count / 2) { try writer.delete(id) }
        let expected = try ExpectedStore(writer, deleted: Set(first.prefix(first.count / 2)))
        _ = try writer.compact()
        #expect(expected.mismatches(in: writer).isEmpty, "\(expected.mismatches(in: writer))")
        try writer.close()
        let again = try RouteStore(at: url, options: Self.options)
        #expect(expected.mismatches(in: again).isEmpty, "\(expected.mismatches(in: again))")
        try again.close()
    }

    /// An index written as runs vouches for the last record: a flipped byte there is
    /// damage, reported, not a torn tail cut into lost/.
    @Test func anIndexWrittenAsRunsVouchesForTheLastRecord() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var ids: [RouteID] = []
        for i in 0..<5 { ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 30))) }
        let lastStart = try store.state.withLock { $0.index.routes.locations(ids.last!)!.location.offset }
        try store.close()
        _ = try removeIndexFiles(of: url)
        let rebuild = try RouteStore(at: url, options: .init(compaction: .manual))
        try rebuild.close()
        try Self.flip(url.appendingPathComponent(FormatConstants.segmentName(1)), at: Int(lastStart) + 30)
        let writer = try RouteStore(at: url, options: .init(compaction: .manual))
        #expect(try writer.count == 5)
        let lost = try writer.verify().lostFiles
        #expect(lost.isEmpty, "\(lost)")
        try writer.close()
    }

    /// A sealed segment cut inside the last record the index lists in it, then deletes
    /// there and a compaction: that route fails to load, every other one loads as before.
    @Test func aSealedSegmentCutInItsLastRecordIsCompactedOver() throws {
        let dir = TemporaryDirectory()
        let (url, first, store) = try Self.storeOfSealedSegments(in: dir)
        // The save that rolled the store went to the new segment: the one before it is
        // the first segment's last record.
        let lastOfFirst = first.dropLast().last!
        let loc = try store.state.withLock { $0.index.routes.locations(lastOfFirst)!.location }
        try store.close()
        let seg = url.appendingPathComponent(FormatConstants.segmentName(loc.segment))
        try Self.truncate(seg, to: Int(loc.offset) + 20)
        let writer = try RouteStore(at: url, options: Self.options)
        let deleted = Set(first.prefix(first.count / 2))
        for id in deleted { try writer.delete(id) }
        var expected: [RouteID: Route] = [:]
        for s in try writer.summaries() where s.id != lastOfFirst { expected[s.id] = try writer.route(s.id) }
        let count = try writer.count
        _ = try writer.compact()
        for (id, want) in expected { #expect(try writer.route(id) == want) }
        try writer.close()
        let again = try RouteStore(at: url, options: Self.options)
        #expect(try again.count == count)
        for (id, want) in expected { #expect(try again.route(id) == want) }
        #expect(throws: RouteLogError.self) { try again.route(lastOfFirst) }
        try again.close()
    }

    /// The last segment's header damaged, or the file cut below a header's size, while
    /// the index lists its records: the writer opens on a new segment, and a save there
    /// survives a reopen, a compaction and a read-only open.
    @Test func theLastSegmentsDamagedHeaderLeavesTheStoreWritable() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: Self.options)
        _ = try Self.fillUntilRoll(store, seed: 1)
        _ = try store.save(Fixtures.sampleWalk(seed: 77, points: 40))
        let expected = try ExpectedStore(store)
        let last = try store.statistics().segments.last!.number
        try store.close()
        for cut in [nil, 0, 10, 20] as [Int?] {
            let work = dir.store("w\(cut ?? -1)")
            try FileManager.default.copyItem(at: url, to: work)
            let seg = work.appendingPathComponent(FormatConstants.segmentName(last))
            if let cut { try Self.truncate(seg, to: cut) } else { try Self.flip(seg, at: 5) }
            let writer = try RouteStore(at: work, options: Self.options)
            let newID = try writer.save(Fixtures.sampleWalk(seed: 99, points: 20))
            try writer.close()
            let again = try RouteStore(at: work, options: Self.options)
            #expect(try again.route(newID).points.count == 20, "cut \(String(describing: cut))")
            if cut == nil {
                for (id, want) in expected.routes { #expect(try again.route(id).withoutUUID == want.route.withoutUUID) }
            }
            _ = try again.compact()
            try again.close()
            let third = try RouteStore(readOnlyAt: work)
            #expect(try third.route(newID).points.count == 20, "cut \(String(describing: cut))")
        }
    }
}
