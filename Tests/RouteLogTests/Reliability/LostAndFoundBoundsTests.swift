import Foundation
import Testing
@testable import RouteLog
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `lost/` keeps what a writer may not destroy, at a cost bounded by what is kept, not
/// by what an attacker plants: a sparse range stays sparse, a huge LOG is searched a
/// piece at a time, a LOG that is no file does not hide a move, and a leftover index at
/// the next file number is cleared, not kept.
@Suite struct LostAndFoundBoundsTests {
    static func lostAndFound(_ dir: TemporaryDirectory) -> LostAndFound {
        LostAndFound(files: LogFiles(directory: dir.url.path, fileSystem: PosixFileSystem.shared))
    }

    static func allocatedBytes(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return Int64(info.st_blocks) * 512
    }

    @Test func aRangeOfZerosIsKeptAsAHole() throws {
        let dir = TemporaryDirectory()
        let path = dir.url.appendingPathComponent("seg-00000001.rlseg").path
        let head = Array("a record's bytes".utf8), tail = Array("and more".utf8)
        let size: Int64 = 64 << 20
        let file = try DurableFile.create(path, fileSystem: PosixFileSystem.shared)
        try file.write(head, at: 0)
        try file.write(tail, at: size - Int64(tail.count))
        let lost = Self.lostAndFound(dir)
        try lost.keepCopy(of: file, name: "seg-00000001.rlseg", from: 0, length: size, reason: "a test")
        let copy = lost.directory + "/seg-00000001.rlseg@0"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
        #expect(Int64(bytes.count) == size)
        #expect(Array(bytes.prefix(head.count)) == head && Array(bytes.suffix(tail.count)) == tail)
        #expect(bytes.dropFirst(head.count).dropLast(tail.count).allSatisfy { $0 == 0 })
        // Two megabytes at most hold data (the first and last pieces); the zeros between
        // take no space.
        #expect(Self.allocatedBytes(copy) <= 2 << 20, "\(Self.allocatedBytes(copy)) bytes allocated")
        #expect(lost.listing().entries.first?.note?.contains("length \(size): a test") == true)
    }

    @Test func aLineIsFoundInALogOfManyMegabytes() throws {
        let dir = TemporaryDirectory()
        let lost = Self.lostAndFound(dir)
        let logPath = lost.directory + "/LOG"
        try FileManager.default.createDirectory(atPath: lost.directory, withIntermediateDirectories: true)
        let filler = String(repeating: "2026-01-01T00:00:00Z seg-00000009.rlseg offset 1 length 2: filler\n", count: 40_000)
        let target = "2026-01-01T00:00:00Z seg-00000003.rlseg offset 20 length 300: damage\n"
        // The line straddles the first megabyte's end, where one read stops and the next begins.
        let before = String(filler.utf8.prefix((1 << 20) - 30))!
        try (before + target + filler).write(toFile: logPath, atomically: false, encoding: .utf8)
        let size = try FileManager.default.attributesOfItem(atPath: logPath)[.size] as! Int
        try lost.ensureNoted(name: "seg-00000003.rlseg", from: 20, length: 300, reason: "damage")
        #expect(try FileManager.default.attributesOfItem(atPath: logPath)[.size] as! Int == size, "no second line")
        try lost.ensureNoted(name: "seg-00000003.rlseg", from: 21, length: 300, reason: "damage")
        let grown = try FileManager.default.attributesOfItem(atPath: logPath)[.size] as! Int
        #expect(grown > size)
        let last = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").last
        #expect(last?.hasSuffix("seg-00000003.rlseg offset 21 length 300: damage") == true)
    }

    @Test func aMoveIsReportedWhenTheLogTakesNoLine() throws {
        let dir = TemporaryDirectory()
        let lost = Self.lostAndFound(dir)
        try FileManager.default.createDirectory(atPath: lost.directory, withIntermediateDirectories: true)
        #expect(mkfifo(lost.directory + "/LOG", 0o600) == 0)
        try Data("planted".utf8).write(to: dir.url.appendingPathComponent("seg-00000007.rlseg"))
        try lost.moveAside("seg-00000007.rlseg", reason: "in the way")
        #expect(FileManager.default.fileExists(atPath: lost.directory + "/seg-00000007.rlseg@0"))
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("seg-00000007.rlseg").path))
        #expect(lost.listing().entries.map(\.name).contains("seg-00000007.rlseg@0"))
    }

    /// A compaction or an index rewrite makes its index file before the manifest counts
    /// its number; killed then, it leaves an index at the next file number. The next
    /// open that rebuilds the index reserves that number again: the leftover, which
    /// holds nothing the segments lack, is cleared first, not moved into `lost/`.
    @Test func aLeftoverIndexAtTheNextFileNumberIsClearedNotKept() throws {
        for content in [[UInt8](), FileHeader(kind: .index, fileNumber: 0).encoded(), Array(repeating: 0x5A, count: 5000)] {
            let dir = TemporaryDirectory()
            let url = dir.store()
            let store = try RouteStore(at: url)
            var ids: [RouteID] = []
            for seed in 1...3 { ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 50))) }
            let (next, index) = store.state.withLock { ($0.manifestNextFileNumber, $0.indexFileNumber) }
            try store.close()
            // No index: the open rebuilds it, and reserves the next file number for it.
            try FileManager.default.removeItem(at: url.appendingPathComponent(FormatConstants.indexName(index)))
            var planted = content
            if planted.count == FormatConstants.fileHeaderSize { planted = FileHeader(kind: .index, fileNumber: next).encoded() }
            try Data(planted).write(to: url.appendingPathComponent(FormatConstants.indexName(next)))

            let reopened = try RouteStore(at: url)
            #expect(reopened.state.withLock { $0.indexRebuilt && $0.indexFileNumber >= next })
            #expect(try reopened.verify().lostFiles.isEmpty, "a leftover of \(content.count) bytes")
            #expect(try Set(reopened.summaries().map(\.id)) == Set(ids))
            try reopened.close()
        }
    }
}
