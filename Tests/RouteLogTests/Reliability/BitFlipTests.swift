import Foundation
import Testing
@testable import RouteLog

/// Flips bits of a small store's files one at a time and opens the result: it never
/// crashes or hangs, the damage is reported (open fails with a clear error, or
/// verify() names it), and every route whose records were not hit loads exactly.
///
/// CI flips every bit of the manifest and of every file header, and one seeded bit of
/// every other byte; `ROUTELOG_BITFLIP_ALL=1` flips every bit of every file.
@Suite(.tags(.slow)) struct BitFlipTests {
    struct Flip: CustomStringConvertible {
        let file: String
        let byte: Int
        let bit: Int
        var description: String { "\(file) byte \(byte) bit \(bit)" }
    }

    /// Which route each byte range of the segment belongs to.
    static func recordOwners(_ url: URL) throws -> [(range: Range<Int64>, id: RouteID)] {
        let store = try RouteStore(readOnlyAt: url)
        return try store.state.withLock { state in
            var owners: [(Range<Int64>, RouteID)] = []
            for segment in state.segments.segments {
                let file = try segment.file
                var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: try file.size())
                while let record = try scanner.next() {
                    var r = ByteReader(record.payload)
                    owners.append((record.offset..<record.end, RouteID(try r.u64())))
                }
            }
            return owners
        }
    }

    static func makeStore(_ url: URL) throws -> ExpectedStore {
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var routes = RandomRoutes(seed: 11)
        for i in 0..<4 {
            var route = routes.next()
            route.points = Array(route.points.prefix(8 + i))
            route.splits = route.splits.filter { $0.pointIndex < route.points.count }
            route.segmentStarts = route.segmentStarts.filter { $0 < route.points.count }
            try store.save(route)
        }
        try store.delete(RouteID(2))
        try store.edit(RouteID(3), RouteEdit(shift: 60, name: "edited"))
        let expected = try ExpectedStore(store, deleted: [RouteID(2)])
        try store.close()
        return expected
    }

    /// Problems with `store` after `flip`: routes not hit must be exact.
    static func check(_ store: RouteStore, _ expected: ExpectedStore, hit: RouteID?) -> [String] {
        var problems: [String] = []
        guard let listed = try? store.summaries() else { return ["summaries() failed"] }
        let ids = Set(listed.map(\.id))
        for id in ids where expected.routes[id] == nil && id != hit { problems.append("route \(id) appeared") }
        for (id, want) in expected.routes where id != hit {
            do {
                if try store.route(id) != want.route { problems.append("route \(id) differs") }
                if try store.summary(id) != want.summary { problems.append("summary \(id) differs") }
            } catch {
                problems.append("route \(id) does not load: \(error)")
            }
        }
        if let hit, ids.contains(hit) {
            // The hit route may load (its damaged record was an edit or delete) or fail
            // with a clear error; it must never crash.
            do { _ = try store.route(hit) } catch let error as RouteLogError where error.code == .corrupted {
            } catch { problems.append("route \(hit) failed with \(error)") }
        }
        return problems
    }

    @Test func everyFlippedBitIsReportedAndSparesTheOtherRoutes() throws {
        let all = ProcessInfo.processInfo.environment["ROUTELOG_BITFLIP_ALL"] == "1"
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        let expected = try Self.makeStore(template)
        let owners = try Self.recordOwners(template)
        let work = dir.store("work.routelog")
        try FileManager.default.copyItem(at: template, to: work)
        var g = SeededGenerator(state: 2026)
        var flips: [Flip] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: template.path).filter { $0 != "LOCK" }.sorted()
        var originals: [String: [UInt8]] = [:]
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: template.appendingPathComponent(name)))
            originals[name] = bytes
            for byte in bytes.indices {
                if all || name == "MANIFEST" || byte < FormatConstants.fileHeaderSize {
                    for bit in 0..<8 { flips.append(Flip(file: name, byte: byte, bit: bit)) }
                } else {
                    flips.append(Flip(file: name, byte: byte, bit: Int.random(in: 0..<8, using: &g)))
                }
            }
        }
        var failures: [String] = []
        var unreported: [String] = []
        var refused = 0
        for (n, flip) in flips.enumerated() {
            var bytes = originals[flip.file]!
            bytes[flip.byte] ^= UInt8(1 << flip.bit)
            let path = work.appendingPathComponent(flip.file)
            try Data(bytes).write(to: path)
            let hit: RouteID? = flip.file.hasSuffix(".rlseg")
                ? owners.first { $0.range.contains(Int64(flip.byte)) }?.id : nil
            // A reader, which never writes: the other files stay as they were. (Not for
            // the manifest: a reader retries a damaged one, racing a compaction, for 0.1 s.)
            do {
                guard flip.file != "MANIFEST" else { throw RouteLogError(.corrupted, "checked by the writer below") }
                let reader = try RouteStore(at: work, options: .init(mode: .readOnly), fileSystem: InterceptingFileSystem.unsynced())
                let problems = Self.check(reader, expected, hit: hit)
                if !problems.isEmpty { failures.append("\(flip), reader: \(problems)") }
                let report = try reader.verify()
                if report.isClean && report.tornTails.isEmpty { unreported.append("\(flip)") }
            } catch let error as RouteLogError where error.code == .corrupted || error.code == .unsupportedVersion {
                refused += 1
                if flip.file != "MANIFEST" { failures.append("\(flip): the store does not open: \(error)") }
            } catch {
                failures.append("\(flip): open threw \(error)")
            }
            // Every eighth flip, a writer too (which repairs what it can), twice.
            if n % 8 == 0 || flip.file == "MANIFEST" {
                try? FileManager.default.removeItem(at: work)
                try FileManager.default.copyItem(at: template, to: work)
                try Data(bytes).write(to: path)
                for round in 0..<2 {
                    do {
                        let writer = try RouteStore(at: work, options: .init(compaction: .manual), fileSystem: InterceptingFileSystem.unsynced())
                        let problems = Self.check(writer, expected, hit: hit)
                        if !problems.isEmpty { failures.append("\(flip), writer \(round): \(problems)") }
                        try writer.close()
                    } catch let error as RouteLogError where flip.file == "MANIFEST" && (error.code == .corrupted || error.code == .unsupportedVersion) {
                        break
                    } catch {
                        failures.append("\(flip), writer \(round): \(error)")
                    }
                }
                try? FileManager.default.removeItem(at: work)
                try FileManager.default.copyItem(at: template, to: work)
            } else {
                try Data(originals[flip.file]!).write(to: path)
            }
        }
        print("bit flips: \(flips.count) bits flipped in \(names.count) files (\(originals.values.reduce(0) { $0 + $1.count }) bytes), \(refused) refused at open, \(unreported.count) not reported, \(failures.count) failed")
        #expect(failures.isEmpty, "\(failures.count) flips failed; first: \(failures.prefix(8).joined(separator: "\n"))")
        #expect(unreported.isEmpty, "\(unreported.count) flips were not reported; first: \(unreported.prefix(8))")
    }
}
