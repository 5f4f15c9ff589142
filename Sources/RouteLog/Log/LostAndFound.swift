import Foundation
import CRouteLogSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's `lost/` folder (format-spec.md, "Files"): where a writer moves bytes it
/// will not keep in the log but must not destroy (docs/recovery-and-compaction.md, "What
/// is never destroyed"): a torn tail before it is cut, a leftover segment that holds
/// records, a file planted under a name the store is about to create. Each entry is a
/// file `NAME@OFFSET` and a line in `lost/LOG` saying where it came from and why.
struct LostAndFound: Sendable {
    let files: LogFiles

    static let directoryName = "lost"
    static let logName = "LOG"

    var directory: String { files.path(Self.directoryName) }

    /// One thing kept in `lost/`.
    struct Entry: Sendable, Equatable {
        /// Its file name in `lost/`.
        var name: String
        /// Its size in bytes.
        var bytes: Int64
        /// The line of `lost/LOG` about it, if there is one.
        var note: String?
    }

    /// Makes `lost/` (a real directory, never through a link).
    private func prepare() throws {
        let fileSystem = files.fileSystem
        switch fileSystem.isDirectory(directory) {
        case true?: break
        case nil:
            do {
                try fileSystem.checked("mkdir", directory) { try fileSystem.makeDirectory(directory) }
            } catch let error as RouteLogError where error.errno == EEXIST {}
            try files.syncDirectory()
        case false?:
            throw RouteLogError.corrupted("\(Self.directoryName) in the store is not a directory; RouteLog keeps what it cannot use there", path: directory)
        }
        guard fileSystem.isDirectory(directory) == true, fileSystem.isSymbolicLink(directory) == false else {
            throw RouteLogError.corrupted("\(Self.directoryName) in the store is a link; RouteLog does not follow links", path: directory)
        }
    }

    /// A name in `lost/` not taken yet, from `base`.
    private func freeName(_ base: String) throws -> String {
        let taken = Set(try files.fileSystem.checked("list", directory) { try files.fileSystem.listDirectory(directory) })
        var name = base, n = 1
        while taken.contains(name) { n += 1; name = base + "." + String(n) }
        return name
    }

    /// Copies `length` bytes of `file` from `offset` into `lost/`, durably, with a line in
    /// the log; the caller may then cut them from the file. A range `lost/` holds already,
    /// byte for byte (kept by an open or a compaction that failed or was killed before
    /// it cut or switched), is not copied again, only noted if its line is missing: an
    /// app that retries a failing open at every launch must not fill the disk with
    /// copies of the same tail.
    /// A copy relied on this way must be one RouteLog can rely on as on its own: a
    /// regular file of one name under `NAME@OFFSET` or a numbered twin, in a real `lost/`;
    /// it is synced (with `lost/`) before the caller may cut, since a copy left by a
    /// crash may never have been.
    func keepCopy(of file: DurableFile, name: String, from offset: Int64, length: Int64, reason: String) throws {
        try prepare()
        if let held = heldCopy(of: file, name: name, from: offset, length: length) {
            try held.syncAll()
            try files.fileSystem.checked("fsync directory", directory) { try files.fileSystem.syncDirectory(directory) }
            // Still the copy, under its name alone, once synced: nothing renamed over it
            // or linked to it since it was compared (else a copy of our own is made).
            if stillHeld(held) {
                try ensureNoted(name: name, from: offset, length: length, reason: reason)
                return
            }
        }
        let copyName = try freeName("\(name)@\(offset)")
        let copy = try DurableFile.create(directory + "/" + copyName, fileSystem: files.fileSystem)
        do {
            try files.protect(copy)
            try copy.copy(from: file, at: offset, length: length)
            try copy.syncAll()
        } catch {
            // A copy cut short holds nothing the file does not: it goes, and the bytes stay
            // where they are (the caller cuts nothing after a failure).
            try? files.fileSystem.unlink(copy.path)
            throw error
        }
        try note("\(name) offset \(offset) length \(length): \(reason)")
    }

