import Foundation
import RouteLog
import Testing

/// A child made with fork() inherits its parent's store handle, and with it the open
/// descriptions that hold the writer's locks. Through that handle the child must change
/// nothing (it would hand out the parent's next route ids and append over its records)
/// and its close() must let nothing go; nor may it keep the store locked once its parent
/// closes the store or dies. Run in a child process (`routelog-test-holder --fork`),
/// which forks after its first save.
@Suite struct ForkedHandleTests {
    @Test func aForkedChildCannotWriteThroughItsParentsHandleNorLetItsLockGo() throws {
        let dir = ScratchDirectory()
        let run = try CLI.runHolder(["--fork", dir.url.appendingPathComponent("s.routelog").path])
        let output = run.output
        #expect(run.exitedCleanly, "the holder ended by \(run.ending): \(output)")
        let lines = output.split(separator: "\n").map(String.init)
        let parent = try #require(lines.first.flatMap { $0.hasPrefix("parent pid: ") ? Int32($0.dropFirst(12)) : nil }, "\(output)")
        let refused = "refused (locked, pid \(parent))"
        #expect(Array(lines.dropFirst()) == [
            "child save: \(refused)",
            "child delete: \(refused)",
            "child compact: \(refused)",
            "child close: done",
            // The child's close() left the parent's lock, and LOCK's pid, as they were.
            "parent lock: held by this process",
            "parent save: done",
            "parent close: done",
            // The child, still alive, holds no lock of the store.
            "parent reopen beside the child: done",
            // The parent's first route, not deleted; its second, with id 2 (the child's
            // refused save took no id), at its own latitude.
            "routes: 1@45.0 2@45.02",
        ], "\(output)")
    }

    /// The parent dies with the store open; its child lives on, having done nothing with
    /// the store: the store is free for the next writer at once.
    @Test func aChildOutlivingItsParentDoesNotKeepTheStoreLocked() throws {
        let dir = ScratchDirectory()
        let store = dir.url.appendingPathComponent("s.routelog")
        // One line, not to the end: the sleeping child may hold the pipe open.
        let output = try CLI.runHolder(["--fork-and-exit", store.path], firstLineOnly: true).output
        let child = try #require(output.hasPrefix("child pid: ") ? Int32(output.dropFirst(11).trimmingCharacters(in: .whitespacesAndNewlines)) : nil,
                                 "\(output)")
        defer { kill(child, SIGKILL) }
        #expect(kill(child, 0) == 0, "the child should still be alive")
        // Nobody holds the store, and a writer opens it, while the child lives.
        #expect(try parseJSON(CLI.run(["inspect", store.path, "--json"]).stdout)["writerPID"] is NSNull)
        let compact = try CLI.run(["compact", store.path])
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(kill(child, 0) == 0, "the child should still be alive")
    }

    /// A process opens stores for writing while another of its threads forks again and
    /// again, then dies with them open; its children live on: every store is free for
    /// the next writer at once. (A child forked between a writer's open of a lock's
    /// descriptor and its registration with fork_release.c would hold the store: fork()
    /// waits for that stretch, which the holder's debug build widens to 2 ms so that
    /// the forks meet it.)
    @Test func childrenForkedWhileStoresOpenDoNotKeepThemLocked() throws {
        let dir = ScratchDirectory()
        let count = 20
        let output = try CLI.runHolder(["--open-while-forking", dir.url.path, String(count)], firstLineOnly: true).output
        let children = output.hasPrefix("children: ")
            ? output.dropFirst(10).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) } : []
        defer { for child in children { kill(child, SIGKILL) } }
        #expect(!children.isEmpty, "\(output)")
        #expect(children.contains { kill($0, 0) == 0 }, "the children should still be alive")
        var held: [String] = []
        for n in 0..<count {
            let url = dir.url.appendingPathComponent("s\(n).routelog")
            do {
                try RouteStore(at: url, options: .init(mode: .mustExist)).close()
            } catch let error as RouteLogError where error.code == .locked {
                held.append(url.lastPathComponent)
            }
        }
        #expect(held.isEmpty, "stores still held by a child of the dead writer (\(children.count) children): \(held)")
    }

    /// A fork from a signal handler, in a thread at any point of entering or leaving the
    /// fork guard (fork_release.c): the fork is not to wait for the very thread it
    /// interrupted. (It did when the signal came between `depth` going to 0 and the
    /// thread's count going: the handler read the thread as outside and waited for the
    /// count to fall, which only that thread could do.)
    @Test func aForkFromASignalHandlerAtTheGuardsEdgesDoesNotHang() throws {
        let run = try CLI.runHolder(["--fork-in-signal-handler", "10"])
        #expect(run.output.hasPrefix("no hang"), "\(run.output) (\(run.ending))")
    }
}
