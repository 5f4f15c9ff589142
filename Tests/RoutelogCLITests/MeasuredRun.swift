import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `routelog` as a child of its own (posix_spawn) and reaps it with wait4, which
/// gives that child's resource usage alone: its peak resident memory is measured by
/// the kernel, not estimated, and no other process of the test run can blur it (as
/// getrusage(RUSAGE_CHILDREN) would, summing every child reaped so far).
enum MeasuredRun {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The child's peak resident set size (ru_maxrss), in bytes.
        var peakBytes: Int
        /// Wall-clock seconds, for the log only: tests never assert on time.
        var seconds: Double
        var peakMiB: Double { Double(peakBytes) / 1_048_576 }
    }

    /// The executable measured: the built `routelog`, or another one named by
    /// ROUTELOG_HOSTILE_EXECUTABLE (to measure an older build with the same inputs).
    static var executable: String {
        ProcessInfo.processInfo.environment["ROUTELOG_HOSTILE_EXECUTABLE"] ?? CLI.executable.path
    }

    static func run(_ arguments: [String], scratch: URL) throws -> Outcome {
        let out = scratch.appendingPathComponent("measured-\(UUID().uuidString).out")
        let err = scratch.appendingPathComponent("measured-\(UUID().uuidString).err")
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environment = ProcessInfo.processInfo.environment.merging(["TZ": "UTC"]) { $1 }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let started = Date()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSDebugDescriptionErrorKey: "posix_spawn \(executable): \(spawned)"])
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw CocoaError(.fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey: "wait4: \(errno)"]) }
        }
        let seconds = Date().timeIntervalSince(started)
        // WIFEXITED / WEXITSTATUS, spelled out (the macros do not import).
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Outcome(status: exitStatus,
                       stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                       stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self),
                       peakBytes: Int(usage.ru_maxrss) * 1024, seconds: seconds)
    }
}
