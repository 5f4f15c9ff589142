import Dispatch
import Foundation
import Testing
@testable import RouteLog

/// The shelf that keeps a save's and a load's working memory for the next one
/// (`ScratchMemory`): sizes rounded to classes, buffers handed back out, bounds kept, and
/// no buffer ever in two hands at once. Each test has its own shelf: the shared one is
/// in use by every other test running beside it.
@Suite struct ScratchShelfTests {
    @Test func sizeClassesAreAtMostAQuarterLarger() {
        var previous = 0
        for bytes in Array(1...5_000) + stride(from: 5_000, through: 3_000_000, by: 997).map({ $0 }) {
            let c = ScratchShelf.byteClass(bytes)
            #expect(c >= bytes)
            #expect(c >= previous, "classes grow with the size asked for")
            if bytes > 64 { #expect(Double(c) < 1.25 * Double(bytes), "\(bytes) became \(c)") }
            #expect(ScratchShelf.byteClass(c) == c, "a class is its own class")
            previous = c
        }
        // 3,600 values of 8 bytes, and 3,700: one class, so routes of nearby lengths share buffers.
        #expect(ScratchShelf.byteClass(28_800) == 32_768)
        #expect(ScratchShelf.byteClass(29_600) == 32_768)
        #expect(ScratchShelf.byteClass(28_672) == 28_672)
    }

    @Test func aBufferGivenBackIsTheNextOneOfItsClass() {
        let shelf = ScratchShelf(largestKept: 1 << 20, shelfBytes: 2 << 20)
        let first = shelf.take(Int64.self, count: 3_600)
        first.initialize(repeating: 7, count: 3_600)
        shelf.give(first, count: 3_600)
        #expect(shelf.shelved.buffers == 1 && shelf.shelved.bytes == 32_768)
        // Another type and a nearby count of the same class: the same memory, rebound.
        let second = shelf.take(Double.self, count: 3_700)
        #expect(UnsafeMutableRawPointer(second) == UnsafeMutableRawPointer(first))
        #expect(shelf.shelved.buffers == 0 && shelf.shelved.bytes == 0)
        second.initialize(repeating: 1.5, count: 3_700)
        #expect(second[3_699] == 1.5)
        // A different class is not handed that buffer.
        shelf.give(second, count: 3_700)
        let other = shelf.take(Int64.self, count: 10_000)
        #expect(UnsafeMutableRawPointer(other) != UnsafeMutableRawPointer(second))
        #expect(shelf.shelved.buffers == 1)
        shelf.give(other, count: 10_000)
        #expect(shelf.shelved.buffers == 2)
        shelf.drain()
        #expect(shelf.shelved.buffers == 0 && shelf.shelved.bytes == 0)
    }

    @Test func theShelfKeepsWithinItsBounds() {
        let shelf = ScratchShelf(largestKept: 64 << 10, shelfBytes: 128 << 10)
        // Ten buffers of 32 KiB: four fit, the rest go back to the system.
        let buffers = (0..<10).map { _ in shelf.take(UInt8.self, count: 32 << 10) }
        #expect(Set(buffers.map { UInt(bitPattern: $0) }).count == 10)
        for b in buffers { shelf.give(b, count: 32 << 10) }
        #expect(shelf.shelved.buffers == 4 && shelf.shelved.bytes == 128 << 10)
        shelf.drain()
        // Past the largest kept, and below the smallest: never shelved.
        let large = shelf.take(UInt8.self, count: 100 << 10)
        shelf.give(large, count: 100 << 10)
        let small = shelf.take(Int64.self, count: 100)
        shelf.give(small, count: 100)
        #expect(shelf.shelved.buffers == 0 && shelf.shelved.bytes == 0)
    }

    /// A long route's large buffers, shelved after its save, give way to the buffers of
    /// the ordinary saves after it, oldest first, instead of filling the shelf for good.
    @Test func largeBuffersGiveWayToTheNextOnes() {
        let shelf = ScratchShelf(largestKept: 1 << 20, shelfBytes: 2 << 20)
        let large = (0..<3).map { _ in shelf.take(UInt8.self, count: 600_000) }  // the 640 KiB class
        for b in large { shelf.give(b, count: 600_000) }
        #expect(shelf.shelved.buffers == 3 && shelf.shelved.bytes == 3 * 655_360)
        // An ordinary save's columns: 3,600 values of 8 bytes, eighteen of them.
        let ordinary = (0..<18).map { _ in shelf.take(Int64.self, count: 3_600) }
        #expect(shelf.shelved.buffers == 3, "no large buffer serves a small request")
        for b in ordinary { shelf.give(b, count: 3_600) }
        // 18 × 32 KiB = 576 KiB: one 640 KiB buffer, the oldest, made room.
        #expect(shelf.shelved.bytes == 2 * 655_360 + 18 * 32_768, "\(shelf.shelved)")
        #expect(shelf.shelved.buffers == 20)
        let again = (0..<18).map { _ in shelf.take(Int64.self, count: 3_600) }
        #expect(Set(again.map { UInt(bitPattern: $0) }) == Set(ordinary.map { UInt(bitPattern: $0) }),
                "the next save is served from the shelf")
        for b in again { shelf.give(b, count: 3_600) }
        // A buffer larger than the shelf itself is never kept, and evicts nothing.
        let huge = ScratchShelf(largestKept: 1 << 20, shelfBytes: 64 << 10)
        let h = huge.take(UInt8.self, count: 100 << 10)
        let small = huge.take(UInt8.self, count: 8 << 10)
        huge.give(small, count: 8 << 10)
        huge.give(h, count: 100 << 10)
        #expect(huge.shelved.buffers == 1 && huge.shelved.bytes == 8 << 10)
    }

