import Foundation
import Testing
@testable import readme_examples

/// The extractor on small READMEs: what it reads before a block, how it changes the code
/// so that it compiles without warnings, and the errors that name the line.
@Suite struct ReadmeExampleExtractorTests {
    static func readme(_ lines: String...) -> String { lines.joined(separator: "\n") + "\n" }

    @Test func directivesBeforeABlockGiveItsContextAndTreatment() throws {
        let examples = try ReadmeExampleBlocks.parse(Self.readme(
            "# Title", "## Saving", "<!-- example-context: let store = try Given.store() -->",
            "<!-- example: compile-only -->", "```swift", "try store.close()", "```",
            "```sh", "routelog ls x", "```",
            "<!-- example: skip, needs a watch -->", "```swift", "  watch.start()", "```",
            "### Apple", "<!-- example: apple-only -->", "   ```swift", "   import CoreLocation", "   let m = CLLocationManager()", "   ```"))
        #expect(examples == [
            ReadmeExample(number: 1, line: 5, section: "Saving", context: "let store = try Given.store()", treatment: .compileOnly, code: ["try store.close()"]),
            ReadmeExample(number: 2, line: 12, section: "Saving", context: nil, treatment: .skip(reason: "needs a watch"), code: ["  watch.start()"]),
            ReadmeExample(number: 3, line: 17, section: "Apple", context: nil, treatment: .appleOnly, code: ["import CoreLocation", "let m = CLLocationManager()"]),
        ])
        let source = try ReadmeExampleSource.generate(readme: Self.readme(
            "<!-- example: skip, needs a watch -->", "```swift", "watch.start()", "```",
            "<!-- example: apple-only -->", "```swift", "import CoreLocation", "let m = CLLocationManager()", "```"))
        #expect(source.contains("// - readmeExample1 (): needs a watch\n"))
        #expect(!source.contains("watch.start()"))
        #expect(source.contains("#if canImport(CoreLocation)\nimport CoreLocation\nfunc readmeExample2() async throws {\n    let m = CLLocationManager()\n    _ = m\n}\n#endif\n"))
        #expect(source.hasSuffix("let readmeExamplesToRun: [RunnableReadmeExample] = [\n]\n"))
    }

    @Test func namesAndValuesAreReadOnceAndImportsMoveUp() {
        let body = ReadmeExampleSource.body([
            "import Charts",
            "let points = locations.map {",
            "    TrackPoint(latitude: $0.lat)   // (unbalanced in a comment",
            "}",
            "    .filter { $0.latitude > 0 }",
            "s.stats?.movingTime        // seconds moving",
            "let page = try store.summaries(matching: q,",
            "                               limit: \")\")",
            "for recording in try store.unfinishedRecordings() {",
            "    let recorder = try store.resumeRecording(recording.id)",
            "    recording.id",
            "}",
            "let id = try store.save(route)",
            "try store.delete(id)",
            "var q = RouteQuery(); q.limit = 2",
        ])
        #expect(body == [
            "let points = locations.map {",
            "    TrackPoint(latitude: $0.lat)   // (unbalanced in a comment",
            "}",
            "    .filter { $0.latitude > 0 }",
            "_ = points",
            "_ = s.stats?.movingTime        // seconds moving",
            "let page = try store.summaries(matching: q,",
            "                               limit: \")\")",
            "_ = page",
            "for recording in try store.unfinishedRecordings() {",
            "    let recorder = try store.resumeRecording(recording.id)",
            "    _ = recorder",
            "    _ = recording.id",
            "}",
            "let id = try store.save(route)",
            "try store.delete(id)",
            "var q = RouteQuery(); q.limit = 2",
            "_ = q",
        ])
        #expect(ReadmeExampleSource.hoistedImports(["import Charts", "let x = 1"]) == ["Charts"])
    }

    @Test(arguments: [
        (["<!-- example: compile-only -->", "Some prose.", "```swift", "x()", "```"], "line 1: an example directive that is not right before a ```swift block"),
        (["<!-- example: compile-only -->", "```sh", "ls", "```"], "line 1: an example directive before a ```sh block, not a ```swift one"),
        (["text", "<!-- example: sometimes -->", "```swift", "x()", "```"], "line 2: unknown directive `sometimes`: say compile-only, apple-only or skip, REASON"),
        (["<!-- example: skip, -->", "```swift", "x()", "```"], "line 1: unknown directive `skip,`: say compile-only, apple-only or skip, REASON"),
        (["<!-- example-context: let a = 1", "-->", "```swift", "x()", "```"], "line 1: an example directive must be one line ending in -->"),
        (["# T", "```swift", "x()"], "line 2: a code block that is never closed"),
        (["```swift", "x()", "```", "<!-- example: compile-only -->"], "line 4: an example directive at the end of the file"),
    ])
    func aDirectiveOrBlockItCannotReadIsAnErrorNamingTheLine(lines: [String], message: String) {
        let error = #expect(throws: ReadmeExampleError.self) { try ReadmeExampleBlocks.parse(lines.joined(separator: "\n")) }
        #expect(error?.description == message)
    }
}
