import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How every importer opens a file it is given by path (GPX, TCX, FIT, the format
/// check, the legacy archive): never waiting, and reading nothing but a regular file.
///
/// A FIFO blocks `open` until a writer comes and `read` until it writes; a device can
/// do the same, so an import given one (or a directory holding one) would hang for
/// ever, and opening some devices does something by itself (a tape rewinds, a modem
/// line is raised). So a path that `stat` shows is a FIFO, a socket or a device is
/// refused without being opened; then the file is opened `O_NONBLOCK` and the open
/// descriptor's `fstat` must say it is a regular file before a byte is read, so nothing
/// swapped in between the check and the open can slip through. Unlike the store's own files (``DurableFile``), a
/// symbolic link is followed: import inputs are the user's files, and a link to a
/// regular file imports like the file.
enum ImportInputFile {
    /// What a name is, found with `stat` (a symbolic link followed) and without opening it.
    enum Kind: Equatable {
        case regular, directory
        /// A FIFO, a socket or a device.
        case special
    }

    /// The kind of file at `path`; nil when there is nothing there (or a dangling link).
    static func kind(atPath path: String) -> Kind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        default: return .special
        }
    }

    /// The refusal of a path that is not a regular file.
    static func notRegularFile(_ path: String) -> RouteLogError {
        RouteLogError(.invalidArgument, "This is not a regular file (a FIFO, socket or device) and reading it could "
                          + "wait for ever; give the file itself. Nothing was imported", path: path)
    }

    /// Opens the file at `url` for reading, checked to be a regular file.
    /// - Parameter what: how messages name what was expected ("GPX file").
    /// - Returns: The descriptor (blocking again, close-on-exec; the caller closes it)
    ///   and the file's size.
    /// - Throws: ``RouteLogError`` naming the path: `.notFound` when it cannot be
    ///   opened, `.invalidArgument` for a directory or a FIFO, socket or device.
    static func open(_ url: URL, what: String) throws -> (descriptor: Int32, size: Int64) {
        let path = url.path
        if kind(atPath: path) == .special { throw notRegularFile(path) }
        var descriptor: Int32
        repeat {
            descriptor = openNonBlocking(path)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            // A socket cannot be opened at all (ENXIO); some devices refuse a
            // non-blocking open.
            switch errno {
            case ENXIO, ENODEV, EAGAIN, EOPNOTSUPP: throw notRegularFile(path)
            default: throw RouteLogError(.notFound, "Cannot read the \(what); check the path", path: path)
            }
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            _ = close(descriptor)
            throw RouteLogError.io("fstat", path: path, errno: code)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            _ = close(descriptor)
            throw RouteLogError(.invalidArgument, "This is a directory, not a \(what)", path: path)
        default:
            _ = close(descriptor)
            throw notRegularFile(path)
        }
        // A regular file's reads do not wait anyway; clear the flag so no file system
        // answers EAGAIN.
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return (descriptor, Int64(info.st_size))
    }

    /// Reads up to `count` bytes from the start of the open file at `descriptor`.
    static func readHead(_ descriptor: Int32, count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, count - filled) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            filled += n
        }
        return Data(bytes[0..<filled])
    }
}

private func openNonBlocking(_ path: String) -> Int32 {
    open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
}
