#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The mark in `LOCK` (format-spec.md, "Files"): 16 hexadecimal digits after the
/// writer's pid, drawn anew at each writer's open (unless the last writer closed cleanly,
/// leaving its mark alone, which is kept) and each time a writer cut records off its last
/// segment and goes on writing.
///
/// Records are cut off only when a write or a sync of them failed: they were never
/// acknowledged, but a read-only handle may have read them in the meantime. The writer
/// that cut them stops (a failed sync), or renews its mark (a failed write it could
/// take back); either way whatever is appended after the cut comes under another mark.
/// So a handle that follows the writer reads on from where it stopped only while the
/// mark is the one it saw, and reads the store again when it changed, is gone, or
/// shows where it saw none (a writer puts a deleted `LOCK` back at its next cut). A
/// clean close leaves the mark alone in `LOCK`, and the next writer keeps it: a handle
/// reads on across writer sessions. A writer that crashed (its pid still there) or
/// whose close follows a cut it could not announce (`LOCK` left empty) leaves no mark
/// to keep, so the next one draws anew.
enum WriterMark {
    /// A new mark: 64 random bits.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// What `LOCK` holds while a writer has the store open.
    static func lockContents(pid: pid_t, mark: String) -> [UInt8] {
        Array("\(pid) \(mark)\n".utf8)
    }

    /// What `LOCK` holds after a clean close: the last writer's mark alone.
    static func closedContents(mark: String) -> [UInt8] {
        Array("\(mark)\n".utf8)
    }

    /// The pid (nil after a clean close) and mark (nil in a `LOCK` of a pid alone, as
    /// earlier writers wrote it) of `LOCK`'s bytes; nil for an empty or unreadable one.
    static func parse(_ bytes: [UInt8]) -> (pid: Int32?, mark: String?)? {
        // The first line only: a release writing the mark alone over a longer line
        // shows the old line's end after it until it cuts the file.
        let firstLine = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let text = String(decoding: firstLine, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        let fields = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        func isMark(_ field: String) -> Bool { field.count == 16 && field.allSatisfy(\.isHexDigit) }
        switch fields.count {
        case 1 where isMark(fields[0]): return (nil, fields[0])
        case 1: return Int32(fields[0]).map { ($0, nil) }
        case 2 where isMark(fields[1]): return Int32(fields[0]).map { ($0, fields[1]) }
        default: return nil
        }
    }

    /// The mark in `directory`'s `LOCK` now, or nil when there is none to read.
    static func read(in directory: String, fileSystem: any FileSystem) -> String? {
        guard let file = DurableFile.openIfRegular(StoreLock.path(in: directory), fileSystem: fileSystem),
              let bytes = try? file.read(at: 0, count: 64) else { return nil }
        return parse(bytes)?.mark
    }

    /// Whether a handle that last saw `seen` (the last mark it read, nil for none) must
    /// read the store again now that `LOCK` says `now`: a mark that changed, one that is
    /// gone (`LOCK` deleted or emptied, or rewritten by a writer of a release without
    /// marks), after which the handle goes without one, and one that shows where the
    /// handle saw none. A writer whose `LOCK` was deleted puts a new one in place with
    /// the mark it draws at its next cut (``StoreLock/renewMark(files:)``): a handle
    /// that looked while `LOCK` was gone learns of that cut only by the mark showing.
    /// While no mark shows, the handle's other checks stand alone (format-spec.md).
    static func moved(from seen: String?, to now: String?) -> Bool {
        seen != now
    }
}
