#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a backup goes: a directory that is missing (it is made), empty, or holds
/// only a store's files (an earlier backup, kept incrementally). Never a symbolic
/// link, a file, the store itself, or a directory with anything else in it.
struct BackupDestination {
    let path: String
    let fileSystem: any FileSystem

    /// Checks the destination and makes it when missing.
    /// - Throws: `.invalidArgument` naming what is in the way; `.io`.
    static func prepare(_ path: String, source: String, fileSystem: any FileSystem) throws -> BackupDestination {
        if fileSystem.isSymbolicLink(path) == true {
            throw RouteLogError(.invalidArgument, "the backup destination is a symbolic link; give the directory it points to, or a new path", path: path)
        }
        switch fileSystem.isDirectory(path) {
        case nil:
            try fileSystem.checked("mkdir", path) { try fileSystem.makeDirectory(path) }
        case false?:
            throw RouteLogError(.invalidArgument, "the backup destination is a file, not a directory; give a new path or a directory", path: path)
        case true?:
            if Self.sameFile(path, source) {
                throw RouteLogError(.invalidArgument, "the backup destination is the store itself", path: path)
            }
            let names = try fileSystem.checked("list", path) { try fileSystem.listDirectory(path) }
            if let stranger = names.first(where: { !StoreFiles.isStoreFile($0) }) {
                throw RouteLogError(.invalidArgument, "the backup destination holds '\(stranger)', which is no store file; give an empty directory, a new path or an earlier backup", path: path)
            }
        }
        return BackupDestination(path: path, fileSystem: fileSystem)
    }

    private static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    var files: LogFiles { LogFiles(directory: path, fileSystem: fileSystem) }

    /// The manifest an earlier backup left, if any.
    func earlierManifest() -> Manifest? {
        guard let file = try? files.open(.manifest, number: 0, writable: false, name: FormatConstants.manifestName),
              let size = try? file.size(), size < 1 << 20,
              let bytes = try? file.read(at: 0, count: Int(size)) else { return nil }
        return try? Manifest.decode(bytes, path: files.path(FormatConstants.manifestName))
    }
}
