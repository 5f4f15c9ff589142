#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes a new, empty store's files (format-spec.md, "Manifest"), or finishes a
/// creation a crash interrupted: the writer holds the lock, so no other creator is at
/// work. Refuses a directory holding anything but store files, and one whose segments
/// hold records (a store that lost its MANIFEST is restored, not started over).
struct StoreCreation {
    let files: LogFiles

    func create() throws {
        let directory = files.directory
        let fileSystem = files.fileSystem
        let names = try fileSystem.checked("list", directory) { try fileSystem.listDirectory(directory) }
        if let foreign = names.first(where: { !StoreFiles.isStoreFile($0) }) {
            throw RouteLogError(.invalidArgument, "the directory is not a RouteLog store: it holds \"\(foreign)\" and no MANIFEST; choose an empty or new directory", path: directory)
        }
        var movedAside: Set<String> = []
        for name in names where name.hasPrefix(FormatConstants.segmentPrefix) && name.hasSuffix(FormatConstants.segmentSuffix) {
            let path = files.path(name)
            guard let file = try? DurableFile.open(path, flags: O_RDONLY, fileSystem: fileSystem),
                  let size = try? file.size()
            else {
                // Nothing says it holds no routes: kept in lost/, never deleted.
                try LostAndFound(files: files).moveAside(name, reason: "a segment that could not be read, found where a new store was created")
                movedAside.insert(name)
                continue
            }
            if size > Int64(FormatConstants.fileHeaderSize) {
                throw RouteLogError.corrupted("MANIFEST is missing but segments hold routes; restore MANIFEST from a backup rather than start a new store over them", path: path)
            }
        }
        for name in names where name != FormatConstants.lockName && name != LostAndFound.directoryName && !movedAside.contains(name) {
            try fileSystem.checked("unlink", files.path(name)) { try fileSystem.unlink(files.path(name)) }
        }
        let manifest = ManifestWriter.empty
        _ = try files.create(.segment, number: manifest.segments[0])
        _ = try files.create(.index, number: manifest.indexFile)
        try ManifestWriter.write(manifest, files: files, onUncertain: { _ in })
    }
}
