import Foundation
import Testing
@testable import RouteLog

/// How LogScannerTests scan forged bytes and check every scan.
extension LogScannerTests {
    struct Record: Equatable, CustomStringConvertible {
        let type: UInt8
        let flags: UInt8
        let offset: Int64
        let length: Int
        let payload: [UInt8]
        var description: String { "type \(type) flags \(flags) at \(offset)+\(length)" }
    }

    struct Scan {
        var records: [Record] = []
        var damage: [DamagedRange] = []
        var validEnd: Int64 = 0
        var tail: Int64 = 0
        var work = LogScanner.Work()
    }

    static let path = MemoryFiles([:]).path("log")

    /// Scans `bytes` (a file of format `version`) from offset 0 to the end, through `wrap`
    /// around the in-memory file. `partitioned`: check that records, damage and tail
    /// cover the file without overlap, which holds unless damage comes right before a
    /// batch the end of the file cuts (that damage lies in the tail too).
    static func scan(_ bytes: [UInt8], version: UInt16 = FormatConstants.version, partitioned: Bool = true,
                     through wrap: (MemoryFiles) -> any FileSystem = { $0 }) throws -> Scan {
        let memory = MemoryFiles(["log": bytes])
        let file = try DurableFile.open(memory.path("log"), flags: O_RDONLY, fileSystem: wrap(memory))
        var scanner = LogScanner(file: file, from: 0, fileSize: try file.size(), version: version)
        var scan = Scan()
        while let r = try scanner.next() {
            scan.records.append(Record(type: r.type, flags: r.flags, offset: r.offset, length: r.frameLength, payload: Array(r.payload)))
            #expect(scanner.validEnd == r.end, "validEnd follows the records handed out")
        }
        #expect(try scanner.next() == nil, "the end stays the end")
        scan.damage = scanner.damage
        scan.validEnd = scanner.validEnd
        scan.tail = scanner.tailLength
        scan.work = scanner.work
        if partitioned { expectPartition(scan, size: bytes.count) }
        return scan
    }

    /// Records and damage follow each other without gap or overlap from the start to
    /// `validEnd`, and the tail is the rest: every byte is accounted for once.
    static func expectPartition(_ scan: Scan, size: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let pieces = (scan.records.map { ($0.offset, Int64($0.length)) } + scan.damage.map { ($0.offset, $0.length) })
            .sorted { $0.0 < $1.0 }
        var at: Int64 = 0
        for (offset, length) in pieces {
            #expect(offset == at && length > 0, "a piece at \(offset)+\(length) after \(at)", sourceLocation: sourceLocation)
            at = offset + length
        }
        #expect(at == scan.validEnd && scan.validEnd + scan.tail == Int64(size), sourceLocation: sourceLocation)
        #expect(scan.damage.allSatisfy { $0.path == path }, sourceLocation: sourceLocation)
    }

    /// The records `log` holds at pieces `indices`, as the scanner should hand them out.
    static func expected(_ log: ForgedLog, _ frames: [Int: ForgedFrame]) -> [Record] {
        frames.keys.sorted().map { i in
            Record(type: frames[i]!.type, flags: frames[i]!.flags, offset: log.offset(i),
                   length: log.pieces[i].length, payload: frames[i]!.payload)
        }
    }

    static func damage(_ offset: Int64, _ length: Int64) -> DamagedRange {
        DamagedRange(path: path, offset: offset, length: length)
    }

    /// Bytes read, added up from another thread's observer.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var sum = 0
        func add(_ n: Int) { lock.withLock { sum += n } }
        var total: Int { lock.withLock { sum } }
    }

    /// Scans `bytes` (which hold no record) within a budget of reads and bytes read.
    static func expectLinear(_ name: String, _ bytes: [UInt8], version: UInt16 = FormatConstants.version,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let budget = 64
        let read = Tally()
        let scan: Scan
        do {
            scan = try Self.scan(bytes, version: version) { memory in
                let fs = InterceptingFileSystem(base: memory, fault: .init(.kind(.read, budget + 1), errno: EIO, .persistent))
                fs.observe { if case .read(_, _, let n) = $0 { read.add(n) } }
                return fs
            }
        } catch {
            Issue.record("\(name): a scan of \(bytes.count) bytes made more than \(budget) reads (\(read.total) bytes) and was stopped: \(error)",
                         sourceLocation: sourceLocation)
            return
        }
        #expect(scan.records.isEmpty && scan.damage.isEmpty, "\(name)", sourceLocation: sourceLocation)
        #expect(scan.validEnd == 0 && scan.tail == Int64(bytes.count), "\(name)", sourceLocation: sourceLocation)
        #expect(read.total <= bytes.count && scan.work.bytesRead == read.total,
                "\(name): \(read.total) bytes read for a file of \(bytes.count)", sourceLocation: sourceLocation)
        #expect(scan.work.bytesChecksummed <= 4 * bytes.count, "\(name): \(scan.work)", sourceLocation: sourceLocation)
    }
}
