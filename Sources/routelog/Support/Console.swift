import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command's output goes: stdout for results, stderr for errors and progress.
/// Tests can capture both by giving their own sinks.
struct Console: Sendable {
    var writeOut: @Sendable (String) -> Void
    var writeError: @Sendable (String) -> Void
    /// Progress is drawn only on a terminal, never into a file or a pipe.
    var errorIsTerminal: Bool

    /// The process's stdout and stderr.
    static var standard: Console {
        Console(writeOut: { FileHandle.standardOutput.write(Data($0.utf8)) },
                writeError: { FileHandle.standardError.write(Data($0.utf8)) },
                errorIsTerminal: isatty(STDERR_FILENO) == 1)
    }

    /// Prints text and a newline on stdout.
    func print(_ text: String = "") { writeOut(text + "\n") }

    /// Prints lines on stdout in one write.
    func print(lines: [String]) {
        guard !lines.isEmpty else { return }
        writeOut(lines.joined(separator: "\n") + "\n")
    }

    /// Prints a notice that is no error (why the command waits) as one line on stderr.
    func note(_ text: String) { writeError("routelog: \(text)\n") }

    /// Prints an error as its one line on stderr.
    func report(_ error: CLIError) { writeError(error.line + "\n") }
}
