import Foundation
import Testing
@testable import readme_examples

/// Tests/ReadmeExamples/ReadmeExamples.swift is what the extractor makes of README.md, so
/// that every ```swift block of the README is compiled by the test build.
/// `ROUTELOG_UPDATE_GOLDEN=1 swift test --filter ReadmeExamples` rewrites the file (and
/// `swift run readme-examples` does too, when the tests no longer build).
@Suite struct ReadmeExamplesSourceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theCommittedFileIsTheReadmesExamples() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let generated = Self.root.appendingPathComponent(ReadmeExampleSource.outputPath)
        let expected = try ReadmeExampleSource.generate(readme: readme)
        if ProcessInfo.processInfo.environment["ROUTELOG_UPDATE_GOLDEN"] == "1" {
            try Data(expected.utf8).write(to: generated, options: .atomic)
            return
        }
        let current = try String(contentsOf: generated, encoding: .utf8)
        if current != expected {
            let mismatch = zip(current.split(separator: "\n", omittingEmptySubsequences: false),
                               expected.split(separator: "\n", omittingEmptySubsequences: false))
                .first { $0.0 != $0.1 }
            Issue.record("""
                \(ReadmeExampleSource.outputPath) is not what README.md's ```swift blocks make: it has \
                \(mismatch?.0.debugDescription ?? "fewer lines"), the README gives \(mismatch?.1.debugDescription ?? "fewer lines"). \
                Regenerate it: \(ReadmeExampleSource.regenerate)
                """)
        }
    }

    @Test func everyBlockOfTheReadmeIsCompiledUnlessSkippedForAReason() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let examples = try ReadmeExampleBlocks.parse(readme)
        let source = try ReadmeExampleSource.generate(readme: readme)
        #expect(examples.count == readme.components(separatedBy: "\n```swift\n").count - 1)
        for example in examples {
            if case .skip(let reason) = example.treatment {
                #expect(source.contains("// - readmeExample\(example.number) (\(example.section)): \(reason)"))
                #expect(!source.contains("func readmeExample\(example.number)()"))
            } else {
                #expect(source.contains("func readmeExample\(example.number)() async throws {"), "block at README line \(example.line)")
            }
        }
    }
}
