import Foundation
import RouteLog

/// The `routelog` command line: finds the command, parses its arguments, runs it, and
/// turns every error into one line on stderr and an exit code.
enum Routelog {
    /// Every command, in the order `routelog --help` lists them.
    static var commands: [CommandEntry] { [
        InspectCommand.entry, ListCommand.entry, WeeksCommand.entry, ShowCommand.entry, DumpCommand.entry,
        VerifyCommand.entry, SetCommand.entry, DeleteCommand.entry, CompactCommand.entry, BackupCommand.entry, RenderCommand.entry,
        ChartCommand.entry, ImportCommand.entry, ExportCommand.entry, MigrateCommand.entry, SettingsCommand.entry,
        CompletionsCommand.entry,
    ] }

    /// Runs `routelog` with `arguments` (without the program name); returns the exit code.
    static func run(_ arguments: [String], console: Console) -> Int32 {
        do {
            return try dispatch(arguments, console: console).rawValue
        } catch let error as CLIError {
            console.report(error)
            return error.exitCode.rawValue
        } catch let error as RouteLogError {
            let cliError = CLIError(error)
            console.report(cliError)
            return cliError.exitCode.rawValue
        } catch {
            console.report(.failure("\(error)", todo: "this is unexpected; please report it"))
            return ExitCode.failure.rawValue
        }
    }

    private static func dispatch(_ arguments: [String], console: Console) throws -> ExitCode {
        guard let first = arguments.first else {
            throw CLIError.usage("no command given")
        }
        switch first {
        case "--help", "-h", "help":
            if first == "help", arguments.count > 1 {
                console.writeOut(try command(named: arguments[1]).spec.help)
            } else {
                console.writeOut(overview)
            }
            return .success
        case "--version":
            console.print("routelog \(RoutelogVersion.current)")
            return .success
        case "--man":
            console.writeOut(ManPage.render())
            return .success
        case _ where first.hasPrefix("-"):
            throw CLIError.usage("unknown option \(first)")
        default:
            let command = try command(named: first)
            switch try ArgumentParser.parse(Array(arguments.dropFirst()), for: command.spec) {
            case .help(let spec):
                console.writeOut(spec.help)
                return .success
            case .run(let parsed):
                return try command.run(parsed, console)
            }
        }
    }

    static func command(named name: String) throws -> CommandEntry {
        guard let command = commands.first(where: { $0.spec.name == name }) else {
            throw CLIError.usage("unknown command '\(name)'", todo: "the commands are " +
                                 commands.map(\.spec.name).joined(separator: ", ") + "; run 'routelog --help'")
        }
        return command
    }

    /// What `routelog --help` prints.
    static var overview: String {
        let width = commands.map(\.spec.name.count).max() ?? 0
        let list = commands.map { "  " + $0.spec.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.spec.summary }
        return """
        routelog \(RoutelogVersion.current): look inside a RouteLog store, edit it safely, picture a route.

        usage: routelog COMMAND STORE [ARGUMENTS] [OPTIONS]
               routelog COMMAND --help | --help | --version | --man

        commands:
        \(list.joined(separator: "\n"))

        STORE is a store's directory (by convention *.routelog).
        DATE is ISO 8601: 2026-11-29 (local midnight) or 2026-11-29T07:30:00Z.
        DURATION is a number and a unit (w, d, h, m, s): 7d, -3h, 90m, 45s, 1d12h.
        Read-only commands work while an app writes the store; commands that change it
        refuse while another process holds it.
        Exit codes: 0 done, 1 failure or damage found, 2 usage error, 3 the store is held
        by another writer process.

        """
    }
}
