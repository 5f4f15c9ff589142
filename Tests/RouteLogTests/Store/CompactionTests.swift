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
            durability: .buffered, segmentSizeLimit: 32 * 1024, compaction: .automatic(minDeadFraction: 0.5, minDeadBytes: 64 * 1024)))
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

@Suite struct VerificationTests {
    static func makeStore(_ url: URL) throws -> ExpectedStore {
        let store = try RouteStore(at: url, options: .init(segmentSizeLimit: 16 * 1024, compaction: .manual))
        for i in 0..<10 { try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 150)) }
        try store.delete(RouteID(2))
        try store.edit(RouteID(3), RouteEdit(name: "three"))
        let expected = try ExpectedStore(store, deleted: [RouteID(2)])
        try store.close()
        return expected
    }

    @Test func aWholeStoreVerifiesClean() throws {
        let dir = TemporaryDirectory()
        let expected = try Self.makeStore(dir.store())
        let store = try RouteStore(readOnlyAt: dir.store())
        let report = try store.verify()
        #expect(report.isClean)
        #expect(report.routesChecked == expected.routes.count)
        #expect(report.recordsChecked >= 12)
    }

    @Test(arguments: ["segment", "index", "manifest"])
    func garbageInEachKindOfFileIsReportedNeverCrashesOrHangs(_ kind: String) throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let expected = try Self.makeStore(template)
        let names = try FileManager.default.contentsOfDirectory(atPath: template.path).sorted()
        let name = names.first { kind == "segment" ? $0.hasSuffix(".rlseg") : kind == "index" ? $0.hasSuffix(".rlidx") : $0 == "MANIFEST" }!
        var g = SeededGenerator(state: 77)
        for trial in 0..<20 {
            let work = dir.store("work\(trial).routelog")
            try FileManager.default.copyItem(at: template, to: work)
            let file = work.appendingPathComponent(name)
            var bytes = try Data(contentsOf: file)
            // The first trials hit the file header, the rest anywhere.
            let start = trial < 3 ? trial * 6 : Int.random(in: 0..<bytes.count, using: &g)
            let length = min(bytes.count - start, Int.random(in: 1...64, using: &g))
            for i in start..<(start + length) { bytes[i] = UInt8.random(in: 0...255, using: &g) }
            try bytes.write(to: file)
            switch kind {
            case "manifest":
                // The manifest decides which files are live: damage to it must stop the open
                // with a clear error naming it, never guess.
                do {
                    let store = try RouteStore(readOnlyAt: work)
                    #expect(expected.mismatches(in: store).isEmpty, "trial \(trial): a damaged manifest opened wrong")
                } catch let error as RouteLogError {
                    #expect(error.code == .corrupted || error.code == .unsupportedVersion, "trial \(trial): \(error)")
                    #expect(error.path?.hasSuffix("MANIFEST") == true, "trial \(trial): \(error)")
                }
            case "index":
                // The index is rebuilt from the segments: nothing is lost.
                let store = try RouteStore(at: work)
                #expect(expected.mismatches(in: store).isEmpty, "trial \(trial)")
                #expect(try store.verify().isClean, "trial \(trial)")
            default:
                // Damage in a segment: open works, verify names it, the other routes load.
                let store = try RouteStore(at: work)
                let report = try store.verify()
                var unreadable = 0
                for (id, route) in expected.routes {
                    if let loaded = try? store.route(id) { #expect(loaded == route.route) } else { unreadable += 1 }
                }
                if unreadable > 0 || start < FormatConstants.fileHeaderSize {
                    #expect(!report.isClean, "trial \(trial): damage at \(start) but verify is clean")
                }
                #expect(unreadable <= 2, "trial \(trial): \(unreadable) routes lost to \(length) bytes of damage")
            }
        }
    }
}
