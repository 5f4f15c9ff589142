import Dispatch
import Synchronization

/// Lets one compaction run at a time, and lets close() wait for a background one.
final class CompactionGate: Sendable {
    private let running = Mutex(false)
    private let group = DispatchGroup()

    /// Claims the gate if it is free.
    func tryBegin() -> Bool {
        running.withLock { busy in
            if busy { return false }
            busy = true
            group.enter()
            return true
        }
    }

    /// Claims the gate, waiting for a running compaction to finish first.
    func begin() {
        while !tryBegin() { group.wait() }
    }

    func end() {
        running.withLock { busy in
            busy = false
            group.leave()
        }
    }

    var isRunning: Bool { running.withLock { $0 } }

    func waitUntilIdle() { group.wait() }
}
