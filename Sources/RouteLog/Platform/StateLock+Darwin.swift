// Apple platforms only: StateLock's lock is an os_unfair_lock (StateLock.swift). It is
// what Apple recommends for short critical sections: no allocation on contention, and
// the waiting thread donates its priority to the owner (no priority inversion between
// the UI thread and a background save).
#if canImport(Darwin)
import os

/// An `os_unfair_lock` at an address that never moves: the lock must not be copied or
/// moved once in use, which a Swift stored property cannot promise.
struct LockPrimitive {
    private let unfair: os_unfair_lock_t

    init() {
        unfair = .allocate(capacity: 1)
        unfair.initialize(to: os_unfair_lock())
    }

    func lock() {
        os_unfair_lock_lock(unfair)
    }

    func unlock() {
        os_unfair_lock_unlock(unfair)
    }

    /// Called once, by the owning StateLock's deinit, when no thread can hold it.
    func destroy() {
        unfair.deinitialize(count: 1)
        unfair.deallocate()
    }
}
#endif
