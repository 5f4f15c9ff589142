import CSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension MachineInfo {
    static func current(dataDirectory: URL) -> MachineInfo {
        let names = posixUname() ?? utsname()
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let unameText = [field(names.sysname), field(names.nodename), field(names.release), field(names.version),
                         field(names.machine)].joined(separator: " ")
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let cpu = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
        let formatter = ISO8601DateFormatter()
        return MachineInfo(
            date: formatter.string(from: Date()), host: ProcessInfo.processInfo.hostName, uname: unameText,
            processors: ProcessInfo.processInfo.activeProcessorCount, memoryBytes: ProcessInfo.processInfo.physicalMemory,
            cpu: cpu, sqliteVersion: String(cString: sqlite3_libversion()),
            dataDirectory: dataDirectory.standardizedFileURL.path, fileSystem: fileSystem(of: dataDirectory),
            loadAtStart: loadAverage(), loadAtEnd: nil, paceAtStart: ProcessorPace.describe(), paceAtEnd: nil)
    }

    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// The type and device of the mount holding `url`, from /proc/mounts.
    static func fileSystem(of url: URL) -> String {
        let path = url.resolvingSymlinksInPath().standardizedFileURL.path
        let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
        var best: (point: String, text: String) = ("", "unknown file system")
        for line in mounts.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count >= 3 else { continue }
            let point = String(parts[1])
            let matches = point == "/" || path == point || path.hasPrefix(point + "/")
            if matches, point.count >= best.point.count { best = (point, "\(parts[2]) on \(parts[0])") }
        }
        return best.text
    }
}
