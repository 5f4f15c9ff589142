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
        let run = try CLI.runHolder(["--no-descriptors-left", dir.url.appendingPathComponent("s.routelog").path])
        let output = run.output
        #expect(run.exitedCleanly, "the child ended by \(run.ending): \(output)")
        // A save needs no new descriptor (the segment is open): it is acknowledged.
        #expect(output.hasPrefix("saved\n"), "\(output)")
    }
}
