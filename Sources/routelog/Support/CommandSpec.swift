import Foundation

/// One option of a command: `--name VALUE`, `--name=VALUE`, or a flag `--name`.
struct OptionSpec: Sendable, Equatable {
    /// The long name without dashes: "from".
    var name: String
    /// A one-letter alias used as `-o FILE`, if any.
    var short: Character?
    /// The value's placeholder ("DATE") for options that take one; nil for flags.
    var valueName: String?
    /// One line for `--help`.
    var help: String
    /// Whether it may be given more than once (otherwise a second one is a usage error).
    var repeatable = false

    var takesValue: Bool { valueName != nil }

    /// `--from DATE`, or `-o FILE` when there is a short alias.
    var synopsis: String {
        let flag = short.map { "-\($0)" } ?? "--\(name)"
        return valueName.map { "\(flag) \($0)" } ?? flag
    }

    /// A flag: `--json`.
    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help)
    }

    /// An option with a value: `--from DATE`.
    static func value(_ name: String, _ valueName: String, _ help: String, short: Character? = nil) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: valueName, help: help)
    }

    static let json = flag("json", "print JSON (fields documented in the README) instead of a table")
    static let units = value("units", "km|mi", "show distances in kilometres (default) or miles")
}

/// A positional argument: STORE, ID, or ID... (one or more).
struct PositionalSpec: Sendable, Equatable {
    var name: String
    /// Takes every remaining argument (at least one).
    var repeats = false
}

/// Everything the parser and `--help` need to know about a command.
struct CommandSpec: Sendable, Equatable {
    /// The word after `routelog`.
    var name: String
    /// One line for `routelog --help`.
    var summary: String
    var positionals: [PositionalSpec]
    var options: [OptionSpec]
    /// More lines for `routelog COMMAND --help`.
    var discussion: String = ""
    /// The options part of the usage line, when the generated one says too little
    /// (say, that two options exclude each other).
    var optionsSynopsis: String?

    /// `routelog ls STORE [--from DATE] [--to DATE] [--json]`
    var synopsis: String {
        let positionalPart = positionals.map { $0.repeats ? "\($0.name)..." : $0.name }
        let optionPart = optionsSynopsis ?? options.map { "[\($0.synopsis)]" }.joined(separator: " ")
        return (["routelog", name] + positionalPart + (optionPart.isEmpty ? [] : [optionPart])).joined(separator: " ")
    }

    func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }
    func option(short: Character) -> OptionSpec? { options.first { $0.short == short } }

    /// The text `routelog COMMAND --help` prints.
    var help: String {
        var text = "usage: \(synopsis)\n\n\(summary)\n"
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        if !options.isEmpty {
            text += "\noptions:\n"
            let labels = options.map { option -> String in
                let long = "--\(option.name)" + (option.valueName.map { " \($0)" } ?? "")
                return option.short.map { "-\($0), \(long)" } ?? long
            }
            let width = labels.map(\.count).max() ?? 0
            for (label, option) in zip(labels, options) {
                text += "  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + option.help + "\n"
            }
        }
        return text
    }
}
