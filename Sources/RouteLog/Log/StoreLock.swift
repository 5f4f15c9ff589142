import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The writer's hold on a store: an exclusive lock on `LOCK` that lives as long as
/// this object, with the holder's pid written in the file for others to read.
final class StoreLock: Sendable {
    let file: DurableFile

    private init(file: DurableFile) { self.file = file }

    static func path(in directory: String) -> String { directory + "/" + FormatConstants.lockName }

    /// Takes the lock or throws ``RouteLogError/Code/locked`` naming the holder's pid.
    static func acquire(in directory: String, fileSystem: any FileSystem,
                        protection: RouteStore.FileProtection = .completeUntilFirstUserAuthentication) throws -> StoreLock {
        let path = path(in: directory)
        let file = try DurableFile.open(path, flags: O_RDWR | O_CREAT, fileSystem: fileSystem)
        try protection.apply(toDescriptor: file.ref.fd, path: path)
        do {
            // EINTR is retried, as by every caller above the FileSystem layer.
            while true {
                do { try fileSystem.lockExclusive(file.ref); break } catch let error as Errno where error.code == EINTR { continue }
            }
        } catch let error as Errno where error.code == EAGAIN || error.code == EWOULDBLOCK || error.code == EACCES {
            let pid = readPID(file)
            throw RouteLogError(.locked,
                                "the store is open for writing by process \(pid.map(String.init) ?? "unknown"); close it there first, or open this one read-only",
                                path: directory, pid: pid)
        } catch let error as Errno {
            throw RouteLogError.io("lock", path: path, errno: error.code)
        }
        let text = Array("\(getpid())\n".utf8)
        try file.truncate(to: 0)
        try file.write(text, at: 0)
        return StoreLock(file: file)
    }

    /// Lets the lock go (closing the file would too).
    func release() {
        try? file.truncate(to: 0)
        file.fileSystem.unlock(file.ref)
    }

    /// The pid of the process holding the store for writing, or nil when none does.
    static func holder(in directory: String, fileSystem: any FileSystem) -> Int32? {
        guard let file = try? DurableFile.open(path(in: directory), flags: O_RDONLY, fileSystem: fileSystem),
              (try? fileSystem.isLockHeld(file.ref)) == true
        else { return nil }
        return readPID(file) ?? -1
    }

    private static func readPID(_ file: DurableFile) -> Int32? {
        guard let bytes = try? file.read(at: 0, count: 32) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Int32(text)
    }
}
