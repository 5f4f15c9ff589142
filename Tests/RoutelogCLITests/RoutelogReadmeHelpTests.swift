import Foundation
import Testing

/// The README's command reference is `routelog --help` and `routelog help COMMAND` for
/// every command, word for word. `ROUTELOG_UPDATE_GOLDEN=1 swift test --filter
/// RoutelogReadmeHelpTests` rewrites the section from the built binary.
@Suite struct RoutelogReadmeHelpTests {
    static let readme = CLI.packageRoot.appendingPathComponent("README.md")
    static let begin = "<!-- routelog help: generated from the binary; ROUTELOG_UPDATE_GOLDEN=1 swift test --filter RoutelogReadmeHelpTests rewrites it -->"
    static let end = "<!-- end of routelog help -->"

    /// The command names `routelog --help` lists.
    static func commandNames(_ overview: String) -> [String] {
        guard let list = overview.components(separatedBy: "\ncommands:\n").last else { return [] }
        return list.split(separator: "\n").prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// The section as the binary's help makes it.
    static func expectedSection() throws -> String {
        let overview = try CLI.run(["--help"]).stdout
        var text = begin + "\n\n```\n$ routelog --help\n" + overview + "```\n"
        for name in commandNames(overview) {
            let help = try CLI.run(["help", name])
            text += "\n#### `routelog \(name)`\n\n```\n" + help.stdout + "```\n"
        }
        return text + "\n" + end
    }

    @Test func theReadmeCommandReferenceIsTheHelpText() throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let expected = try Self.expectedSection()
        #expect(Self.commandNames(try CLI.run(["--help"]).stdout).count >= 15, "the overview lists the commands")
        guard let start = readme.range(of: Self.begin), let stop = readme.range(of: Self.end, range: start.upperBound..<readme.endIndex) else {
            Issue.record("README.md has no command reference between the markers")
            return
        }
        let current = String(readme[start.lowerBound..<stop.upperBound])
        if ProcessInfo.processInfo.environment["ROUTELOG_UPDATE_GOLDEN"] == "1" {
            try Data(readme.replacingCharacters(in: start.lowerBound..<stop.upperBound, with: expected).utf8).write(to: Self.readme)
            return
        }
        if current != expected {
            let mismatch = zip(current.split(separator: "\n", omittingEmptySubsequences: false),
                               expected.split(separator: "\n", omittingEmptySubsequences: false))
                .first { $0.0 != $0.1 }
            Issue.record("the README's command reference differs from routelog's help: README says \(mismatch?.0 ?? "less"), help says \(mismatch?.1 ?? "more")")
        }
    }
}