    /// Adds the line ``keepCopy(of:name:from:length:reason:)`` writes for a range, unless
    /// `lost/LOG` has it already (a copy whose line a crash cut off is then reported).
    func ensureNoted(name: String, from offset: Int64, length: Int64, reason: String) throws {
        let line = "\(name) offset \(offset) length \(length): "
        if logContains(Array(line.utf8)) { return }
        try note(line + reason)
    }

    /// True when `lost/LOG` holds `text`. Read a megabyte at a time, each read
    /// overlapping the last by the text's length, so that a log of any size costs no
    /// more memory than that.
    private func logContains(_ text: [UInt8]) -> Bool {
        guard !text.isEmpty,
              let log = try? DurableFile.open(directory + "/" + Self.logName, flags: O_RDONLY, fileSystem: files.fileSystem),
              let size = try? log.size() else { return false }
        let window = max(1 << 20, 2 * text.count)
        var start: Int64 = 0
        while start < size {
            guard let bytes = try? log.read(at: start, count: Int(min(Int64(window), size - start))),
                  bytes.count >= text.count || start + Int64(bytes.count) >= size else { return false }
            let found = bytes.withUnsafeBytes { haystack in
                text.withUnsafeBytes { needle in
                    routelog_contains_bytes(haystack.baseAddress, haystack.count, needle.baseAddress, needle.count) == 1
                }
            }
            if found { return true }
            guard start + Int64(bytes.count) < size else { return false }
            start += Int64(bytes.count - text.count + 1)
        }
        return false
    }

    /// Whether `copy`'s path still names it, and nothing else does.
    private func stillHeld(_ copy: DurableFile) -> Bool {
        let fileSystem = files.fileSystem
        guard let named = fileSystem.identityOfName(copy.path), named == fileSystem.identity(copy.ref),
              (try? fileSystem.linkCount(copy.ref)) == 1 else { return false }
        return true
    }

    /// A copy `lost/` already holds of `length` bytes of `file` from `offset`, byte for
    /// byte: a regular file with no other name (a hard link planted from elsewhere could
    /// change or go), under ``keepCopy(of:name:from:length:reason:)``'s `NAME@OFFSET` or a
    /// twin ``freeName(_:)`` makes (`.2`, `.3`, ...; not `.bak`).
    private func heldCopy(of file: DurableFile, name: String, from offset: Int64, length: Int64) -> DurableFile? {
        guard files.fileSystem.isDirectory(directory) == true, files.fileSystem.isSymbolicLink(directory) == false,
              let names = try? files.fileSystem.listDirectory(directory) else { return nil }
        let base = "\(name)@\(offset)"
        func isTwin(_ candidate: String) -> Bool {
            guard candidate.hasPrefix(base + ".") else { return false }
            // Exactly as freeName writes them: 2, 3, ... (not .0, .1 or .007).
            let suffix = String(candidate.dropFirst(base.count + 1))
            guard let n = Int(suffix), n >= 2 else { return false }
            return String(n) == suffix
        }
        for candidate in names.sorted() where candidate == base || isTwin(candidate) {
            guard let copy = try? DurableFile.open(directory + "/" + candidate, flags: O_RDONLY, fileSystem: files.fileSystem),
                  (try? files.fileSystem.linkCount(copy.ref)) == 1,
                  (try? copy.size()) == length else { continue }
            var done: Int64 = 0, same = true
            while same && done < length {
                let count = Int(min(length - done, 1 << 20))
                guard let a = try? file.read(at: offset + done, count: count), let b = try? copy.read(at: done, count: count),
                      a.count == count, a == b else { same = false; break }
                done += Int64(count)
            }
            if same { return copy }
        }
        return nil
    }

