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

    /// The names of the earlier tables in `folder` that exist (any kind of file at them).
    static func present(in folder: ExportFolder) -> [String] {
        tableNames.filter { folder.exists($0) }
    }

    /// Whether the earlier tables in `folder` may hold a route of `unreadable`: their
    /// list of routes (``ExportPartContents``) names one, or there is no list.
    static func mayHold(_ unreadable: Set<RouteID>, in folder: ExportFolder) -> Bool {
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
    static func keep(in folder: ExportFolder) throws -> [URL] {
        let tables = present(in: folder)
        guard !tables.isEmpty else { return [] }
        var suffix = ".previous", n = 2
        while (tableNames + [ExportPartContents.fileName]).contains(where: { folder.exists(keptName($0, suffix)) }) {
            suffix = ".previous.\(n)"
            n += 1
        }
        let list = ExportPartContents.fileName
        if folder.kind(of: list) == .regular {
            try folder.moveWithoutReplacing(list, to: keptName(list, suffix))
        } else {
            try ExportPartContents.remove(in: folder)
        }
        var kept: [URL] = []
        for table in tables {
            let target = keptName(table, suffix)
            try folder.moveWithoutReplacing(table, to: target)
            kept.append(folder.url(target))
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
        let folder: ExportFolder
        let suffix: String
    }

    /// The kept pairs in `folders` whose kept list names only routes this export wrote
    /// (readable again), the same routes of the same store by the list's digest of ids
    /// and uuids: with their list, they hold nothing the new tables lack. A pair kept
    /// without a list, or with a list without a digest, is not one of them.
    static func releasable(in folders: [ExportFolder], exported: [RouteID: UUID]) -> [KeptPair] {
        var pairs: [KeptPair] = []
        let listPrefix = ExportPartContents.fileName + ".previous"
        for folder in folders {
            defer { folder.release() }
            for name in folder.names().sorted() where name.hasPrefix(listPrefix) {
                let suffix = String(name.dropFirst(ExportPartContents.fileName.count))
                guard suffix == ".previous" || (suffix.hasPrefix(".previous.") && OutputNames.isNumber(suffix.dropFirst(10))),
                      let held = ExportPartContents.read(folder, name),
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
            defer { pair.folder.release() }
            for table in tableNames {
                let kept = keptName(table, pair.suffix)
                if pair.folder.kind(of: kept) == .regular, (try? pair.folder.unlink(kept)) != nil { removed.append(pair.folder.url(kept)) }
            }
            let list = keptName(ExportPartContents.fileName, pair.suffix)
            if (try? pair.folder.unlink(list)) != nil { removed.append(pair.folder.url(list)) }
        }
        return removed
    }

    /// Removes the earlier tables of `folder` (their list first) and returns them.
    static func remove(in folder: ExportFolder) throws -> [URL] {
        try ExportPartContents.remove(in: folder)
        var removed: [URL] = []
        for table in present(in: folder) where (try? folder.unlink(table)) != nil { removed.append(folder.url(table)) }
        return removed
    }
}

/// Names as RouteLog writes them, and a look at a path for callers outside an export
/// (an export looks at its names through ``ExportFolder``).
enum OutputNames {
    /// Digits only, as RouteLog writes numbers in names (no sign, no leading zero).
    static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) } && (text.count == 1 || text.first != "0")
    }

    /// A regular file has this name (not a link to one).
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
