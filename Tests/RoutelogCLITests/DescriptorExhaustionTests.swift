import Foundation
import Testing

/// A process that has run out of file descriptors gets answers from its store, not a
/// crash: libdispatch sets up its event loop (descriptors of its own) the first time a
/// process schedules timed work, and traps when it gets none; a buffered save schedules
/// such work while it holds the writer's lock. The store starts the loop when it opens.
/// Run in a child process (`routelog-test-holder --no-descriptors-left`), which lowers
/// its own limit of open files after opening the store.
@Suite struct DescriptorExhaustionTests {
    @Test func aSaveAndADeleteWithNoDescriptorLeftAnswerInsteadOfCrashing() throws {
        let dir = ScratchDirectory()
        let process = Process()
        process.executableURL = CLI.productsDirectory.appendingPathComponent("routelog-test-holder")
        process.arguments = ["--no-descriptors-left", dir.url.appendingPathComponent("s.routelog").path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                "the child ended by \(process.terminationReason == .uncaughtSignal ? "signal" : "exit") \(process.terminationStatus): \(output)")
        // A save needs no new descriptor (the segment is open): it is acknowledged.
        #expect(output.hasPrefix("saved\n"), "\(output)")
    }
}
