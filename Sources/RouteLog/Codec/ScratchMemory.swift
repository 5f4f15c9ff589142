import CRouteLogSystem

/// The working memory of a save or a load (columns of stored integers, the encoder's
/// streams, the copies a decoder reads from), kept on a shelf for the next one instead
/// of going back to the system.
///
/// A save of a 3,600-point route works in about 600 KB of such memory and a load in
/// about 300 KB, each a few dozen buffers of tens of kilobytes. Freed and asked for
/// again at every save, they are pages the system takes back and hands out again (on
/// Linux, glibc trims its heap once more than 128 KB at its top is free): each page
/// comes back zeroed through a page fault: in a process that loaded routes back to back,
/// those faults took twice as long as the decoding.
/// Kept here, the same buffers serve save after save.
///
/// What the shared shelf keeps is bounded: no buffer over 1 MiB (a column of a route of
/// about 130,000 points; longer routes allocate and free as before), and at most 2 MiB
/// in all; to make room for a buffer given back, the buffers shelved longest ago go back
/// to the system (so one long route's large buffers do not hold the shelf for the
/// ordinary saves after it). Sizes are
/// rounded up to classes a quarter of a power of two apart, so routes of different
/// lengths share buffers, at most a quarter of a buffer unused. ``drain()`` frees the
/// shelf; the last open ``RouteStore`` to close calls it. A buffer is on the shelf or in one
/// caller's hands, never both: the shelf's lock hands it over.
enum ScratchMemory {
    /// The shelf every save and load of the process shares. Under AddressSanitizer it
    /// keeps nothing: a shelved buffer is neither freed nor poisoned, and a class's slack
    /// is writable, so reads past a buffer or after its release would go unreported.
    static let shared = ScratchShelf(largestKept: routelog_built_with_address_sanitizer() != 0 ? 0 : 1 << 20,
                                     shelfBytes: 2 << 20)

    /// Memory for `count` values of `T`, uninitialized, from the shared shelf.
    static func take<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> { shared.take(type, count: count) }

    /// Gives back memory from ``take(_:count:)`` with the same `count`.
    static func give<T>(_ pointer: UnsafeMutablePointer<T>, count: Int) { shared.give(pointer, count: count) }

    /// Frees every buffer on the shared shelf.
    static func drain() { shared.drain() }

    /// Called once by each store that opens.
    static func storeOpened() { shared.userOpened() }

    /// Called once by each store that closes; the last one drains the shelf.
    static func storeClosed() { shared.userClosed() }
}

/// Free buffers kept for reuse, within bounds (``ScratchMemory``).
final class ScratchShelf: Sendable {
    /// Buffers smaller than this are not shelved: the allocator keeps those itself.
    static let smallestKept = 4096
    /// Alignment of every buffer: enough for any value the codec keeps, and for
    /// 16-byte vector loads.
    private static let alignment = 16
    let largestKept: Int
    let shelfBytes: Int
    private let shelf: StateLock<Shelf>

    init(largestKept: Int, shelfBytes: Int) {
        self.largestKept = largestKept
        self.shelfBytes = shelfBytes
        shelf = StateLock(Shelf(limit: shelfBytes))
    }

    deinit { drain() }

    /// Memory for `count` values of `T`, uninitialized.
    func take<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let bytes = Self.byteClass(MemoryLayout<T>.stride * max(1, count))
        let shelved = shelves(bytes) ? shelf.withLock { $0.take(bytes) } : nil
        let raw = shelved.map { UnsafeMutableRawPointer(bitPattern: $0)! }
            ?? UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: Self.alignment)
        return raw.bindMemory(to: T.self, capacity: bytes / MemoryLayout<T>.stride)
    }

    /// Gives back memory from ``take(_:count:)`` with the same `count`; its values must
    /// be trivial (none is deinitialized) and no longer used.
    func give<T>(_ pointer: UnsafeMutablePointer<T>, count: Int) {
        let bytes = Self.byteClass(MemoryLayout<T>.stride * max(1, count))
        guard shelves(bytes) else {
            UnsafeMutableRawPointer(pointer).deallocate()
            return
        }
        let address = UInt(bitPattern: pointer)
        let evicted = shelf.withLock { $0.keep(address, bytes) }
        for address in evicted { UnsafeMutableRawPointer(bitPattern: address)!.deallocate() }
    }

    /// Users of the shelf (open stores): it is drained when the last one goes, not
    /// when any does, which would throw away the working memory of the others.
    private let users = StateLock(0)

    func userOpened() { users.withLock { $0 += 1 } }

    /// The last user gone drains the shelf.
    func userClosed() {
        let last = users.withLock { count -> Bool in
            count -= 1
            return count == 0
        }
        if last { drain() }
    }

    /// Frees every shelved buffer.
    func drain() {
        let addresses = shelf.withLock { $0.removeAll() }
        for address in addresses { UnsafeMutableRawPointer(bitPattern: address)!.deallocate() }
    }

    /// Bytes on the shelf now, and how many buffers.
    var shelved: (bytes: Int, buffers: Int) { shelf.withLock { ($0.total, $0.buffers.count) } }

    private func shelves(_ bytes: Int) -> Bool { bytes >= Self.smallestKept && bytes <= largestKept }

    /// `bytes` rounded up to 2^k, 1.25 × 2^k, 1.5 × 2^k or 1.75 × 2^k (at least 64).
    static func byteClass(_ bytes: Int) -> Int {
        guard bytes > 64 else { return 64 }
        let top = Int.bitWidth - 1 - (bytes - 1).leadingZeroBitCount  // 2^top < bytes ≤ 2^(top+1)
        let quarter = 1 << (top - 2)
        return (bytes + quarter - 1) / quarter * quarter
    }

    /// Free buffers by address (kept as integers: the shelf only hands them on).
    private struct Shelf {
        let limit: Int
        var buffers: [(address: UInt, bytes: Int)] = []
        var total = 0

        init(limit: Int) { self.limit = limit }

        /// The most recently shelved buffer of exactly `bytes`, taken off the shelf.
        mutating func take(_ bytes: Int) -> UInt? {
            guard let i = buffers.lastIndex(where: { $0.bytes == bytes }) else { return nil }
            total -= bytes
            return buffers.remove(at: i).address
        }

        /// Shelves the buffer, taking off the buffers shelved longest ago until it fits;
        /// returns what the caller is to free (the buffer itself when it could never fit).
        mutating func keep(_ address: UInt, _ bytes: Int) -> [UInt] {
            guard bytes <= limit else { return [address] }
            var evicted: [UInt] = []
            var oldest = 0
            while total + bytes > limit {
                evicted.append(buffers[oldest].address)
                total -= buffers[oldest].bytes
                oldest += 1
            }
            if oldest > 0 { buffers.removeFirst(oldest) }
            buffers.append((address, bytes))
            total += bytes
            return evicted
        }

        mutating func removeAll() -> [UInt] {
            defer {
                buffers.removeAll()
                total = 0
            }
            return buffers.map(\.address)
        }
    }
}
