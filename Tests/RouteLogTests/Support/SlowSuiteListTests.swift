import Foundation
import Testing

/// `make test-fast` skips the suites the Makefile's SLOW_SUITES names, by name (a
/// `swift test --skip` regex). This keeps that list and the `.slow` tags the same: a
/// suite tagged slow but not listed would slow the fast run down, and a listed suite
/// that is not tagged (or no longer exists) would be skipped for nothing.
@Suite struct SlowSuiteListTests {
    static let root = Fixtures.packageRoot

    /// The names SLOW_SUITES holds in the Makefile (continued over `\` lines).
    static func listed() throws -> [String] {
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        var lines = makefile.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
        while let line = lines.first, !line.hasPrefix("SLOW_SUITES :=") { lines = lines.dropFirst() }
        guard var line = lines.first else { return [] }
        var text = String(line.dropFirst("SLOW_SUITES :=".count))
        while line.hasSuffix("\\"), let next = lines.dropFirst().first {
            lines = lines.dropFirst()
            line = next
            text += " " + next
        }
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\\" }).map(String.init)
    }

    /// Every test source: Tests/ and Benchmarks/Tests/, comment lines blanked.
    static func sources() throws -> [(path: String, text: String)] {
        var result: [(String, String)] = []
        for folder in ["Tests", "Benchmarks/Tests"] {
            let url = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in walker where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                // Comment lines are blanked, not dropped, so that line numbers stay right.
                let code = text.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces).hasPrefix("//") ? "" : $0 }
                    .joined(separator: "\n")
                result.append((String(file.path.dropFirst(root.path.count + 1)), code))
            }
        }
        return result
    }

    /// Suites (by type name) whose `@Suite` attribute has the `slow` tag, and `slow`
    /// tags found anywhere else (a single test tagged slow: the list names suites only).
    static func tagged() throws -> (suites: [String: String], elsewhere: [String]) {
        let suite = try Regex(#"@Suite\(((?:.|\n)*?)\)\s*(?:(?:public|internal|package|final)\s+)*(?:struct|class|enum|actor)\s+(\w+)"#)
        let tags = try Regex(#"\.tags\([^)]*\.slow\b[^)]*\)"#)
        var suites: [String: String] = [:]
        var elsewhere: [String] = []
        for (path, text) in try sources() {
            var covered: [Range<String.Index>] = []
            for match in text.matches(of: suite) {
                guard let arguments = match.output[1].substring, let name = match.output[2].substring else { continue }
                if arguments.contains(tags) {
                    suites[String(name)] = path
                    covered.append(match.range)
                }
            }
            for match in text.matches(of: tags) where !covered.contains(where: { $0.contains(match.range.lowerBound) }) {
                let line = text[..<match.range.lowerBound].filter { $0 == "\n" }.count + 1
                elsewhere.append("\(path):\(line)")
            }
        }
        return (suites, elsewhere)
    }

    @Test func everySlowSuiteIsListedAndEveryListedSuiteIsSlow() throws {
        let listed = try Self.listed()
        let (tagged, elsewhere) = try Self.tagged()
        #expect(!listed.isEmpty, "no SLOW_SUITES := line in the Makefile")
        #expect(Set(listed).count == listed.count, "a suite is listed twice: \(listed)")
        for name in tagged.keys.sorted() where !listed.contains(name) {
            Issue.record("\(name) (\(tagged[name]!)) is tagged .slow but missing from SLOW_SUITES in the Makefile: make test-fast would run it")
        }
        for name in listed where tagged[name] == nil {
            Issue.record("SLOW_SUITES lists \(name), which is no suite tagged .slow: tag it, or take it off the list")
        }
        #expect(elsewhere.isEmpty, ".slow on something other than a suite (tag the suite; SLOW_SUITES names suites): \(elsewhere)")
        // The reliability suites are slow by their nature, whatever this machine's speed.
        for name in ["KillTests", "CrashStateReplayTests", "IOFaultInjectionTests", "BitFlipTests"] {
            #expect(tagged[name] != nil, "\(name) must be tagged .slow")
        }
    }

    /// The regex `make test-fast` passes to `swift test --skip`, as make expands it.
    static func skipRegex() -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["make", "--no-print-directory", "-s", "-C", root.path, "print-slow-suites-regex"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let make = skipRegex()

    /// Matched against test ids as `swift test` forms them ("Module.Suite/test()"), the
    /// regex skips every test of a listed suite and no other.
    @Test(.enabled(if: make != nil, "needs make (the regex is the Makefile's, as make expands it)"))
    func theSkipRegexMatchesTheListedSuitesOnly() throws {
        let regex = try Regex(try #require(Self.make))
        let listed = Set(try Self.listed())
        let suite = try Regex(#"@Suite\b(?:.|\n)*?(?:struct|class|enum|actor)\s+(\w+)"#)
        var seen = 0
        for (path, text) in try Self.sources() {
            // Tests/<target>/... or Benchmarks/Tests/<target>/...
            let parts = path.split(separator: "/").map(String.init)
            let module = parts[parts.firstIndex(of: "Tests")! + 1]
            for match in text.matches(of: suite) {
                guard let name = match.output[1].substring.map(String.init) else { continue }
                seen += 1
                for id in ["\(module).\(name)/aTest()", "\(module).\(name)", "\(module).Outer/\(name)/aTest(_:)"] {
                    let skipped = id.contains(regex)
                    #expect(skipped == listed.contains(name), "\(id) \(skipped ? "is" : "is not") skipped by \(Self.make!)")
                }
            }
        }
        #expect(seen > 50, "found only \(seen) suites")
    }
}
