#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CRouteLogSystem
import Testing

/// `routelog_prepare_for_writing`, which a load calls on its new points: on Linux it
/// makes the pages wholly inside a large buffer present (those the process lacks) and
/// nothing else; everywhere the buffer's bytes stay as they were.
@Suite struct PrepareForWritingTests {
    static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// A fresh private anonymous mapping of `pages` pages: none of them present yet.
    /// Huge pages are turned off for it (MADV_NOHUGEPAGE, 15, on Linux): where they are
    /// on for every mapping, a fault could bring in a block of pages around the one asked
    /// for, and the pages around the buffer would not stay absent.
    static func freshMapping(pages: Int) -> UnsafeMutableRawPointer {
        let p = mmap(nil, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        precondition(p != MAP_FAILED)
        #if os(Linux)
        _ = madvise(p, pages * page, 15)
        #endif
        return p
    }

    /// Whether this kernel fills pages on request (MADV_POPULATE_WRITE, 23, Linux 5.14
    /// on): without it the function promises nothing but unchanged bytes.
    static let kernelPopulates: Bool = {
        #if os(Linux)
        let p = freshMapping(pages: 1)
        defer { munmap(p, page) }
        return madvise(p, page, 23) == 0
        #else
        return false
        #endif
    }()

    /// Whether each page of the mapping is present.
    static func present(_ p: UnsafeMutableRawPointer, pages: Int) -> [Bool] {
        var vector = [UInt8](repeating: 0, count: pages)
        #if canImport(Glibc)
        precondition(mincore(p, pages * page, &vector) == 0)
        #else
        vector.withUnsafeMutableBufferPointer { v in
            v.withMemoryRebound(to: CChar.self) { precondition(mincore(p, pages * page, $0.baseAddress) == 0) }
        }
        #endif
        return vector.map { $0 & 1 == 1 }
    }

    @Test func thePagesWhollyInsideALargeBufferArePresentAndNoOthers() throws {
        let pages = 64
        let p = Self.freshMapping(pages: pages)
        defer { munmap(p, pages * Self.page) }
        #expect(Self.present(p, pages: pages).allSatisfy { !$0 }, "a fresh mapping has no page yet")
        // From the middle of page 2 to the middle of page 40: pages 3...39 are inside.
        let start = 2 * Self.page + Self.page / 2, end = 40 * Self.page + 100
        routelog_prepare_for_writing(p + start, end - start)
        let present = Self.present(p, pages: pages)
        if Self.kernelPopulates {
            #expect(Array(present[3...39]).allSatisfy { $0 }, "every page wholly inside is present")
        } else {
            #expect(present[3...39].allSatisfy { !$0 }, "nothing is done without MADV_POPULATE_WRITE")
        }
        #expect(!present[2] && !present[40], "pages only partly inside are left to fault in")
        #expect(Array(present[0...1] + present[41...]).allSatisfy { !$0 }, "no page outside the buffer")
        // And the memory reads as it was: zeros.
        let bytes = UnsafeRawBufferPointer(start: p + start, count: end - start)
        #expect(bytes.allSatisfy { $0 == 0 })
    }

    @Test func writtenPagesKeepTheirBytesAndMissingOnesBetweenThemComeIn() throws {
        let pages = 40
        let p = Self.freshMapping(pages: pages)
        defer { munmap(p, pages * Self.page) }
        // Every other run of pages written: the buffer is partly present.
        for i in 0..<pages where (i / 3) % 2 == 0 {
            (p + i * Self.page).initializeMemory(as: UInt8.self, repeating: UInt8(truncatingIfNeeded: i &* 37 &+ 1), count: Self.page)
        }
        routelog_prepare_for_writing(p, pages * Self.page)
        if Self.kernelPopulates { #expect(Self.present(p, pages: pages).allSatisfy { $0 }) }
        for i in 0..<pages {
            let expected: UInt8 = (i / 3) % 2 == 0 ? UInt8(truncatingIfNeeded: i &* 37 &+ 1) : 0
            let pageBytes = UnsafeRawBufferPointer(start: p + i * Self.page, count: Self.page)
            #expect(pageBytes.allSatisfy { $0 == expected }, "page \(i)")
        }
    }

    @Test func aSmallBufferIsLeftAlone() {
        let pages = Int(ROUTELOG_PREPARE_FOR_WRITING_MINIMUM) / Self.page + 4
        let p = Self.freshMapping(pages: pages)
        defer { munmap(p, pages * Self.page) }
        routelog_prepare_for_writing(p, Int(ROUTELOG_PREPARE_FOR_WRITING_MINIMUM) - 1)
        #expect(Self.present(p, pages: pages).allSatisfy { !$0 })
        routelog_prepare_for_writing(p, 0)
        routelog_prepare_for_writing(p + 1, Self.page)  // no whole page inside
        #expect(Self.present(p, pages: pages).allSatisfy { !$0 })
    }
}
