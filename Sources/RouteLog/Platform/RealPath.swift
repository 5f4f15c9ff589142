#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A path with every symbolic link, `.` and `..` resolved as the kernel would resolve
/// them, for a path that may not exist yet: realpath(3) of its deepest part that exists,
/// then the missing rest (which cannot hold a link) appended. Comparing two such paths
/// says whether one place is inside another, whatever links or `..` lead there.
enum RealPath {
    /// `path` resolved (relative to the working directory when not absolute); nil when
    /// an existing part cannot be resolved: a link that leads to itself or to nothing,
    /// a file where a directory should be, a folder that may not be searched.
    static func resolve(_ path: String) -> String? {
        try? resolving(path).get()
    }

    /// Why a path could not be resolved: the errno of the call that refused it.
    struct Failure: Error {
        let errno: Int32
    }

    /// ``resolve(_:)``, with the errno of the failing lstat(2) or realpath(3) when an
    /// existing part cannot be resolved (ENAMETOOLONG, EACCES, ELOOP, ENOTDIR, ENOENT
    /// for a link that leads to nothing).
    static func resolving(_ path: String) -> Result<String, Failure> {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts = absolute.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var missing: [String] = []
        while true {
            let prefix = "/" + parts.joined(separator: "/")
            var info = stat()
            if lstat(prefix, &info) == 0 {
                guard let resolved = realpath(prefix, nil) else { return .failure(Failure(errno: errno)) }
                defer { free(resolved) }
                return .success(appending(missing, to: String(cString: resolved)))
            }
            // Only a part that is really not there may be taken as missing.
            let error = errno
            guard error == ENOENT, let last = parts.popLast() else { return .failure(Failure(errno: error)) }
            missing.insert(last, at: 0)
        }
    }

    /// Whether `path` is `directory` or lies inside it (both resolved paths).
    static func isWithin(_ path: String, _ directory: String) -> Bool {
        path == directory || path.hasPrefix(directory == "/" ? "/" : directory + "/")
    }

    /// `base` followed by `parts`, which do not exist: `.` and `..` taken by name.
    private static func appending(_ parts: [String], to base: String) -> String {
        var result = base.split(separator: "/").map(String.init)
        for part in parts {
            switch part {
            case ".": continue
            case "..": _ = result.popLast()
            default: result.append(part)
            }
        }
        return "/" + result.joined(separator: "/")
    }
}
