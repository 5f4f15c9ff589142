import Foundation
import Testing

/// Runs the README examples that can run against a scratch folder (those not marked
/// `<!-- example: compile-only -->`): each in a folder of its own, removed afterwards.
@Suite struct ReadmeExamplesRunTests {
    @Test(arguments: readmeExamplesToRun)
    func theExampleRuns(_ example: RunnableReadmeExample) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("routelog-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Given.$folder.withValue(folder) {
            try await example.run()
        }
    }
}
