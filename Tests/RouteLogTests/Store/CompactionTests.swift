import Foundation
import Testing
@testable import RouteLog

@Suite struct CompactionTests {
    static func storeBytes(_ url: URL) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".rlseg") || $0.hasSuffix(".rlidx") }.reduce(0) {
            $0 + ((try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent($1).path)[.size] as? Int64) ?? 0)
        }
    }

    @Test func deletingHalfAndCompactingLeavesTheSizeOfAFreshStore() throws {
        let dir = TemporaryDirectory()
        let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 256 * 1024, compaction: .manual)
        let store = try RouteStore(at: dir.store(), options: options)
        let routes = (0..<60).map { Fixtures.sampleWalk(seed: UInt64($0), points: 300) }
        let ids = try routes.map { try store.save($0) }
        for id in ids where id.rawValue % 2 == 0 { try store.delete(id) }
        try store.edit(ids[0], RouteEdit(name: "kept and edited"))
        let expected = try ExpectedStore(store, deleted: Set(ids.filter { $0.rawValue % 2 == 0 }))
        let report = try store.compact()
        #expect(report.recordsMoved >= 30)
        #expect(report.bytesAfter < report.bytesBefore)
        #expect(expected.mismatches(in: store).isEmpty)
        try store.close()
        let compactedBytes = Self.storeBytes(dir.store())

        let fresh = try RouteStore(at: dir.store("fresh.routelog"), options: options)
        for (i, route) in routes.enumerated() where i % 2 == 0 {
            var r = route
            if i == 0 { r.metadata.name = "kept and edited" }
            try fresh.save(r)
        }
        try fresh.close()
        let freshBytes = Self.storeBytes(dir.store("fresh.routelog"))
        print("compacted \(compactedBytes) bytes, fresh \(freshBytes) bytes, before \(report.bytesBefore)")
        #expect(Double(compactedBytes) <= Double(freshBytes) * 1.05)
        let reopened = try RouteStore(at: dir.store())
        #expect(expected.mismatches(in: reopened).isEmpty)
        #expect(try reopened.verify().isClean)
    }

    /// Builds the store every crash case starts from.
    static func prepare(_ url: URL) throws -> ExpectedStore {
        let store = try RouteStore(at: url, options: .init(segmentSizeLimit: 8 * 1024, compaction: .manual))
        var ids: [RouteID] = []
        for i in 0..<12 { ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 120))) }
        var deleted: Set<RouteID> = []
        for id in ids where id.rawValue % 3 == 0 {
            try store.delete(id)
            deleted.insert(id)
        }
        try store.edit(ids[0], RouteEdit(shift: 86_400, name: "moved"))
        try store.edit(ids[1], RouteEdit(calories: 99))
        try store.edit(ids[1], RouteEdit(calories: 100))
        let expected = try ExpectedStore(store, deleted: deleted)
        try store.close()
        return expected
    }

    @Test func aCrashBeforeAnyFileOperationOfACompactionLosesAndResurrectsNothing() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let expected = try Self.prepare(template)
        let work = dir.store("work.routelog")
        let checked = try compactionAtEveryCrashPoint(
            template: template, work: work, options: .init(segmentSizeLimit: 8 * 1024, compaction: .manual)
        ) { reopened, crashPoint in
            let problems = expected.mismatches(in: reopened)
            #expect(problems.isEmpty, "crash at operation \(crashPoint): \(problems)")
            #expect((try? reopened.verify())?.isClean == true, "crash at operation \(crashPoint)")
        }
        print("compaction crash cases checked: \(checked)")
    }

    @Test func compactionRacingWithSavesFromOtherThreadsKeepsEverything() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .buffered, segmentSizeLimit: 64 * 1024, compaction: .manual))
        var ids: [RouteID] = []
        for i in 0..<40 { ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 200))) }
        for id in ids.prefix(20) { try store.delete(id) }
        let deletedDuring = ids[30]
        let editedDuring = ids[31]
        let saved = try await withThrowingTaskGroup(of: [RouteID].self) { group in
            for worker in 0..<2 {
                group.addTask {
                    var mine: [RouteID] = []
                    for i in 0..<30 {
                        mine.append(try store.save(Fixtures.sampleWalk(seed: UInt64(1000 + worker * 100 + i), points: 100)))
                        _ = try store.summaries()
                        if worker == 0 && i == 10 {
                            try store.delete(deletedDuring)
                            try store.edit(editedDuring, RouteEdit(name: "during"))
                        }
                    }
                    return mine
                }
            }
            group.addTask {
                for _ in 0..<3 { try store.compact() }
                return []
            }
            var all: [RouteID] = []
            for try await ids in group { all += ids }
            return all
        }
        #expect(saved.count == 60)
        let live = Set(try store.summaries().map(\.id))
        #expect(live.isSuperset(of: saved))
        #expect(!live.contains(deletedDuring))
        #expect(try store.summary(editedDuring).name == "during")
        #expect(live.count == 20 - 1 + 60)
        try store.close()
        let reopened = try RouteStore(at: dir.store())
        #expect(Set(try reopened.summaries().map(\.id)) == live)
        #expect(try reopened.summary(editedDuring).name == "during")
        #expect(try reopened.verify().isClean)
    }

    @Test func repeatedDeleteCompactCyclesStayConsistent() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .buffered, segmentSizeLimit: 32 * 1024, compaction: .manual))
        var live: Set<RouteID> = []
        var deleted: Set<RouteID> = []
        var g = SeededGenerator(state: 5)
        for cycle in 0..<8 {
            for i in 0..<10 { live.insert(try store.save(Fixtures.sampleWalk(seed: UInt64(cycle * 10 + i), points: 80))) }
            for id in live.shuffled(using: &g).prefix(6) {
                try store.delete(id)
                live.remove(id)
                deleted.insert(id)
            }
            try store.compact()
            #expect(Set(try store.summaries().map(\.id)) == live, "cycle \(cycle)")
        }
        try store.close()
        let reopened = try RouteStore(at: dir.store())
        #expect(Set(try reopened.summaries().map(\.id)) == live)
        #expect(try reopened.verify().isClean)
        // Compaction converges: a rewrite can make tombstones elsewhere dead (what they
        // deleted is gone), so a second one may find more; a few rounds leave every
        // segment under the quarter that pays for a rewrite.
        var rounds = 0
        while try reopened.compact().segmentsCompacted > 0 { rounds += 1; if rounds > 4 { break } }
        #expect(rounds <= 3)
        #expect(Set(try reopened.summaries().map(\.id)) == live)
        for segment in try reopened.statistics().segments {
            #expect(Double(segment.deadBytes) <= 0.25 * Double(segment.bytes - Int64(FormatConstants.fileHeaderSize)), "\(segment.name)")
        }
    }

    @Test func automaticCompactionReclaimsSpaceWithoutBeingAsked() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(
            durability: .buffered, segmentSizeLimit: 16 * 1024, compaction: .automatic(minDeadFraction: 0.5, minDeadBytes: 32 * 1024)))
        var ids: [RouteID] = []
        for i in 0..<40 { ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 300))) }
        let before = try store.statistics().totalBytes
        for id in ids.prefix(30) { try store.delete(id) }
        store.compaction.waitUntilIdle()
        let after = try store.statistics()
        #expect(after.totalBytes < before / 2, "before \(before), after \(after.totalBytes)")
        #expect(after.liveRoutes == 10)

        let manual = try RouteStore(at: dir.store("manual.routelog"), options: .init(durability: .buffered, compaction: .manual))
        var manualIDs: [RouteID] = []
        for i in 0..<10 { manualIDs.append(try manual.save(Fixtures.sampleWalk(seed: UInt64(i), points: 300))) }
        let manualBefore = try manual.statistics().totalBytes
        for id in manualIDs.prefix(8) { try manual.delete(id) }
        manual.compaction.waitUntilIdle()
        #expect(try manual.statistics().totalBytes >= manualBefore, "compaction ran although the policy is manual")
    }
}
