import Foundation
import Testing
@testable import RouteLog

/// The session that finds a damaged RecordingStart (rebuilding the index), takes the
/// damage out of the segments with a compaction and closes, cut by a crash at every
/// point a weak file system allows (``CrashStateModel``; `lost/` is not traced, so no
/// crash state holds the copy of the damage). Whatever the crash left, the next
/// sessions' compactions, rewriting every segment, keep the recording's chunks.
@Suite(.tags(.slow)) struct RecordingStartDamageCrashTests {
    typealias Layout = RecordingStartDamageAcrossSegmentsTests

    /// The recording's chunks left once a writer opened the store at `url`, deleted the
    /// routes beside the chunks, compacted every segment, and once more after a reopen.
    static func chunksAfterCompactions(at url: URL, _ spread: Layout.Spread) throws -> Int {
        let fs = InterceptingFileSystem.unsynced()
        let store = try RouteStore(at: url, options: .rewritingEverySegment, fileSystem: fs)
        for id in spread.liveBesideChunks where (try? store.summary(id)) != nil { try store.delete(id) }
        try store.compact()
        try store.close()
        let again = try RouteStore(at: url, options: .rewritingEverySegment, fileSystem: fs)
        try again.compact()
        let chunks = try Layout.chunks(spread, in: again)
        try again.close()
        return chunks
    }

    @Test func everyCrashStateOfTheSessionThatTakesTheDamageAwayKeepsTheChunks() throws {
        let dir = TemporaryDirectory()
        let live = dir.store("live.routelog")
        let spread = try Layout.makeDamagedStore(at: live)
        let fs = InterceptingFileSystem()
        let trace = try fs.trace(live)
        do {
            let store = try RouteStore(at: live, options: Layout.options, fileSystem: fs)
            try store.delete(spread.deadBesideStart)
            try store.compact()
            try store.close()
        }
        #expect(try Layout.lostIDs(at: live)?.contains(spread.id.rawValue) == true)
        let model = CrashStateModel(trace)
        var generator = SeededGenerator(state: 5)
        var seen = Set<Int>()
        var states = 0
        var failures: [String] = []
        let work = dir.store("crash.routelog")
        for point in model.crashPoints {
            let pending = model.pending(at: point)
            for choice in model.choices(pending, random: 2, generator: &generator) {
                let files = model.files(pending, choice)
                var hasher = Hasher()
                for name in files.keys.sorted() { hasher.combine(name); hasher.combine(files[name]!) }
                guard seen.insert(hasher.finalize()).inserted else { continue }
                states += 1
                try materialize(files, at: work)
                do {
                    let chunks = try Self.chunksAfterCompactions(at: work, spread)
                    if chunks != 4 { failures.append("crash before operation \(point), \(choice): \(chunks) chunks left") }
                } catch {
                    failures.append("crash before operation \(point), \(choice): \(error)")
                }
            }
        }
        print("recording start damage crash states: \(model.operations.count) operations, \(states) states, \(failures.count) failed")
        #expect(states > 0)
        #expect(failures.isEmpty, "\(failures.count) crash states failed; first: \(failures.prefix(5).joined(separator: "\n"))")
    }
}
