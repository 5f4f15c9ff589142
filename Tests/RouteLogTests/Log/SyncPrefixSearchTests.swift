import CRouteLogSystem
import RouteLogSamples
import Testing
@testable import RouteLog

/// `routelog_find_sync_prefix`, the vectorised search every payload read goes through
/// (for forged markers and for escapes), against a byte-by-byte search: buffers of every
/// length around its 32- and 64-byte steps, prefixes planted at every offset, and near misses.
@Suite struct SyncPrefixSearchTests {
    static let prefix = Array(FormatConstants.recordSync.prefix(3))

    /// The first offset where the marker's first three bytes start, byte by byte.
    static func naive(_ bytes: [UInt8]) -> Int {
        guard bytes.count >= 3 else { return bytes.count }
        for i in 0...(bytes.count - 3) where Array(bytes[i..<(i + 3)]) == prefix { return i }
        return bytes.count
    }

    /// The processor's search, checked against the 16-byte one on the same bytes.
    static func found(_ bytes: [UInt8]) -> Int {
        let wide = bytes.withUnsafeBytes { routelog_find_sync_prefix($0.baseAddress, $0.count) }
        let narrow = bytes.withUnsafeBytes { routelog_find_sync_prefix_portable($0.baseAddress, $0.count) }
        #expect(wide == narrow, "the two searches disagree on \(bytes.count) bytes")
        return wide
    }

    @Test func theSearchLooksForTheMarkersFirstThreeBytes() {
        #expect(Self.prefix == [0xAB, 0x52, 0x4C])
        #expect(Self.found(Self.prefix) == 0)
        #expect(Self.found([]) == 0)
        #expect(Self.found([0xAB, 0x52]) == 2)
    }

    @Test func aPrefixAtEveryOffsetOfEveryLengthIsFoundFirst() {
        var generator = SeededRandom(seed: 11)
        for length in 0...160 {
            // Filler that never forms the prefix: no 0xAB at all.
            let filler = (0..<length).map { _ in UInt8.random(in: 0...0xAA, using: &generator) }
            #expect(Self.found(filler) == length, "no prefix in \(length) bytes")
            guard length >= 3 else { continue }
            for at in 0...(length - 3) {
                var bytes = filler
                bytes.replaceSubrange(at..<(at + 3), with: Self.prefix)
                // A second one later must not win over the first.
                if at + 6 <= length { bytes.replaceSubrange((length - 3)..<length, with: Self.prefix) }
                #expect(Self.found(bytes) == at, "length \(length), prefix at \(at)")
            }
        }
    }

    @Test func nearMissesAndPrefixesCutByTheEndAreNotFound() {
        for length in 3...140 {
            for at in 0...(length - 2) {
                var bytes = [UInt8](repeating: 0x52, count: length)
                // Two of the three bytes: at the end (cut) or anywhere (a near miss).
                bytes[at] = 0xAB
                if at + 2 < length { bytes[at + 2] = 0x00 }
                #expect(Self.found(bytes) == length, "length \(length), near miss at \(at)")
            }
        }
    }

    @Test func randomBytesAgreeWithTheByteByByteSearch() {
        var generator = SeededRandom(seed: 12)
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...300, using: &generator)
            // A small alphabet makes prefixes and near misses common.
            let alphabet: [UInt8] = [0xAB, 0x52, 0x4C, 0x00]
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            #expect(Self.found(bytes) == Self.naive(bytes))
        }
    }
}
