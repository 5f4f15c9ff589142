import Foundation

/// What the operating system says about this process and the files it made.
enum ProcessStats {
    /// Peak resident set size so far in bytes (VmHWM on Linux, ru_maxrss elsewhere).
    static func peakResidentBytes() -> Int64 {
        #if os(Linux)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                let kb = line.split(separator: " ").compactMap { Int64($0) }.first ?? 0
                return kb * 1024
            }
        }
        #endif
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #if os(Linux)
        return Int64(usage.ru_maxrss) * 1024
        #else
        return Int64(usage.ru_maxrss)
        #endif
    }

    /// Page faults the process has taken that needed no disk read (ru_minflt): on a
    /// warm page cache, each is a page of memory the system handed the process afresh,
    /// zeroed, at the cost of a trap. Counted, not timed, so the same on a busy machine.
    static func minorFaults() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_minflt)
    }

    /// Resident set size now, in bytes (VmRSS); nil where /proc is missing.
    static func residentBytes() -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (line.split(separator: " ").compactMap { Int64($0) }.first ?? 0) * 1024
        }
        return nil
    }

    /// Sum of the apparent sizes of every regular file under `url` (or of `url` itself).
    static func diskBytes(at url: URL) -> Int64 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return 0 }
        if !isDirectory.boolValue { return fileSize(url.path) }
        var total: Int64 = 0
        if let names = try? FileManager.default.subpathsOfDirectory(atPath: url.path) {
            for name in names { total += fileSize(url.appendingPathComponent(name).path) }
        }
        return total
    }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
        return Int64(info.st_size)
    }
}
