/// What the parser made of a command's arguments.
struct ParsedArguments: Sendable, Equatable {
    let command: CommandSpec
    /// Positionals in order, checked against the command's count.
    var positionals: [String] = []
    /// Every value given per option name, in order; a flag given maps to [""].
    var options: [String: [String]] = [:]

    /// Whether the option or flag was given.
    func has(_ name: String) -> Bool { options[name] != nil }
    /// The option's value (the last one for a repeatable option), or nil.
    func value(_ name: String) -> String? { options[name]?.last }
    /// Every value of a repeatable option.
    func values(_ name: String) -> [String] { options[name] ?? [] }
}

/// The outcome of parsing: run the command, or show its help.
enum ParseOutcome: Sendable, Equatable {
    case run(ParsedArguments)
    case help(CommandSpec)
}

/// Parses a command's arguments (everything after the command's name) by its spec.
///
/// - `--name VALUE` and `--name=VALUE`; `-o VALUE` and `-oVALUE` for short aliases.
/// - `--` ends the options: everything after it is positional.
/// - `--help` or `-h` anywhere before `--` asks for the command's help.
/// - A value may start with one dash (`--shift -3h`) but not two: `--name --json`
///   means the value was forgotten (write `--name=--json` to mean it).
/// - An option given twice is a usage error unless it is repeatable; a flag given
///   twice is harmless.
///
/// - Throws: ``CLIError`` with exit code 2 naming what is wrong.
enum ArgumentParser {
    static func parse(_ arguments: [String], for command: CommandSpec) throws -> ParseOutcome {
        let beforeTerminator = arguments.prefix { $0 != "--" }
        if beforeTerminator.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help(command) }

        var parsed = ParsedArguments(command: command)
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            let (option, inline) = try lookUp(argument, in: command)
            let value: String
            if option.takesValue {
                if let inline {
                    value = inline
                } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                    value = arguments[index]
                    index += 1
                } else {
                    throw CLIError.usage("\(argument) needs a value (\(option.valueName!))", command)
                }
            } else {
                guard inline == nil else { throw CLIError.usage("--\(option.name) takes no value", command) }
                value = ""
            }
            if parsed.options[option.name] != nil && option.takesValue && !option.repeatable {
                throw CLIError.usage("--\(option.name) is given more than once", command)
            }
            parsed.options[option.name, default: []].append(value)
        }
        try checkCount(parsed.positionals, command)
        return .run(parsed)
    }

    /// The option an argument names, and its inline value if it has one.
    private static func lookUp(_ argument: String, in command: CommandSpec) throws -> (OptionSpec, String?) {
        if argument.hasPrefix("--") {
            let body = argument.dropFirst(2)
            let name = body.prefix { $0 != "=" }
            let inline = name.count < body.count ? String(body.dropFirst(name.count + 1)) : nil
            guard let option = command.option(named: String(name)) else {
                throw CLIError.usage("unknown option --\(name) for \(command.name)", command)
            }
            return (option, inline)
        }
        let letter = argument.dropFirst().first!
        guard let option = command.option(short: letter) else {
            throw CLIError.usage("unknown option \(argument) for \(command.name)", command)
        }
        var rest = argument.dropFirst(2)
        if rest.hasPrefix("=") { rest = rest.dropFirst() }
        return (option, rest.isEmpty ? nil : String(rest))
    }

    private static func checkCount(_ positionals: [String], _ command: CommandSpec) throws {
        let specs = command.positionals
        let repeats = specs.last?.repeats ?? false
        if positionals.count < specs.count {
            throw CLIError.usage("missing \(specs[positionals.count].name)", command)
        }
        if !repeats && positionals.count > specs.count {
            throw CLIError.usage("unexpected argument '\(positionals[specs.count])'", command)
        }
    }
}
