import Foundation
import Testing
@testable import RouteLog

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
