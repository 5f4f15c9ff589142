import Foundation

/// `routelog completions bash|zsh|fish`: the shell's completion script on stdout.
enum CompletionsCommand: Command {
    static let spec = CommandSpec(
        name: "completions",
        summary: "print the completion script for bash, zsh or fish",
        positionals: [PositionalSpec(name: "SHELL")],
        options: [],
        discussion: """
        SHELL is bash, zsh or fish. 'make install' puts all three where the shells look;
        to try one at once: source <(routelog completions bash).
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let name = arguments.positionals[0]
        guard let shell = Completions.Shell(rawValue: name) else {
            throw CLIError.usage("unknown shell '\(name)'", spec, todo: "use bash, zsh or fish")
        }
        console.writeOut(Completions.script(for: shell))
        return .success
    }
}
