import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tables an earlier export left in a part's folder, and what becomes of them when
/// an export that could not read some routes replaces or removes them: a table that may
/// hold one of those routes is kept, moved to `_routes.parquet.previous` and
/// `_points.parquet.previous` (then `.previous.2`, ...: one number for the pair, and an
/// existing name of any kind is never replaced). The leading `_` and the suffix keep
/// dataset readers (pyarrow, Spark, `*.parquet` globs) from reading them as data.
enum EarlierTables {
    static let tableNames = [ParquetExporter.routesFileName, ParquetExporter.pointsFileName]

    /// The earlier tables in `folder` that exist (any kind of file at their names).
    static func present(in folder: URL) -> [URL] {
        tableNames.map { folder.appendingPathComponent($0) }.filter { OutputNames.exists($0.path) }
    }

    /// Whether the earlier tables in `folder` may hold a route of `unreadable`: their
    /// list of routes (``ExportPartContents``) names one, or there is no list.
    static func mayHold(_ unreadable: Set<RouteID>, in folder: URL) -> Bool {
        guard !unreadable.isEmpty, !present(in: folder).isEmpty else { return false }
        guard let held = ExportPartContents.read(in: folder) else { return true }
        return held.containsAny(of: unreadable)
    }

    /// Moves the earlier tables of `folder` to their kept names and returns where they
    /// went. Their list of routes goes first, to `_routelog_export.json.previous` (with
    /// the pair's number), so that no list ever describes other tables, and so that a
    /// later export can tell when every route of the kept pair is exported again
    /// (``releasable(in:exported:)``).
    /// - Throws: ``RouteLogError`` `.io` when one cannot be moved (the others stay where
    ///   they were or are kept; none is removed).
    static func keep(in folder: URL) throws -> [URL] {
        let tables = present(in: folder)
        guard !tables.isEmpty else { return [] }
        var suffix = ".previous", n = 2
        while (tableNames + [ExportPartContents.fileName]).contains(where: {
            OutputNames.exists(folder.appendingPathComponent(keptName($0, suffix)).path)
        }) {
            suffix = ".previous.\(n)"
            n += 1
        }
        let list = folder.appendingPathComponent(ExportPartContents.fileName)
        if OutputNames.isRegularFile(list.path) {
            try OutputNames.moveWithoutReplacing(list.path, to: folder.appendingPathComponent(keptName(list.lastPathComponent, suffix)).path)
        } else {
            try ExportPartContents.remove(in: folder)
        }
        var kept: [URL] = []
        for table in tables {
            let target = folder.appendingPathComponent(keptName(table.lastPathComponent, suffix))
            try OutputNames.moveWithoutReplacing(table.path, to: target.path)
            kept.append(target)
        }
        return kept
    }

    /// The kept name of table or list `name`: `_routes.parquet.previous`, and the list's
    /// `_routelog_export.json.previous` (it starts with `_` already).
    private static func keptName(_ name: String, _ suffix: String) -> String {
        (name.hasPrefix("_") ? name : "_" + name) + suffix
    }

    /// A kept pair that may go: its folder and number.
    struct KeptPair {
        let folder: URL
        let suffix: String
    }

    /// The kept pairs in `folders` whose kept list names only routes this export wrote
    /// (readable again), the same routes of the same store by the list's digest of ids
    /// and uuids: with their list, they hold nothing the new tables lack. A pair kept
    /// without a list, or with a list without a digest, is not one of them.
    static func releasable(in folders: [URL], exported: [RouteID: UUID]) -> [KeptPair] {
        var pairs: [KeptPair] = []
        let listPrefix = ExportPartContents.fileName + ".previous"
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name.hasPrefix(listPrefix) {
                let suffix = String(name.dropFirst(ExportPartContents.fileName.count))
                guard suffix == ".previous" || (suffix.hasPrefix(".previous.") && OutputNames.isNumber(suffix.dropFirst(10))),
                      let held = ExportPartContents.read(folder.appendingPathComponent(name)),
                      held.areWritten(in: exported) else { continue }
                pairs.append(KeptPair(folder: folder, suffix: suffix))
            }
        }
        return pairs
    }

    /// Removes `pairs`, tables first, then their lists; returns what was removed.
    static func remove(_ pairs: [KeptPair]) -> [URL] {
        var removed: [URL] = []
        for pair in pairs {
            for table in tableNames {
                let kept = pair.folder.appendingPathComponent(keptName(table, pair.suffix))
                if OutputNames.isRegularFile(kept.path), unlink(kept.path) == 0 { removed.append(kept) }
            }
            let list = pair.folder.appendingPathComponent(keptName(ExportPartContents.fileName, pair.suffix))
            if unlink(list.path) == 0 { removed.append(list) }
        }
        return removed
    }

    /// Removes the earlier tables of `folder` (their list first) and returns them.
    static func remove(in folder: URL) throws -> [URL] {
        try ExportPartContents.remove(in: folder)
        var removed: [URL] = []
        for table in present(in: folder) where unlink(table.path) == 0 { removed.append(table) }
        return removed
    }
}

/// Names in an export directory, looked at without following links.
enum OutputNames {
    /// Something (a file, link, FIFO, directory) has this name.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Digits only, as RouteLog writes numbers in names (no sign, no leading zero).
    static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) } && (text.count == 1 || text.first != "0")
    }

    /// A symbolic link has this name.
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// A directory has this name (not a link to one).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A regular file has this name (not a link to one).
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Gives the file at `from` the name `to`, which must be free: a hard link then the
    /// old name's removal, so that nothing planted at `to` meanwhile is replaced; where
    /// the file system has no hard links, a rename once `to` is checked free.
    /// - Throws: ``RouteLogError`` `.io` when it cannot (`EEXIST` when `to` is taken).
    static func moveWithoutReplacing(_ from: String, to: String) throws {
        if link(from, to) == 0 {
            guard unlink(from) == 0 else { throw RouteLogError.io("removing the old name", path: from, errno: errno) }
            return
        }
        let failure = errno
        guard failure == EPERM || failure == ENOTSUP || failure == EOPNOTSUPP || failure == EXDEV || failure == EMLINK else {
            throw RouteLogError.io("keeping the earlier table under a new name", path: to, errno: failure)
        }
        guard !exists(to) else { throw RouteLogError.io("keeping the earlier table under a new name", path: to, errno: EEXIST) }
        guard rename(from, to) == 0 else { throw RouteLogError.io("keeping the earlier table under a new name", path: to, errno: errno) }
    }
}
