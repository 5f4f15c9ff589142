import Foundation
import Testing

/// The test holder takes nothing that starts with "-" for a store path: `--help` prints
/// its usage and a stray option is a usage error, and neither creates a store.
@Suite struct TestHolderArgumentsTests {
    @Test(arguments: [("--help", Int32(0)), ("-h", 0), ("--bogus", 2)])
    func anOptionIsNeverAStorePath(argument: String, status: Int32) throws {
        let dir = ScratchDirectory()
        let process = Process()
        process.executableURL = CLI.productsDirectory.appendingPathComponent("routelog-test-holder")
        process.arguments = [argument]
        process.currentDirectoryURL = dir.url
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let said = out.fileHandleForReading.readDataToEndOfFile() + err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == status)
        #expect(String(decoding: said, as: UTF8.self).hasPrefix("usage: routelog-test-holder"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty, "no store was created")
    }
}
