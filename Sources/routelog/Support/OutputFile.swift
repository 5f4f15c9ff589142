import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes a file it was asked for (`render -o`, each file of `export`):
/// a new regular file, or an existing regular file replaced whole (a temporary file
/// beside it, renamed over it, so a reader never sees half of it). A symbolic link, a
/// FIFO, a device or a socket at the path is refused: never followed, never written
/// into, never replaced (a `render -o /dev/...` once replaced the device node with a
/// regular file). To write into a pipe or a device, ask for stdout (`-o -`) and redirect.
enum OutputFile {
    /// Writes `bytes` to `path` as described above.
    ///
    /// - Throws: ``CLIError`` naming the path: for a path that is not a regular file,
    ///   what it is and what to do; for a write that fails, `what` and the reason.
    static func write(_ bytes: Data, to path: String, what: String) throws {
        if let kind = nonRegularKind(path) {
            throw CLIError.failure("the output path is \(kind); routelog does not follow, write into or replace it",
                                   path: path, todo: "give the path of a regular file, or write to stdout with '-o -' and redirect it")
        }
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).routelog-tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(what, path, errno) }
        var failed: Int32 = 0
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = writeDescriptor(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { failed = n < 0 ? errno : EIO; return }
                done += n
            }
        }
        if failed == 0 && fsync(fd) != 0 { failed = errno }
        _ = close(fd)
        // Checked again just before the rename, which replaces a link or node rather
        // than following it: refuse rather than replace one planted meanwhile.
        if failed == 0, nonRegularKind(path) != nil { failed = EEXIST }
        if failed == 0 && rename(temporary, path) != 0 { failed = errno }
        if failed != 0 {
            unlink(temporary)
            throw failure(what, path, failed)
        }
    }

    /// What `path` is when it exists and is not a regular file ("a FIFO"), else nil.
    static func nonRegularKind(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a directory"
        default: return "not a regular file"
        }
    }

    private static func failure(_ what: String, _ path: String, _ code: Int32) -> CLIError {
        CLIError.failure("cannot write \(what)", path: path,
                         todo: code == ENOSPC || code == EDQUOT ? "free some disk space and try again"
                             : "check that the directory exists and is writable")
    }
}

// At file scope, where `write` is the C function on Linux and Apple platforms alike.
private func writeDescriptor(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }
