import Foundation
import Testing
@testable import RouteLog

/// StateLock, RouteLog's Mutex for systems older than Synchronization's (Platform/StateLock.swift).
@Suite struct StateLockExclusionTests {
    @Test func concurrentChangesAreNeverLost() {
        let counter = StateLock(0)
        let log = StateLock([Int]())
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for step in 0..<5_000 {
                // A read-modify-write that tears without mutual exclusion.
                counter.withLock { value in
                    let seen = value
                    value = seen + 1
                }
                if step % 1_000 == 0 { log.withLock { $0.append(worker) } }
            }
        }
        #expect(counter.withLock { $0 } == 40_000)
        #expect(log.withLock { $0.count } == 40)
    }

    struct Refused: Error, Equatable { let value: Int }

    @Test func aThrowingBodyLeavesItsChangesAndReleasesTheLock() {
        let lock = StateLock(1)
        // The error keeps its type through withLock (typed throws, as Mutex does).
        do throws(Refused) {
            try lock.withLock { (value: inout Int) throws(Refused) in
                value = 2
                throw Refused(value: value)
            }
            Issue.record("withLock did not rethrow")
        } catch {
            #expect(error == Refused(value: 2))
        }
        // Released: a second withLock on the same thread would deadlock otherwise.
        #expect(lock.withLock { $0 } == 2)
    }

    struct Token: ~Copyable {
        var uses = 0
    }

    @Test func holdsValuesThatCannotBeCopied() {
        let lock = StateLock(Token())
        lock.withLock { $0.uses += 1 }
        lock.withLock { $0.uses += 1 }
        #expect(lock.withLock { $0.uses } == 2)
    }
}
