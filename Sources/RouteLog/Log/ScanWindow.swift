#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CRouteLogSystem

/// The bytes a log scan holds: one stretch of the file that grows at its end and lets
/// go of its start, so that every byte enters once however often the scanner looks at
/// it (format-spec.md, "Bounds on hostile files").
///
/// The array is replaced when the window grows, never changed in place: records the
/// scanner handed out share it, and a change would copy it under them.
struct ScanWindow: Sendable {
    private let file: DurableFile
    let fileSize: Int64
    /// The bytes held, the first at offset `start`.
    private(set) var bytes: [UInt8] = []
    private(set) var start: Int64
    /// Bytes read from the file so far.
    private(set) var bytesRead = 0
    /// Bytes looked at for a sync marker so far.
    private(set) var bytesSearched = 0

    /// The least a read asks for, so that small steps do not make small reads.
    static let readSize = 1 << 20

    init(file: DurableFile, fileSize: Int64, start: Int64) {
        self.file = file
        self.fileSize = fileSize
        self.start = start
    }

    var end: Int64 { start + Int64(bytes.count) }

    /// Makes the window hold `keep..<end`, reading only the bytes past what it holds and
    /// letting go of those before `keep`. A read asks for at least ``readSize`` bytes
    /// and a quarter of those kept (up to the end of the file), so that the copy of the
    /// kept bytes into the new array costs at most four bytes per byte read, and the
    /// window stays within 1.25 times the stretch asked for (or 1 MiB more).
    mutating func hold(from keep: Int64, to end: Int64) throws {
        precondition(keep <= end && end <= fileSize, "a window within the file")
        if keep >= start && end <= self.end { return }
        // Bytes before `start` are read again: only a caller that looks back before what
        // it let go of does that.
        let keeps = keep >= start && keep <= self.end
        let readFrom = keeps ? self.end : keep
        let kept = keeps ? Int(self.end - keep) : 0
        let want = Int(min(fileSize - readFrom, Int64(max(Int(end - readFrom), Self.readSize, kept / 4))))
        // One new array: the kept bytes copied to its start and the file read straight
        // into the rest (no zeroing first, no second copy of what was read).
        let keptBytes = kept == 0 ? [] : bytes[index(keep)...]
        var got = 0
        let next = try [UInt8](unsafeUninitializedCapacity: kept + want) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            keptBytes.withUnsafeBytes { raw.copyMemory(from: $0) }
            got = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[kept...]), at: readFrom)
            initialized = kept + got
        }
        bytesRead += got
        guard got == want else {
            // The file is shorter than the size the scan was given: it shrank under it.
            throw RouteLogError.io("read", path: file.path, errno: EIO)
        }
        bytes = next
        start = keeps ? keep : readFrom
    }

    /// The index in ``bytes`` of the byte at `offset`, which the window holds.
    func index(_ offset: Int64) -> Int { Int(offset - start) }

    /// The header fields of a frame at `offset` whose 16 header bytes the window holds.
    func header(at offset: Int64) -> (checksum: UInt32, length: Int, type: UInt8, flags: UInt8)? {
        bytes.withUnsafeBytes { RecordFrame.header($0, at: index(offset)) }
    }

    /// The first offset in `range` where a sync marker starts; the window holds the
    /// range and the 3 bytes after it.
    mutating func firstMarker(in range: Range<Int64>) -> Int64? {
        guard !range.isEmpty else { return nil }
        let sync = FormatConstants.recordSync
        let lower = index(range.lowerBound), upper = index(range.upperBound)
        let hit: Int? = bytes.withUnsafeBytes { raw in
            // A marker starting before `upper` has its first 3 bytes before `upper + 2`.
            let base = raw.baseAddress!, searchEnd = upper + 2
            var at = lower
            while at < upper {
                let i = at + routelog_find_sync_prefix(base + at, searchEnd - at)
                guard i < upper else { return nil }
                if raw[i + 3] == sync[3] { return i }
                at = i + 1
            }
            return nil
        }
        bytesSearched += (hit.map { $0 + 1 } ?? upper) - lower
        return hit.map { start + Int64($0) }
    }

    /// Where the version 2 payload at `range` (which the window holds) holds `AB 52 4C`,
    /// each followed by the `00` of its escape (format-spec.md, "Frames"): offsets from
    /// the payload's start. Or, when one is followed by anything else or by nothing (the
    /// payload's end), that first one's offset in the file as `unescaped`: the payload
    /// is damage, and a sync marker may start there. One search finds both what the
    /// scan rejects a frame for and what the unescaping takes out.
    mutating func escapes(in range: Range<Int64>) -> (hits: [Int], unescaped: Int64?) {
        let lower = index(range.lowerBound), upper = index(range.upperBound)
        var hits: [Int] = []
        let unescaped: Int? = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return nil }
            var at = lower
            while at < upper {
                let i = at + routelog_find_sync_prefix(base + at, upper - at)
                guard i < upper else { break }
                guard i + 3 < upper, raw[i + 3] == 0 else { return i }
                hits.append(i - lower)
                at = i + 1
            }
            return nil
        }
        bytesSearched += (unescaped.map { $0 + 1 } ?? upper) - lower
        return (hits, unescaped.map { start + Int64($0) })
    }

    /// True when a sync marker starts at `offset`; the window holds its 4 bytes.
    func isMarker(at offset: Int64) -> Bool {
        let i = index(offset), sync = FormatConstants.recordSync
        return bytes[i] == sync[0] && bytes[i + 1] == sync[1] && bytes[i + 2] == sync[2] && bytes[i + 3] == sync[3]
    }
}
