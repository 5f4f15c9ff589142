/// A value that one thread at a time may read or change: what Synchronization's `Mutex`
/// offers, on every OS version RouteLog supports (`Mutex` needs iOS 18, watchOS 11 and
/// macOS 15; RouteLog runs from iOS 16, watchOS 9 and macOS 13).
///
/// The lock underneath is the platform's cheapest correct one: `os_unfair_lock` on
/// Apple platforms (`StateLock+Darwin.swift`), a `pthread_mutex_t` elsewhere
/// (`StateLock+POSIX.swift`). Everything else, including the value's isolation, is here
/// and the same everywhere. Not reentrant: calling ``withLock(_:)`` from inside its own
/// body deadlocks (or traps), as `Mutex` does.
///
/// Package-wide (`package`), not public: the library, the `routelog` CLI, the benchmarks
/// and the tests use it; apps do not see it.
///
/// ```swift
/// let hits = StateLock(0)
/// hits.withLock { $0 += 1 }
/// ```
package final class StateLock<Value: ~Copyable>: @unchecked Sendable {
    private let primitive: LockPrimitive
    // Only touched between primitive.lock() and primitive.unlock(): that is what makes
    // the unchecked Sendable true.
    private var value: Value

    /// A lock holding `initialValue`, which is handed over: no one else keeps a reference
    /// to it, so that every later access goes through ``withLock(_:)``.
    package init(_ initialValue: consuming sending Value) {
        primitive = LockPrimitive()
        value = initialValue
    }

    deinit {
        primitive.destroy()
    }

    /// Runs `body` with the value, holding the lock; returns what `body` returns.
    ///
    /// - Throws: Whatever `body` throws, with the lock released.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        primitive.lock()
        defer { primitive.unlock() }
        return try body(&value)
    }
}
