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
/// file `NAME@OFFSET` and a line in `lost/LOG` saying where it came from and why. Each
/// call holds `lost/` by one descriptor, opened in the store's directory as the writer
/// holds it (``LogFiles/storeDirectory()``), and makes, moves, lists and syncs
/// everything in it through that (``LostDirectory``), never by a path.
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

    /// Opens `lost/`, made when missing: a real directory, never through a link, held by
    /// one descriptor that every use of it in the call goes through (``LostDirectory``).
    private func open() throws -> LostDirectory {
        let lost = try LostDirectory.open(Self.directoryName, in: try files.storeDirectory(), fileSystem: files.fileSystem, making: true)
        try adoptCopy(in: lost)
        return lost
    }

    /// Gives `LOG.tmp` the name `LOG` when nothing has that name: it is then the store's
    /// copy of a shared log that a crash stopped between ``keepLogOwn(in:)``'s two
    /// renames (the shared file moved to `LOG@0`, the copy not yet at `LOG`). Left
    /// there, the next line would start a new `LOG` and the history would be split
    /// between two files, the older one under a name nothing reads. The copy is whole:
    /// the shared file leaves `LOG` only once the copy and its name are synced. (Only a
    /// `LOG` removed by hand beside a copy cut short leaves a torn one; taken as `LOG`,
    /// it keeps every byte it has, so nothing is lost either way.) The rename replaces
    /// nothing: a `LOG` made meanwhile stays, and the copy is then one beside a log.
    private func adoptCopy(in lost: LostDirectory) throws {
        let temporary = Self.logName + FormatConstants.temporarySuffix
        guard lost.identityOfName(Self.logName) == nil, (try? lost.open(temporary, flags: O_RDONLY)) != nil else { return }
        do {
            try lost.rename(temporary, to: Self.logName, replacing: false)
        } catch let error as RouteLogError where error.errno == EEXIST || error.errno == ENOENT {
            return  // a LOG made, or the copy taken, meanwhile
        }
        try lost.sync()
    }

    /// A name in `lost/` not taken yet, from `base`, among `taken` (listed when not given).
    private func freeName(_ base: String, in lost: LostDirectory, taken: [String]? = nil) throws -> String {
        let taken = Set(try taken ?? lost.names())
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
    /// crash may never have been. Throws, and the caller cuts nothing, when `lost/` no
    /// longer names the directory the copy went into (``LostDirectory/checkStillNamed()``).
    func keepCopy(of file: DurableFile, name: String, from offset: Int64, length: Int64, reason: String) throws {
        let lost = try open()
        if case let (heldName, held)? = heldCopy(in: lost, of: file, name: name, from: offset, length: length) {
            try held.syncAll()
            try lost.sync()
            // Still the copy, under its name alone, once synced: nothing renamed over it
            // or linked to it since it was compared (else a copy of our own is made).
            if stillHeld(held, named: heldName, in: lost) {
                try ensureNoted(in: lost, name: name, from: offset, length: length, reason: reason)
                try lost.checkStillNamed()
                return
            }
        }
        let copyName = try freeName("\(name)@\(offset)", in: lost)
        let copy = try lost.create(copyName)
        do {
            try files.protect(copy)
            try copy.copy(from: file, at: offset, length: length)
            try copy.syncAll()
        } catch {
            // A copy cut short holds nothing the file does not: it goes, and the bytes stay
            // where they are (the caller cuts nothing after a failure).
            try? lost.remove(copyName)
            throw error
        }
        try note("\(name) offset \(offset) length \(length): \(reason)", in: lost)
        try lost.checkStillNamed()
    }

    /// Adds the line ``keepCopy(of:name:from:length:reason:)`` writes for a range, unless
    /// `lost/LOG` has it already (a copy whose line a crash cut off is then reported).
    func ensureNoted(name: String, from offset: Int64, length: Int64, reason: String) throws {
        let lost = try open()
        try ensureNoted(in: lost, name: name, from: offset, length: length, reason: reason)
        try lost.checkStillNamed()
    }

    private func ensureNoted(in lost: LostDirectory, name: String, from offset: Int64, length: Int64, reason: String) throws {
        let line = "\(name) offset \(offset) length \(length): "
        if logContains(Array(line.utf8), in: lost) { return }
        try note(line + reason, in: lost)
    }

    /// True when `lost/LOG` holds `text`. Read a megabyte at a time, each read
    /// overlapping the last by the text's length, so that a log of any size costs no
    /// more memory than that.
    private func logContains(_ text: [UInt8], in lost: LostDirectory) -> Bool {
        guard !text.isEmpty, let log = try? lost.open(Self.logName, flags: O_RDONLY), let size = try? log.size() else { return false }
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

    /// Whether the name `name` in `lost/` still leads to `copy`, and nothing else does.
    private func stillHeld(_ copy: DurableFile, named name: String, in lost: LostDirectory) -> Bool {
        let fileSystem = files.fileSystem
        guard let named = lost.identityOfName(name), named == fileSystem.identity(copy.ref),
              (try? fileSystem.linkCount(copy.ref)) == 1 else { return false }
        return true
    }

    /// A copy `lost/` already holds of `length` bytes of `file` from `offset`, byte for
    /// byte, and its name: a regular file with no other name (a hard link planted from
    /// elsewhere could change or go), under ``keepCopy(of:name:from:length:reason:)``'s
    /// `NAME@OFFSET` or a twin ``freeName(_:in:taken:)`` makes (`.2`, `.3`, ...; not `.bak`).
    private func heldCopy(in lost: LostDirectory, of file: DurableFile, name: String, from offset: Int64,
                          length: Int64) -> (String, DurableFile)? {
        guard let names = try? lost.names() else { return nil }
        let base = "\(name)@\(offset)"
        func isTwin(_ candidate: String) -> Bool {
            guard candidate.hasPrefix(base + ".") else { return false }
            // Exactly as freeName writes them: 2, 3, ... (not .0, .1 or .007).
            let suffix = String(candidate.dropFirst(base.count + 1))
            guard let n = Int(suffix), n >= 2 else { return false }
            return String(n) == suffix
        }
        for candidate in names.sorted() where candidate == base || isTwin(candidate) {
            guard let copy = try? lost.open(candidate, flags: O_RDONLY),
                  (try? files.fileSystem.linkCount(copy.ref)) == 1,
                  (try? copy.size()) == length else { continue }
            var done: Int64 = 0, same = true
            while same && done < length {
                let count = Int(min(length - done, 1 << 20))
                guard let a = try? file.read(at: offset + done, count: count), let b = try? copy.read(at: done, count: count),
                      a.count == count, a == b else { same = false; break }
                done += Int64(count)
            }
            if same { return (candidate, copy) }
        }
        return nil
    }

    /// Moves the directory entry `name` of the store (a file, or a link, never what it
    /// points to) into `lost/`, with a line in the log. The rename goes from the store's
    /// directory to `lost/`, each by its descriptor, and never replaces anything at its
    /// target (``FileSystem/renameExclusive(_:in:to:in:)``): a name taken since `lost/`
    /// was listed fails the rename rather than losing what is there, and `lost/` is
    /// listed again, a few times. Throws once the file is moved when `lost/` no longer
    /// names the directory it went into (``LostDirectory/checkStillNamed()``).
    func moveAside(_ name: String, reason: String) throws {
        let lost = try open()
        var attempt = 0
        while true {
            let target = try freeName("\(name)@0", in: lost)
            do {
                try lost.moveIn(name, as: target)
                break
            } catch let error as RouteLogError where error.errno == EEXIST && attempt < 3 {
                attempt += 1
            }
        }
        try lost.sync()
        try lost.syncStore()
        // The file is in lost/ now, and listed there (``entries()``) with or without its
        // line: a log that cannot take the line (not a regular file, a full disk) does
        // not make the move unreported to the caller.
        try? note("\(name) moved whole: \(reason)", in: lost)
        try lost.checkStillNamed()
    }

    /// Appends one line to `lost/LOG` (opened with O_APPEND, never through a link) and
    /// makes it durable. The line goes only into a file that has no other name: the
    /// name may lead to another file since ``keepLogOwn(in:)`` looked (a hard link of a
    /// file outside the store renamed over it), so the opened file is looked at again,
    /// and made a copy of this store's own when it is shared.
    private func note(_ text: String, in lost: LostDirectory) throws {
        var attempt = 0
        var log: DurableFile
        while true {
            try keepLogOwn(in: lost)
            log = try lost.open(Self.logName, flags: O_RDWR | O_CREAT | O_APPEND)
            let opened = log
            let names = try DurableFile.retrying("fstat", path: log.path) { try files.fileSystem.linkCount(opened.ref) }
            if names == 1 { break }
            guard attempt < 3 else {
                throw RouteLogError(.io, "\(Self.logName) in \(lost.name)/ was given another name each time RouteLog made it a copy "
                                        + "of the store's own; nothing was written to it: try again", path: log.path)
            }
            attempt += 1
        }
        try files.protect(log)
        let line = Array("\(ISO8601DateFormatter().string(from: Date())) \(text)\n".utf8)
        try log.write(line, at: try log.size())
        try log.syncAll()
        try lost.sync()
    }

    /// Replaces a log that another name shares (the `lost/LOG` of a store copied with
    /// `cp -al`) by a copy of its own, so that this store's lines stay out of the other's
    /// (LinkedFiles does the same for the segments): written as `LOG.tmp`, synced, and
    /// renamed to `LOG` once the shared file is renamed to `LOG@0` (or a free twin of
    /// it), where it keeps a name. A crash between those renames leaves the copy, which
    /// the next use takes as `LOG` (``adoptCopy(in:)``). A copy a crash cut short
    /// before them is removed (LOG holds its bytes); anything else at the copy's name
    /// (anything planted), and whatever is renamed over `LOG` meanwhile, is kept in
    /// `lost/` under a free name, never replaced.
    private func keepLogOwn(in lost: LostDirectory) throws {
        let fileSystem = files.fileSystem
        guard let log = try? lost.open(Self.logName, flags: O_RDONLY),
              try DurableFile.retrying("fstat", path: log.path, { try fileSystem.linkCount(log.ref) }) > 1 else { return }
        let temporary = Self.logName + FormatConstants.temporarySuffix
        let names = try lost.names()
        if names.contains(temporary) {
            // Beside a LOG, a copy of one name that holds the first bytes of it is one a
            // crash cut short before the shared file left LOG: LOG still holds every byte
            // of it, so it goes, while the name still leads to the file compared (one
            // renamed to it since is not that copy). Anything else there is kept under a
            // free name.
            if let leftover = try? lost.open(temporary, flags: O_RDONLY),
               (try? fileSystem.linkCount(leftover.ref)) == 1, (try? leftover.isPrefix(of: log)) == true,
               let compared = fileSystem.identity(leftover.ref), lost.identityOfName(temporary) == compared {
                try lost.remove(temporary)
            } else {
                try lost.rename(temporary, to: try freeName(temporary + "@0", in: lost, taken: names), replacing: false)
            }
        }
        let copy = try lost.create(temporary)
        do {
            try files.protect(copy)
            try copy.copy(from: log)
            try copy.syncAll()
            // The copy's name durable before the shared file leaves LOG: a crash between
            // the renames below then leaves a whole copy and no LOG (adoptCopy).
            try lost.sync()
            // The shared file keeps a name here (it is another store's log too), and
            // whatever is at LOG by now (a file renamed over it since the look) goes aside
            // with it: each rename replaces nothing, so no file is deleted on the way.
            var attempt = 0
            while true {
                do {
                    do {
                        try lost.rename(Self.logName, to: try freeName(Self.logName + "@0", in: lost), replacing: false)
                    } catch let error as RouteLogError where error.errno == ENOENT {}  // nothing at LOG any more
                    try lost.rename(temporary, to: Self.logName, replacing: false)
                    break
                } catch let error as RouteLogError where error.errno == EEXIST && attempt < 3 {
                    attempt += 1
                }
            }
        } catch {
            try? lost.remove(temporary)
            throw error
        }
    }

    /// What `lost/` holds, and why it could not be looked at when it could not.
    struct Listing {
        var entries: [Entry] = []
        /// Set when `lost/` was not listed (the store's directory moved or replaced since
        /// the store opened, `lost/` unreadable): its entries are then unknown, not none.
        var notListed: String?
    }

    /// What `lost/` holds, oldest note first; no entries when there is no `lost/`.
    /// Anything that keeps it from being looked at (the store's directory moved away
    /// from a read-only handle's path, a link or a file at `lost/`, no permission) is
    /// said in ``Listing/notListed``, never passed off as an empty folder. Read only: a
    /// `LOG.tmp` with no `LOG` beside it (a crash between the renames of
    /// ``keepLogOwn(in:)``, which the writer's next use of `lost/` renames to `LOG`) is
    /// read as the log meanwhile, not listed as a file the notes would miss.
    func listing() -> Listing {
        let store: HeldDirectory, lost: LostDirectory, names: [String]
        do {
            store = try files.storeDirectory()
        } catch let error as RouteLogError where error.errno == ENOENT && files.opened != nil {
            // Nothing at the path of the directory a read-only handle opened: it was moved
            // away (or deleted), and its lost/ is not known to be empty.
            return Listing(notListed: "\(Self.directoryName)/ was not listed: \(HeldDirectory.moved(error.path ?? files.directory))")
        } catch {
            return Listing(notListed: "\(Self.directoryName)/ was not listed: \(error)")
        }
        do {
            lost = try LostDirectory.open(Self.directoryName, in: store, fileSystem: files.fileSystem, making: false)
            names = try lost.names()
        } catch let error as RouteLogError where error.errno == ENOENT {
            return Listing()  // no lost/: nothing was ever moved aside
        } catch {
            return Listing(notListed: "\(Self.directoryName)/ was not listed: \(error)")
        }
        let logName = names.contains(Self.logName) || !names.contains(Self.logName + FormatConstants.temporarySuffix)
            ? Self.logName : Self.logName + FormatConstants.temporarySuffix
        var notes: [String: String] = [:]
        if let log = try? lost.open(logName, flags: O_RDONLY),
           let size = try? log.size(), size <= 1 << 20, let bytes = try? log.read(at: 0, count: Int(size)) {
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 2)
                guard words.count == 3 else { continue }
                let file = String(words[1])
                let offset = words[2].split(separator: " ").dropFirst().first.map(String.init) ?? "0"
                notes[words[2].hasPrefix("moved") ? "\(file)@0" : "\(file)@\(offset)"] = String(line)
            }
        }
        return Listing(entries: names.filter { $0 != logName }.sorted().map { name in
            // By name: a file this user may not read still shows its size.
            let size = lost.sizeOfName(name) ?? (try? lost.open(name, flags: O_RDONLY)).flatMap { try? $0.size() } ?? 0
            let base = name.split(separator: ".").count > 1 && name.hasSuffix(String(name.split(separator: ".").last!))
                && Int(name.split(separator: ".").last!) != nil ? String(name[..<name.lastIndex(of: ".")!]) : name
            return Entry(name: name, bytes: size, note: notes[base] ?? notes[name])
        })
    }
}
