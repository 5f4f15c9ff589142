import Foundation
import Testing

/// A store held for writing by another process (an app): commands that write are
/// refused with exit code 3 naming its pid; commands that read work beside it.
@Suite struct RoutelogWriterLockTests {
    @Test func writingCommandsAreRefusedReadingCommandsWork() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("held.routelog")).url
        let before = try CLI.run(["ls", store.path, "--json"]).stdout
        let holder = try WriterHolder(store: store)
        defer { holder.stop() }

        for arguments in [["set", store.path, "1", "--shift", "7d"], ["delete", store.path, "1"], ["compact", store.path]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 3, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderrLines.count == 1)
            #expect(result.stderr.hasPrefix("routelog: the store is open for writing by process \(holder.pid) (\(store.path)): quit that app"),
                    "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }

        let ls = try CLI.run(["ls", store.path, "--json"])
        #expect(ls.status == 0)
        #expect(ls.stdout == before, "nothing was changed, and ls reads beside the writer")
        let inspect = try CLI.run(["inspect", store.path, "--json"])
        #expect(inspect.status == 0)
        #expect(try parseJSON(inspect.stdout)["writerPID"] as? Int == Int(holder.pid))
        let human = try CLI.run(["inspect", store.path])
        #expect(human.stdout.contains("process \(holder.pid) holds the store for writing"))
        for arguments in [["weeks", store.path], ["show", store.path, "1"], ["verify", store.path], ["dump", store.path, "5"]] {
            #expect(try CLI.run(arguments).status == 0, "\(arguments[0]) must work beside the writer")
        }

        holder.stop()
        let afterwards = try CLI.run(["set", store.path, "1", "--shift", "7d"])
        #expect(afterwards.status == 0, "once the app has quit the edit goes through: \(afterwards.stderr)")
        #expect(try parseJSON(CLI.run(["inspect", store.path, "--json"]).stdout)["writerPID"] is NSNull)
    }
}