    /// The shelf is drained when its last user (an open store) goes, not when any does.
    @Test func theLastUserToGoDrainsTheShelf() {
        let shelf = ScratchShelf(largestKept: 1 << 20, shelfBytes: 2 << 20)
        shelf.userOpened()
        shelf.userOpened()
        shelf.give(shelf.take(Int64.self, count: 3_600), count: 3_600)
        shelf.userClosed()
        #expect(shelf.shelved.buffers == 1, "another user is still there")
        shelf.userClosed()
        #expect(shelf.shelved.buffers == 0 && shelf.shelved.bytes == 0)
    }

    /// Threads take buffers of a few classes, fill each with their own pattern, yield,
    /// check the pattern is still theirs, and give the buffer back: a buffer handed to
    /// two threads at once would show the other's pattern.
    @Test func noBufferIsInTwoHandsAtOnce() {
        let shelf = ScratchShelf(largestKept: 1 << 20, shelfBytes: 256 << 10)
        let counts = [600, 1_000, 3_600, 4_000, 9_000]
        let clashes = StateLock(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var g = SystemRandomNumberGenerator()
            for round in 0..<1_500 {
                let count = counts.randomElement(using: &g)!
                let p = shelf.take(UInt64.self, count: count)
                let mark = UInt64(thread) << 32 | UInt64(round)
                p.initialize(repeating: mark, count: count)
                if round % 7 == 0 { sched_yield() }
                var intact = true
                for i in stride(from: 0, to: count, by: 97) where p[i] != mark { intact = false }
                if p[count - 1] != mark { intact = false }
                if !intact { clashes.withLock { $0 += 1 } }
                shelf.give(p, count: count)
            }
        }
        #expect(clashes.withLock { $0 } == 0)
        #expect(shelf.shelved.bytes <= 256 << 10)
        #expect(shelf.shelved.buffers >= 1, "buffers were given back to be kept")
    }

    /// Saves and loads go through the shared shelf; what they load is what they saved,
    /// from many threads at once, and the shelf stays within its bound.
    @Test func savesAndLoadsFromManyThreadsShareTheShelf() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scratch-shelf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"), options: .init(durability: .buffered))
        defer { try? store.close() }
        let failures = StateLock<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                for k in 0..<12 {
                    // Lengths either side of class edges, and one past the largest shelved buffer.
                    let n = [1, 511, 512, 3_600, 4_097, 140_000][(thread + k) % 6]
                    let route = Self.route(points: n, seed: thread * 100 + k)
                    let id = try store.save(route)
                    let back = try store.route(id)
                    let expected = route.points.map { Quantization.degrees(Quantization.degrees($0.latitude) as Int64) }
                    if back.points.map(\.latitude) != expected {
                        failures.withLock { $0.append("thread \(thread) route \(k): \(back.points.count) points") }
                    }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(ScratchMemory.shared.shelved.bytes <= ScratchMemory.shared.shelfBytes)
    }

    static func route(points n: Int, seed: Int) -> Route {
        let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(seed) * 100_000)
        let origin = 45 + Double(seed) * 1e-3
        let points = (0..<n).map { (i: Int) -> TrackPoint in
            let latitude: Double = origin + Double(i) * 1e-5
            let longitude: Double = 9 + Double(i % 100) * 2e-5
            let altitude: Double? = i % 3 == 0 ? nil : 100 + Double(i % 50)
            return TrackPoint(latitude: latitude, longitude: longitude, timestamp: start.addingTimeInterval(Double(i)),
                              altitude: altitude)
        }
        return Route(points: points)
    }
}
