/// One `routelog` command. To add one: write a type conforming to this in its own
/// file under Commands/, and list it in ``Routelog/commands``.
protocol Command {
    /// Its name, arguments, options and help.
    static var spec: CommandSpec { get }
    /// Does the work on parsed arguments and returns the exit code. Throws
    /// ``CLIError`` or ``RouteLogError``; ``Routelog/run(_:console:)`` prints either
    /// as one line on stderr.
    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode
}

/// A command as the dispatcher lists it: its spec and its entry point.
struct CommandEntry {
    let spec: CommandSpec
    let run: (ParsedArguments, Console) throws -> ExitCode
}

extension Command {
    static var entry: CommandEntry { CommandEntry(spec: spec, run: { try run($0, console: $1) }) }
}
