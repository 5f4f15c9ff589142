import Foundation
import Testing

/// Every kind of command-line mistake: exit code 2, one `routelog: ...` line on stderr,
/// nothing on stdout, and the store never opened (the STORE here does not exist).
@Suite struct RoutelogUsageErrorTests {
    static let cases: [([String], String)] = [
        ([], "routelog: no command given: run 'routelog --help'"),
        (["frobnicate"], "routelog: unknown command 'frobnicate': the commands are inspect, ls, weeks, show, dump, verify, set, delete, compact, backup, render"),
        (["help", "frobnicate"], "routelog: unknown command 'frobnicate'"),
        (["--frob"], "routelog: unknown option --frob"),
        (["ls"], "routelog: missing STORE: usage: routelog ls STORE [--from DATE] [--to DATE] [--sort date|distance|duration|name] [--reverse] [--limit N] [--follow] [--units km|mi] [--json]"),
        (["ls", "s.routelog", "extra"], "routelog: unexpected argument 'extra'"),
        (["ls", "s.routelog", "--frmo", "2026-01-01"], "routelog: unknown option --frmo for ls: usage: routelog ls STORE"),
        (["ls", "s.routelog", "--from"], "routelog: --from needs a value (DATE)"),
        (["ls", "s.routelog", "--from", "--json"], "routelog: --from needs a value (DATE)"),
        (["ls", "s.routelog", "--from", "2026-13-01"], "routelog: bad date '2026-13-01' for --from: use ISO 8601, like 2026-11-29 or 2026-11-29T07:30:00Z"),
        (["ls", "s.routelog", "--to=yesterday"], "routelog: bad date 'yesterday' for --to"),
        (["ls", "s.routelog", "--from=2026-02-01", "--to=2026-01-01"], "routelog: --from 2026-02-01 is not before --to 2026-01-01"),
        (["ls", "s.routelog", "--from", "2026-01-01", "--from", "2026-01-02"], "routelog: --from is given more than once"),
        (["ls", "s.routelog", "--units", "ft"], "routelog: bad units 'ft' for --units: use km or mi"),
        (["ls", "s.routelog", "--json=yes"], "routelog: --json takes no value"),
        (["weeks", "s.routelog", "--from", "2026-01-01"], "routelog: unknown option --from for weeks"),
        (["show", "s.routelog"], "routelog: missing ID: usage: routelog show STORE ID"),
        (["show", "s.routelog", "abc"], "routelog: 'abc' is not a route id"),
        (["show", "s.routelog", "0"], "routelog: '0' is not a route id"),
        (["set", "s.routelog", "1"], "routelog: nothing to change: give --start, --shift, --name, --calories or --distance"),
        (["set", "s.routelog", "1", "--shift", "7x"], "routelog: bad duration '7x' for --shift: use a number and a unit"),
        (["set", "s.routelog", "1", "--shift=7"], "routelog: bad duration '7' for --shift"),
        (["set", "s.routelog", "1", "--start", "2026-02-30"], "routelog: bad date '2026-02-30' for --start"),
        (["set", "s.routelog", "1", "--start", "2026-01-01", "--shift", "7d"], "routelog: --start and --shift both move the route: give one of them"),
        (["set", "s.routelog", "1", "--calories", "-5"], "routelog: bad number '-5' for --calories"),
        (["set", "s.routelog", "1", "--distance", "far"], "routelog: bad number 'far' for --distance"),
        (["delete", "s.routelog"], "routelog: missing ID: usage: routelog delete STORE ID..."),
        (["delete", "s.routelog", "1", "x"], "routelog: 'x' is not a route id"),
        (["dump", "s.routelog", "1", "--format", "kml"], "routelog: bad format 'kml' for --format: use csv, json, gpx or geojson"),
        (["render", "s.routelog", "1"], "routelog: missing -o FILE.svg: usage: routelog render STORE ID -o FILE.svg"),
        (["render", "s.routelog", "1", "-o"], "routelog: -o needs a value (FILE.svg)"),
        (["compact", "s.routelog", "--force"], "routelog: unknown option --force for compact"),
        (["verify"], "routelog: missing STORE"),
    ]

    @Test(arguments: cases)
    func usageErrorExitsTwoWithOneLine(_ arguments: [String], _ expected: String) throws {
        let dir = ScratchDirectory()
        let result = try CLI.run(arguments, in: dir.url)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "one line: \(result.stderr)")
        #expect(result.stderr.hasPrefix(expected), "got \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("s.routelog").path), "a usage error touches nothing")
    }

    @Test func helpAndVersion() throws {
        let overview = try CLI.run(["--help"])
        #expect(overview.status == 0)
        for name in ["inspect", "ls", "weeks", "show", "dump", "verify", "set", "delete", "compact", "render"] {
            #expect(overview.stdout.contains("\n  \(name) "), "--help lists \(name)")
        }
        let ls = try CLI.run(["ls", "--help"])
        #expect(ls.status == 0)
        #expect(ls.stdout.hasPrefix("usage: routelog ls STORE [--from DATE] [--to DATE] [--sort date|distance|duration|name] [--reverse] [--limit N] [--follow] [--units km|mi] [--json]\n"))
        #expect(try CLI.run(["help", "set"]).stdout.contains("--shift DURATION"))
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("routelog "))
        #expect(version.stdout.split(separator: " ").count == 2)
    }
}
