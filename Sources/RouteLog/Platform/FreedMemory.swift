import CRouteLogSystem

/// Gives the pages of freed heap memory back to the system after work that made and
/// let go of many large buffers (an index read through 1 MiB windows on a second
/// thread). glibc keeps them: once a large block is freed, it serves blocks up to that
/// size from its heaps instead of mapping each (its threshold rises, up to 32 MiB), and
/// a heap gives back only the free space at its top. Opening a 100,000-route store then
/// left 0 to 4 MB of freed windows resident beside the 14 MB the index holds, as much
/// as the scheduling of the two threads happened to leave. Apple's allocator returns
/// freed large blocks itself; there the call does nothing (CRouteLogSystem).
enum FreedMemory {
    static func giveBack() { routelog_give_back_freed_memory() }
}
