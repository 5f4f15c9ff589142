import Foundation
import Testing
@testable import routelog

/// The shared parser, on a spec with every kind of option.
@Suite struct ArgumentParserSyntaxTests {
    static let spec = CommandSpec(
        name: "try", summary: "a command for tests",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "ID", repeats: true)],
        options: [.value("from", "DATE", "from"), .value("output", "FILE", "output", short: "o"),
                  OptionSpec(name: "tag", valueName: "TEXT", help: "tag", repeatable: true),
                  .value("shift", "DURATION", "shift"), .json])

    func parse(_ arguments: [String]) throws -> ParsedArguments {
        guard case .run(let parsed) = try ArgumentParser.parse(arguments, for: Self.spec) else {
            throw CLIError.usage("asked for help")
        }
        return parsed
    }

    /// The usage error the arguments cause, or nil when they parse.
    func usageError(_ arguments: [String]) -> CLIError? {
        do {
            _ = try ArgumentParser.parse(arguments, for: Self.spec)
            return nil
        } catch let error as CLIError {
            return error
        } catch {
            return nil
        }
    }

    @Test func valuesInBothFormsAndFlags() throws {
        let a = try parse(["s", "1", "--from", "2026-01-01", "--json"])
        #expect(a.positionals == ["s", "1"])
        #expect(a.value("from") == "2026-01-01")
        #expect(a.has("json"))
        let b = try parse(["--from=2026-01-01", "s", "1"])
        #expect(b.value("from") == "2026-01-01")
        #expect(b.positionals == ["s", "1"])
        #expect(try parse(["s", "1", "--from="]).value("from") == "", "an empty inline value is a value")
    }

    @Test func shortOptionForms() throws {
        #expect(try parse(["s", "1", "-o", "x.svg"]).value("output") == "x.svg")
        #expect(try parse(["s", "1", "-ox.svg"]).value("output") == "x.svg")
        #expect(try parse(["s", "1", "-o=x.svg"]).value("output") == "x.svg")
    }

    @Test func aValueMayStartWithOneDash() throws {
        #expect(try parse(["s", "1", "--shift", "-3h"]).value("shift") == "-3h")
    }

    @Test func doubleDashEndsTheOptions() throws {
        let a = try parse(["s", "--", "--json", "-o"])
        #expect(a.positionals == ["s", "--json", "-o"])
        #expect(!a.has("json"))
        // --help after -- is an argument, not a request for help.
        #expect(try parse(["s", "--", "--help"]).positionals == ["s", "--help"])
    }

    @Test func helpAnywhereBeforeDoubleDash() throws {
        #expect(try ArgumentParser.parse(["s", "--bogus", "--help"], for: Self.spec) == .help(Self.spec))
        #expect(try ArgumentParser.parse(["-h"], for: Self.spec) == .help(Self.spec))
    }

    @Test func unknownOptions() {
        #expect(usageError(["s", "1", "--frmo", "x"])?.what == "unknown option --frmo for try")
        #expect(usageError(["s", "1", "--frmo=x"])?.what == "unknown option --frmo for try")
        #expect(usageError(["s", "1", "-x"])?.what == "unknown option -x for try")
    }

    @Test func missingValues() {
        #expect(usageError(["s", "1", "--from"])?.what == "--from needs a value (DATE)")
        #expect(usageError(["s", "1", "--from", "--json"])?.what == "--from needs a value (DATE)")
        #expect(usageError(["s", "1", "-o"])?.what == "-o needs a value (FILE)")
        #expect(usageError(["s", "1", "--json=yes"])?.what == "--json takes no value")
    }

    @Test func repeatedOptions() throws {
        #expect(usageError(["s", "1", "--from", "a", "--from", "b"])?.what == "--from is given more than once")
        #expect(usageError(["s", "1", "--from=a", "--from=a"])?.what == "--from is given more than once")
        #expect(try parse(["s", "1", "--tag", "a", "--tag=b"]).values("tag") == ["a", "b"])
        #expect(try parse(["s", "1", "--json", "--json"]).has("json"), "a repeated flag is harmless")
    }

    @Test func positionalCounts() throws {
        #expect(usageError([])?.what == "missing STORE")
        #expect(usageError(["s"])?.what == "missing ID")
        #expect(try parse(["s", "1", "2", "3"]).positionals == ["s", "1", "2", "3"])
        let single = CommandSpec(name: "one", summary: "", positionals: [PositionalSpec(name: "STORE")], options: [])
        #expect(throws: CLIError.usage("unexpected argument 'extra'", single)) {
            try ArgumentParser.parse(["s", "extra"], for: single)
        }
    }

    @Test func usageErrorsAreOneLineWithTheUsage() {
        let error = usageError(["s", "1", "--frmo"])!
        #expect(error.exitCode == .usage)
        #expect(error.line == "routelog: unknown option --frmo for try: usage: " + Self.spec.synopsis)
        #expect(!error.line.contains("\n"))
        #expect(Self.spec.synopsis == "routelog try STORE ID... [--from DATE] [-o FILE] [--tag TEXT] [--shift DURATION] [--json]")
    }

    @Test func typedValuesReportTheExpectedForm() throws {
        let bad = try parse(["s", "x", "--from", "2026-02-30", "--shift", "7x"])
        #expect(throws: CLIError.self) { try bad.date("from") }
        do {
            _ = try bad.duration("shift")
        } catch let error as CLIError {
            #expect(error.exitCode == .usage)
            #expect(error.line.hasPrefix("routelog: bad duration '7x' for --shift: use a number and a unit"))
        }
        do {
            _ = try bad.routeIDs(from: 1)
        } catch let error as CLIError {
            #expect(error.what == "'x' is not a route id")
        }
    }
}
