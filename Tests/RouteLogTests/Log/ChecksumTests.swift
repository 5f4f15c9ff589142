import CRouteLogSystem
import Testing
@testable import RouteLog

@Suite struct ChecksumTests {
    @Test func knownVectors() {
        // RFC 3720 (iSCSI) B.4 and the common "123456789" check value of CRC-32C.
        #expect(Checksum.crc32c(Array("123456789".utf8)) == 0xE306_9283)
        #expect(Checksum.crc32c([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(Checksum.crc32c([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(Checksum.crc32c(Array(0..<32)) == 0x46DD_794E)
        #expect(Checksum.crc32c([]) == 0)
    }

    @Test func acceleratedMatchesPortableOnEveryLengthAndAlignment() {
        var g = SeededGenerator(state: 9)
        let data = (0..<9320).map { _ in UInt8.random(in: 0...255, using: &g) }
        data.withUnsafeBytes { raw in
            for start in 0..<9 {
                for length in [0, 1, 7, 8, 9, 63, 64, 65, 1000, 3071, 3072, 3073, 4090, 6144, 6151, 9300] {
                    let p = raw.baseAddress! + start
                    #expect(routelog_crc32c_extend(0, p, length) == routelog_crc32c_extend_portable(0, p, length))
                }
            }
        }
    }

    /// Long buffers go three blocks at a time (three chains of the crc32 instruction,
    /// joined): every length around those blocks and a seed carried in agree with the
    /// byte-at-a-time table.
    @Test func threeBlocksAtATimeMatchPortable() {
        var g = SeededGenerator(state: 10)
        let data = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &g) }
        data.withUnsafeBytes { raw in
            for length in stride(from: 3000, to: 70_000, by: 997) + [3 * 1024, 6 * 1024, 60 * 1024 + 5] {
                let seed = UInt32.random(in: 0...UInt32.max, using: &g)
                let p = raw.baseAddress! + length % 5
                #expect(routelog_crc32c_extend(seed, p, length) == routelog_crc32c_extend_portable(seed, p, length))
            }
        }
    }

    @Test func extendingInPiecesEqualsOneGo() {
        let data = Array("The quick brown fox jumps over the lazy dog".utf8)
        let whole = Checksum.crc32c(data)
        let first = Checksum.crc32c(Array(data[..<10]))
        #expect(Checksum.crc32c(Array(data[10...]), seed: first) == whole)
    }

    @Test func maskRoundTripsAndDiffers() {
        for crc: UInt32 in [0, 1, 0xFFFF_FFFF, 0xE306_9283] {
            #expect(Checksum.unmask(Checksum.mask(crc)) == crc)
            #expect(Checksum.mask(crc) != crc)
        }
    }

    /// The checksum of a range from two prefix checksums (format-spec.md, "Bounds on
    /// hostile files": how version 1 frames are checked), and long lengths.
    @Test func rangeFromPrefixes() {
        var g = SeededGenerator(seed: 11)
        let data = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &g) }
        for _ in 0..<200 {
            let a = Int.random(in: 0...data.count, using: &g), b = Int.random(in: a...data.count, using: &g)
            let direct = Checksum.crc32c(Array(data[a..<b]))
            let combined = Checksum.crc32c(Array(data[..<b])) ^ Checksum.shifted(Checksum.crc32c(Array(data[..<a])), by: b - a)
            #expect(direct == combined, "\(a)..<\(b)")
        }
        let zeros = [UInt8](repeating: 0, count: (8 << 20) + 1)
        let prefix: [UInt8] = [1, 2, 3]
        #expect(Checksum.crc32c(zeros, seed: Checksum.crc32c(prefix))
                == Checksum.crc32c(zeros) ^ Checksum.shifted(Checksum.crc32c(prefix), by: zeros.count))
    }
}
