import Foundation
import RouteLog
import CRouteLogSystem
import Synchronization

// Test-only: opens the store at the first argument for writing, prints "ready" once it
// holds the writer's lock, and sleeps until killed, as an app with the store open would.
//
// With `--no-descriptors-left STORE`: opens the store (buffered), then lowers its limit
// of open files to those it has open, saves and deletes a route, and prints what came of
// each ("saved", "deleted" or "refused: ..."), as a process that ran out of descriptors
// would; it must get an answer, not crash.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--no-descriptors-left" {
    var options = RouteStore.Options(durability: .buffered)
    options.bufferedQuietSyncDelay = 0.05
    let store = try RouteStore(at: URL(fileURLWithPath: CommandLine.arguments[2]), options: options)
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    let route = Route(points: (0..<50).map { i in
        TrackPoint(latitude: 45 + Double(i) * 1e-5, longitude: 9, timestamp: start.addingTimeInterval(Double(i)))
    })
    let probe = open("/dev/null", O_RDONLY)
    close(probe)
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = rlim_t(probe)  // every descriptor below the lowest free one is taken
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    var lines: [String] = []
    do {
        let id = try store.save(route)
        lines.append("saved")
        try store.delete(id)
        lines.append("deleted")
    } catch {
        lines.append("refused: \(error)")
    }
    usleep(200_000)  // the quiet sync's timer fires meanwhile
    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    exit(0)
}
// With `--fork-in-signal-handler SECONDS`: a thread enters and leaves the fork guard
// (fork_release.c, the stretch a writer opens a lock's descriptor in) again and again,
// while this thread sends it SIGUSR1, whose handler forks (the child exits at once) and
// waits for the child. Each signal is sent once the handler of the one before has
// returned, and 100 µs later, so that the looping thread runs between handlers: sent
// every 100 µs regardless, on a loaded machine a fork took longer than that, a signal
// was always pending when a handler returned, and the thread ran nothing but handlers.
// Prints "no hang, S signals" after SECONDS; or "hung after S signals" and exits 1 when a
// handler has not returned for 3 s (a fork in it waiting for the thread it interrupted),
// or "stuck after S signals" when the looping thread made no progress for 3 s.
let forkSignalsHandled = Atomic<Int>(0)
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--fork-in-signal-handler",
   let seconds = Double(CommandLine.arguments[2]) {
    // A test runner's blocked signals are inherited: SIGUSR1 is to come through.
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    sigprocmask(SIG_SETMASK, &noSignals, nil)
    signal(SIGUSR1) { _ in
        let child = fork()
        if child == 0 { _exit(0) }
        var status: Int32 = 0
        if child > 0 { _ = waitpid(child, &status, 0) }
        forkSignalsHandled.add(1, ordering: .releasing)
    }
    routelog_fork_guard_enter()  // the handlers registered before the thread starts
    routelog_fork_guard_leave()
    final class Looping: @unchecked Sendable {
        let progress = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        let thread = UnsafeMutablePointer<pthread_t>.allocate(capacity: 1)
        let started = DispatchSemaphore(value: 0)
        init() { progress.initialize(to: 0) }
    }
    let looping = Looping()
    Thread.detachNewThread {
        looping.thread.initialize(to: pthread_self())
        looping.started.signal()
        while true {
            routelog_fork_guard_enter()
            routelog_fork_guard_leave()
            looping.progress.pointee &+= 1
        }
    }
    looping.started.wait()
    let start = Date()
    var signals = 0, last = -1, lastChange = Date()
    func fail(_ what: String) -> Never {
        FileHandle.standardOutput.write(Data("\(what) after \(signals) signals\n".utf8))
        _exit(1)
    }
    while Date().timeIntervalSince(start) < seconds {
        let handled = forkSignalsHandled.load(ordering: .acquiring)
        pthread_kill(looping.thread.pointee, SIGUSR1)
        signals += 1
        let sent = Date()
        while forkSignalsHandled.load(ordering: .acquiring) == handled {
            if Date().timeIntervalSince(sent) > 3 { fail("hung") }
            usleep(20)
        }
        usleep(100)
        let now = looping.progress.pointee
        if now != last {
            (last, lastChange) = (now, Date())
        } else if Date().timeIntervalSince(lastChange) > 3 {
            fail("stuck")
        }
    }
    FileHandle.standardOutput.write(Data("no hang, \(signals) signals\n".utf8))
    _exit(0)
}
// With `--fork STORE`: opens the store, saves a route, then forks. The child, which has
// the parent's handle, tries to save, delete and compact through it and closes it; each
// line it prints says what came of a call ("child save: refused (locked, pid P)", say),
// then it waits to be killed. Meanwhile the parent says who holds the store ("parent
// lock: held by this process"), saves again, closes, opens the store for writing again
// while the child still lives, then kills the child and prints the routes a new open finds.
//
// With `--fork-and-exit STORE`: opens the store, forks a child that does nothing with
// it but sleep for 60 s, prints "child pid: P" and exits without closing the store, as a
// process that dies would.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--fork-and-exit" {
    let store = try RouteStore(at: URL(fileURLWithPath: CommandLine.arguments[2]))
    let child = fork()
    if child == 0 {
        let null = open("/dev/null", O_RDWR)
        dup2(null, 1)
        dup2(null, 2)
        // And the socket a test runner watches its child's end by (Foundation's Process):
        // the child is not that process.
        for fd in 3..<Int32(256) {
            var info = stat()
            if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { close(fd) }
        }
        sleep(60)
        _exit(0)
    }
    FileHandle.standardOutput.write(Data("child pid: \(child)\n".utf8))
    withExtendedLifetime(store) { exit(0) }
}
// With `--open-while-forking DIR COUNT`: makes COUNT stores in DIR (s0.routelog, ...),
// then opens each for writing while another thread forks again and again (each child
// holds whatever it inherited and sleeps for 60 s), prints "children: P P ..." and exits
// without closing the stores, as a process that dies would. Each open pauses 2 ms
// between opening a lock's descriptor and registering it for fork() (a debug build's
// test-only pause), so that forks land there.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--open-while-forking", let count = Int(CommandLine.arguments[3]) {
    setenv("ROUTELOG_TEST_PAUSE_BEFORE_FORK_REGISTRATION_US", "2000", 1)
    let urls = (0..<count).map { URL(fileURLWithPath: CommandLine.arguments[2]).appendingPathComponent("s\($0).routelog") }
    for url in urls { try RouteStore(at: url).close() }
    // A child forked from a threaded process may make only async-signal-safe calls: no
    // Swift generics either (making their metadata takes the runtime's locks, which
    // another thread may hold at the fork). So what the children change is found here:
    // /dev/null for their output, and the sockets to close (the one a test runner
    // watches its child's end by is not theirs).
    final class Forking: @unchecked Sendable {
        let null = open("/dev/null", O_RDWR)
        let sockets = UnsafeMutablePointer<Int32>.allocate(capacity: 256)
        let socketCount: Int
        // Written by the forking thread only, read once it stopped.
        var children: [pid_t] = []
        init() {
            var count = 0
            for fd in 3..<Int32(256) {
                var info = stat()
                if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK {
                    sockets[count] = fd
                    count += 1
                }
            }
            socketCount = count
        }
    }
    let forking = Forking()
    let stop = DispatchSemaphore(value: 0), stopped = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        while stop.wait(timeout: .now()) == .timedOut && forking.children.count < 1000 {
            let child = fork()
            if child == 0 {
                dup2(forking.null, 1)
                dup2(forking.null, 2)
                var i = 0
                while i < forking.socketCount {
                    close(forking.sockets[i])
                    i += 1
                }
                sleep(60)
                _exit(0)
            }
            if child > 0 { forking.children.append(child) }
        }
        stopped.signal()
    }
    let stores = try urls.map { try RouteStore(at: $0) }
    stop.signal()
    stopped.wait()
    FileHandle.standardOutput.write(Data("children: \(forking.children.map(String.init).joined(separator: " "))\n".utf8))
    withExtendedLifetime(stores) { exit(0) }
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--fork" {
    let url = URL(fileURLWithPath: CommandLine.arguments[2])
    let store = try RouteStore(at: url)
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    func walk(_ n: Int) -> Route {
        Route(points: (0..<20).map { i in
            TrackPoint(latitude: 45 + Double(n) * 0.01 + Double(i) * 1e-5, longitude: 9, timestamp: start.addingTimeInterval(Double(i)))
        })
    }
    func outcome(_ call: () throws -> Void) -> String {
        do {
            try call()
            return "done"
        } catch let error as RouteLogError {
            return "refused (\(error.code), pid \(error.pid.map(String.init) ?? "none"))"
        } catch {
            return "refused (\(error))"
        }
    }
    let first = try store.save(walk(0))
    FileHandle.standardOutput.write(Data("parent pid: \(getpid())\n".utf8))
    var done: [Int32] = [0, 0]
    pipe(&done)
    let child = fork()
    if child == 0 {
        // Only what a forked child of a threaded process may do: no new threads, and
        // output by write(2), then _exit.
        var lines = "child save: \(outcome { _ = try store.save(walk(1)) })\n"
        lines += "child delete: \(outcome { try store.delete(first) })\n"
        lines += "child compact: \(outcome { _ = try store.compact() })\n"
        lines += "child close: \(outcome { try store.close() })\n"
        lines.utf8CString.withUnsafeBufferPointer { _ = write(1, $0.baseAddress, $0.count - 1) }
        _ = write(done[1], "x", 1)
        sleep(60)
        _exit(0)
    }
    var byte: UInt8 = 0
    _ = read(done[0], &byte, 1)
    let holder = RouteStore.writerProcess(at: url)
    var lines = "parent lock: \(holder == getpid() ? "held by this process" : "held by \(holder.map(String.init) ?? "nobody")")\n"
    lines += "parent save: \(outcome { _ = try store.save(walk(2)) })\n"
    lines += "parent close: \(outcome { try store.close() })\n"
    lines += "parent reopen beside the child: \(outcome { try RouteStore(at: url).close() })\n"
    kill(child, SIGKILL)
    var status: Int32 = 0
    waitpid(child, &status, 0)
    let reopened = try RouteStore(at: url, options: RouteStore.Options(mode: .readOnly))
    let summaries = try reopened.summaries()
    lines += "routes: \(summaries.map { "\($0.id.rawValue)@\($0.startCoordinate.latitude)" }.joined(separator: " "))\n"
    FileHandle.standardOutput.write(Data(lines.utf8))
    exit(0)
}
// Anything else starting with "-" is an option it does not know (--help included),
// never a store path: it would create a store of that name.
guard CommandLine.arguments.count == 2, !CommandLine.arguments[1].hasPrefix("-") else {
    let usage = "usage: routelog-test-holder [--no-descriptors-left | --fork | --fork-and-exit] STORE\n"
        + "       routelog-test-holder --open-while-forking DIR COUNT\n"
        + "       routelog-test-holder --fork-in-signal-handler SECONDS\n"
    let asked = CommandLine.arguments.count == 2 && ["--help", "-h"].contains(CommandLine.arguments[1])
    FileHandle(fileDescriptor: asked ? STDOUT_FILENO : STDERR_FILENO).write(Data(usage.utf8))
    exit(asked ? 0 : 2)
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
