import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Symbolic links and FIFOs where a store file should be (issue 12, part 3). Observed
/// before: a LOCK link had the victim truncated and the pid written into it, a segment
/// link had records appended to the victim, a MANIFEST.tmp link had the victim
/// overwritten, links at the next file numbers were followed by a roll and by a
/// compaction, a FIFO as LOCK or MANIFEST hung the store. Now the store refuses such a
/// file naming it, or moves it aside into lost/, never follows it, never blocks on it,
/// and never changes a byte outside the store.
@Suite struct PlantedFileTests {
    /// A store of three routes, closed; returns its routes and its manifest.
    static func makeStore(_ url: URL, segmentSizeLimit: Int = 64 << 20) throws -> ([RouteID: Route], Manifest) {
        let store = try RouteStore(at: url, options: .init(segmentSizeLimit: segmentSizeLimit, compaction: .manual))
        var routes: [RouteID: Route] = [:]
        for i in 0..<3 {
            let route = Fixtures.sampleWalk(seed: UInt64(i), points: 300)
            routes[try store.save(route)] = route
        }
        try store.close()
        return (routes, try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared)))
    }

    /// Whether a writer and a reader must refuse the store with `name` planted.
    static func refuses(_ name: String, index: String) -> (writer: Bool, reader: Bool) {
        switch name {
        case "LOCK": return (true, false)              // readers never open LOCK
        case "MANIFEST", "seg-00000001.rlseg": return (true, true)
        case index: return (false, false)              // an unusable index is rebuilt
        default: return (false, false)                 // MANIFEST.tmp: removed, never opened
        }
    }

    @Test(arguments: PlantedFiles.Kind.allCases, ["LOCK", "MANIFEST", "MANIFEST.tmp", "seg-00000001.rlseg", "index"])
    func aPlantedStoreFileIsRefusedOrSetAsideNeverFollowed(_ kind: PlantedFiles.Kind, _ which: String) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (routes, manifest) = try Self.makeStore(url)
        let indexName = FormatConstants.indexName(manifest.indexFile)
        let name = which == "index" ? indexName : which
        var planted = PlantedFiles(dir, store: url)
        try planted.plant(kind, at: name)
        let before = planted.type(of: name)
        let expected = Self.refuses(name, index: indexName)
        let note = "\(kind) at \(name)"

        for (writable, mustRefuse) in [(false, expected.reader), (true, expected.writer)] {
            let options = RouteStore.Options(mode: writable ? .mustExist : .readOnly, compaction: .manual)
            let outcome = withinTime { try RouteStore(at: url, options: options) }
            guard let outcome else {
                Issue.record("\(note): opening \(writable ? "to write" : "to read") blocked")
                continue
            }
            switch outcome {
            case .failure(let error as RouteLogError):
                #expect(mustRefuse, "\(note): refused although it need not be: \(error)")
                #expect(error.code == .corrupted && error.path?.hasSuffix(name) == true, "\(note): \(error)")
                #expect(planted.type(of: name) == before, "\(note): a refusal touches nothing")
            case .failure(let error):
                Issue.record("\(note): \(error)")
            case .success(let store):
                #expect(!mustRefuse, "\(note): opened \(writable ? "to write" : "to read") through it")
                for (id, route) in routes { #expect(try store.route(id).withoutUUID == RouteCodec.quantize(route), "\(note)") }
                if writable {
                    let extra = try store.save(Fixtures.sampleWalk(seed: 9, points: 40))
                    _ = try store.compact()
                    #expect(try store.verify().problems.isEmpty, "\(note)")
                    try store.close()
                    let again = try RouteStore(readOnlyAt: url)
                    #expect(try again.count == routes.count + 1 && (try? again.route(extra)) != nil, "\(note)")
                    let irregular = try planted.irregularNames()
                    #expect(irregular.isEmpty, "\(note): \(irregular)")
                }
            }
            planted.expectVictimsUnchanged(note)
        }
    }

    /// Links and FIFOs at the file numbers the writer will create next: every roll,
    /// index rebuild and compaction output moves the planted name into lost/ and creates
    /// its own file; the victims never change and the store lives in its directory.
    @Test(arguments: PlantedFiles.Kind.allCases)
    func plantsAtTheNextFileNumbersAreMovedAsideNotFollowed(_ kind: PlantedFiles.Kind) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (routes, manifest) = try Self.makeStore(url, segmentSizeLimit: 4096)
        var planted = PlantedFiles(dir, store: url)
        let next = manifest.nextFileNumber
        for number in next..<(next + 12) {
            try planted.plant(kind, at: FormatConstants.segmentName(number), victimBytes: Data("victim segment \(number)\n".utf8))
            try planted.plant(kind, at: FormatConstants.indexName(number), victimBytes: Data("victim index \(number)\n".utf8))
        }
        let outcome: Result<RouteStore, any Error>? = withinTime(30) {
            try RouteStore(at: url, options: .init(mode: .mustExist, segmentSizeLimit: 4096, compaction: .manual))
        }
        guard case .success(let store)? = outcome else {
            Issue.record("\(kind): the writer did not open, or blocked")
            return
        }
        var saved = routes
        for seed in 10..<16 {
            let route = Fixtures.sampleWalk(seed: UInt64(seed), points: 300)
            saved[try store.save(route)] = route
        }
        let removed = saved.keys.sorted().prefix(4)
        for id in removed { try store.delete(id); saved[id] = nil }
        _ = try store.compact()
        #expect(try store.verify().problems.isEmpty)
        let live = try store.statistics().segments.map { $0.number }
        #expect(live.contains { $0 >= next }, "the writer created files at the planted numbers: \(live)")
        try store.close()
        planted.expectVictimsUnchanged("\(kind) at the next numbers")
        let irregular = try planted.irregularNames()
        #expect(irregular.isEmpty, "\(irregular)")
        let lost = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("lost").path)
        #expect(!lost.isEmpty, "the planted names were moved into lost/")
        let reader = try RouteStore(readOnlyAt: url)
        for (id, route) in saved { #expect(try reader.route(id).withoutUUID == RouteCodec.quantize(route)) }
        #expect(try reader.count == saved.count)
    }
}
