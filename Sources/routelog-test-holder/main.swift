import Foundation
import RouteLog

// Test-only: opens the store at the first argument for writing, prints "ready" once it
// holds the writer's lock, and sleeps until killed, as an app with the store open would.
guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: routelog-test-holder STORE\n".utf8))
    exit(2)
}
// A parent may have blocked signals (test runners do), and the mask is inherited:
// unblock them so that the test's SIGTERM ends this process.
var noSignals = sigset_t()
sigemptyset(&noSignals)
sigprocmask(SIG_SETMASK, &noSignals, nil)
do {
    let store = try RouteStore(at: URL(fileURLWithPath: CommandLine.arguments[1]))
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    withExtendedLifetime(store) {
        while true { sleep(3600) }
    }
} catch {
    FileHandle.standardError.write(Data("routelog-test-holder: \(error)\n".utf8))
    exit(1)
}
