import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs `routelog` as a grandchild, through a small Python process that forks it and
/// reaps it with wait4, and reads that process's peak resident memory (ru_maxrss) as
/// the kernel measured it.
///
/// Why a grandchild: Linux records, at exec, the resident high-water mark of the
/// memory the process had before (`signal->maxrss`), and a child spawned by this test
/// process (posix_spawn is a vfork) had the test process's memory, so a direct child's
/// ru_maxrss (or getrusage(RUSAGE_CHILDREN)) is never below the test runner's own size.
/// A child forked by the small Python process starts from Python's 10 MB instead.
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

    /// The Python that forks and measures, or nil (the memory tests are then skipped).
    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in ["/usr/bin"] + path.split(separator: ":").map(String.init) {
            let candidate = directory + "/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        print("note: python3 is missing: RoutelogHostileInputMemoryTests cannot measure routelog's own peak memory and are skipped")
        return nil
    }()

    /// Forks argv[2...], waits for it with wait4, writes its ru_maxrss (KiB) to argv[1]
    /// and exits with its status.
    static let forkAndMeasure = """
        import os, sys
        pid = os.fork()
        if pid == 0:
            try:
                os.execv(sys.argv[2], sys.argv[2:])
            finally:
                os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        with open(sys.argv[1], "w") as f:
            f.write(str(usage.ru_maxrss))
        sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        """

    static func run(_ arguments: [String], scratch: URL) throws -> Outcome {
        let python = try #require(python)
        let tag = UUID().uuidString
        let out = scratch.appendingPathComponent("measured-\(tag).out"), err = scratch.appendingPathComponent("measured-\(tag).err")
        let peak = scratch.appendingPathComponent("measured-\(tag).peak")
        defer { [out, err, peak].forEach { try? FileManager.default.removeItem(at: $0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([python, "-c", forkAndMeasure, peak.path, executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environment = ProcessInfo.processInfo.environment.merging(["TZ": "UTC"]) { $1 }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let started = Date()
        let spawned = posix_spawn(&pid, python, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSDebugDescriptionErrorKey: "posix_spawn \(python): \(spawned)"])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw CocoaError(.fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey: "waitpid: \(errno)"]) }
        }
        let seconds = Date().timeIntervalSince(started)
        // WIFEXITED / WEXITSTATUS, spelled out (the macros do not import).
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let kibibytes = try #require(Int(String(decoding: try Data(contentsOf: peak), as: UTF8.self)))
        return Outcome(status: exitStatus,
                       stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                       stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self),
                       peakBytes: kibibytes * 1024, seconds: seconds)
    }
}
