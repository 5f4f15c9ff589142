import RouteLog

/// The process's exit status: the numbers are part of the CLI's interface.
enum ExitCode: Int32, Sendable {
    /// Done.
    case success = 0
    /// The command failed, or `verify` found damage.
    case failure = 1
    /// The command line was wrong; nothing was done.
    case usage = 2
    /// Another process holds the store for writing; nothing was changed.
    case locked = 3
}

/// An error the CLI reports as one line on stderr:
/// `routelog: what went wrong (path): what to do`.
struct CLIError: Error, Equatable, Sendable {
    var exitCode: ExitCode
    /// What went wrong.
    var what: String
    /// The file or store involved, if any.
    var path: String?
    /// What to do about it.
    var todo: String

    init(exitCode: ExitCode, what: String, path: String?, todo: String) {
        self.exitCode = exitCode
        self.what = what
        self.path = path
        self.todo = todo
    }

    /// The line printed on stderr (without its newline).
    var line: String {
        "routelog: \(TerminalText.quoted(what))" + (path.map { " (\(TerminalText.quoted($0)))" } ?? "")
            + ": \(TerminalText.quoted(todo))"
    }

    /// A usage error (exit 2). Without `todo`, the advice is the command's usage line,
    /// or a pointer to `routelog --help` when there is no command yet.
    static func usage(_ what: String, _ command: CommandSpec? = nil, todo: String? = nil) -> CLIError {
        let advice = todo ?? command.map { "usage: \($0.synopsis)" } ?? "run 'routelog --help' to see the commands"
        return CLIError(exitCode: .usage, what: what, path: nil, todo: advice)
    }

    /// A failure (exit 1).
    static func failure(_ what: String, path: String? = nil, todo: String) -> CLIError {
        CLIError(exitCode: .failure, what: what, path: path, todo: todo)
    }

    /// The CLI's wording of a library error: the library's message split into what
    /// went wrong and what to do, with advice that names CLI commands.
    init(_ error: RouteLogError) {
        var what = error.message
        var todo: String?
        if let split = what.range(of: "; ") {
            todo = String(what[split.upperBound...])
            what = String(what[..<split.lowerBound])
        }
        var path = error.path
        if let offset = error.offset, let p = path { path = "\(p) at offset \(offset)" }
        exitCode = .failure
        switch error.code {
        case .locked:
            exitCode = .locked
            what = "the store is open for writing by process \(error.pid.map(String.init) ?? "unknown")"
            todo = "quit that app (or wait for it to close the store) and try again; read-only commands such as ls and inspect work meanwhile"
        case .notFound where what.hasPrefix("no route with id"):
            todo = "run 'routelog ls STORE' to list the ids"
        case .notFound where what.hasPrefix("there is no RouteLog store here"):
            what = "there is no RouteLog store here"
            todo = "check the path: a store is a directory holding a MANIFEST"
        case .notFound where what.hasPrefix("the store's directory was deleted or moved away"):
            todo = "run the command again where the store is now"
        case .notFound:
            // A missing file, a recording: the library's own words name it.
            todo = todo ?? "check the path"
        case .invalidArgument where what.hasPrefix("this is a file"):
            todo = "pass the store's directory"
        case .invalidArgument:
            todo = todo ?? "check the values given"
        case .corrupted where what.hasPrefix("the store's MANIFEST is damaged"):
            // Nothing opens the store, verify included: the way back is a backup.
            todo = "restore the store from a backup (one 'routelog backup' made), then run 'routelog verify' on it"
        case .corrupted:
            todo = "run 'routelog verify STORE' to see all the damage; every other route stays readable"
        case .unsupportedVersion:
            todo = todo ?? "use a newer routelog"
        case .io:
            todo = todo ?? "check the disk and the permissions, then try again"
        case .closed, .fellBehind:
            todo = todo ?? "run the command again"
        }
        self.what = what
        self.path = path
        self.todo = todo ?? "try again"
    }
}
