#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A handle belongs to the process that opened it (docs/recovery-and-compaction.md,
/// "One writer"). A child made with fork() inherits the handle and, with it, the open
/// descriptions that hold the writer's locks. Were the child to write through it, child
/// and parent would hand out the same route ids and append over each other's records;
/// were its close() to let the locks go, it would let the parent's go.
///
/// So in any other process the handle refuses every change, compaction and setting
/// before it takes a lock of its own (one that a thread of the parent held at the fork
/// would never be let go in the child), and its close() lets nothing go.
extension RouteStore {
    /// True in a process other than the one that opened the handle.
    var isInheritedAcrossFork: Bool { getpid() != openedBy }

    /// Throws `.locked`, naming the process that opened the handle, when a writer's
    /// handle is used in any other process (a read-only handle refuses changes anyway).
    func checkOpenedInThisProcess() throws {
        guard isInheritedAcrossFork, !isReadOnly else { return }
        throw RouteLogError(.locked,
                            "the store is open for writing by process \(openedBy), and this handle came from it across fork(); open the store in this process, read-only or once that process closes it",
                            path: directory, pid: openedBy)
    }
}