    /// Moves the directory entry `name` of the store (a file, or a link, never what it
    /// points to) into `lost/`, with a line in the log. The rename never replaces
    /// anything at its target (``FileSystem/renameExclusive(_:to:)``): a name taken
    /// since `lost/` was listed, or a `lost/` swapped for a link to a folder that holds
    /// that name, fails the rename rather than losing what is there; `lost/` is then
    /// checked and listed again, a few times.
    func moveAside(_ name: String, reason: String) throws {
        var attempt = 0
        while true {
            try prepare()
            let target = try freeName("\(name)@0")
            do {
                try files.fileSystem.checked("rename", files.path(name)) {
                    try files.fileSystem.renameExclusive(files.path(name), to: directory + "/" + target)
                }
                break
            } catch let error as RouteLogError where error.errno == EEXIST && attempt < 3 {
                attempt += 1
            }
        }
        try files.syncDirectory()
        // The file is in lost/ now, and listed there (``entries()``) with or without its
        // line: a log that cannot take the line (not a regular file, a full disk) does
        // not make the move unreported to the caller.
        try? note("\(name) moved whole: \(reason)")
    }

    /// Appends one line to `lost/LOG` and makes it durable.
    private func note(_ text: String) throws {
        let path = directory + "/" + Self.logName
        try keepLogOwn(path)
        let log = try DurableFile.openOrCreate(path, fileSystem: files.fileSystem)
        try files.protect(log)
        let line = Array("\(ISO8601DateFormatter().string(from: Date())) \(text)\n".utf8)
        try log.write(line, at: try log.size())
        try log.syncAll()
        try files.fileSystem.checked("fsync directory", directory) { try files.fileSystem.syncDirectory(directory) }
    }

    /// Replaces a log that another name shares (the `lost/LOG` of a store copied with
    /// `cp -al`) by a copy of its own, so that this store's lines stay out of the other's
    /// (LinkedFiles does the same for the segments). Whatever is at the copy's name (a
    /// copy a crash cut short, or anything planted) is kept in `lost/` under a free name.
    private func keepLogOwn(_ path: String) throws {
        let fileSystem = files.fileSystem
        guard let log = DurableFile.openIfRegular(path, fileSystem: fileSystem),
              try DurableFile.retrying("fstat", path: path, { try fileSystem.linkCount(log.ref) }) > 1 else { return }
        let temporaryName = Self.logName + FormatConstants.temporarySuffix
        let temporary = directory + "/" + temporaryName
        if fileSystem.isSymbolicLink(temporary) != nil {
            let target = directory + "/" + (try freeName(temporaryName + "@0"))
            try fileSystem.checked("rename", temporary) { try fileSystem.rename(temporary, to: target) }
        }
        try LinkedFiles(files: files).copy(log, over: path, through: temporary)
    }

    /// What `lost/` holds, oldest note first; empty when there is no `lost/`.
    func entries() -> [Entry] {
        guard files.fileSystem.isDirectory(directory) == true,
              let names = try? files.fileSystem.listDirectory(directory) else { return [] }
        var notes: [String: String] = [:]
        if let log = try? DurableFile.open(directory + "/" + Self.logName, flags: O_RDONLY, fileSystem: files.fileSystem),
           let size = try? log.size(), size <= 1 << 20, let bytes = try? log.read(at: 0, count: Int(size)) {
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 2)
                guard words.count == 3 else { continue }
                let file = String(words[1])
                let offset = words[2].split(separator: " ").dropFirst().first.map(String.init) ?? "0"
                notes[words[2].hasPrefix("moved") ? "\(file)@0" : "\(file)@\(offset)"] = String(line)
            }
        }
        return names.filter { $0 != Self.logName }.sorted().map { name in
            let size = (try? DurableFile.open(directory + "/" + name, flags: O_RDONLY, fileSystem: files.fileSystem))
                .flatMap { try? $0.size() } ?? 0
            let base = name.split(separator: ".").count > 1 && name.hasSuffix(String(name.split(separator: ".").last!))
                && Int(name.split(separator: ".").last!) != nil ? String(name[..<name.lastIndex(of: ".")!]) : name
            return Entry(name: name, bytes: size, note: notes[base] ?? notes[name])
        }
    }
}
