import Foundation

// Writes the README's ```swift blocks as functions for the test build to compile:
//
//   swift run readme-examples [README [OUTPUT]]
//
// from the package root; by default README.md into Tests/ReadmeExamples/ReadmeExamples.swift.
// The tests compare the committed file with what this makes (ReadmeExamplesSourceTests);
// this executable is how to regenerate it when the test target itself no longer builds.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 2, !arguments.contains(where: { $0.hasPrefix("-") }) else {
    FileHandle.standardError.write(Data("usage: readme-examples [README [OUTPUT]]\n".utf8))
    exit(2)
}
let readmePath = arguments.first ?? "README.md"
let outputPath = arguments.dropFirst().first ?? ReadmeExampleSource.outputPath
do {
    let readme = try String(contentsOfFile: readmePath, encoding: .utf8)
    let source = try ReadmeExampleSource.generate(readme: readme)
    try Data(source.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
    print("wrote \(outputPath) from \(readmePath)")
} catch let error as ReadmeExampleError {
    FileHandle.standardError.write(Data("readme-examples: \(readmePath): \(error.description)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("readme-examples: \(error.localizedDescription)\n".utf8))
    exit(1)
}
