import Foundation
import Testing
@testable import RouteLog

@Suite struct UUIDRandomTests {
    /// Every new uuid is a random one as RFC 9562 marks it (version 4, variant 1), its
    /// 122 other bits differ between uuids, and a saved route without one is given one.
    @Test func newUUIDsAreVersion4AndDistinct() throws {
        var seen = Set<UUID>()
        var ones = [Int](repeating: 0, count: 128)
        for _ in 0..<4_000 {
            let uuid = UUID.random()
            let b = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(b[6] >> 4 == 4, "version nibble of \(uuid)")
            #expect(b[8] >> 6 == 0b10, "variant bits of \(uuid)")
            #expect(uuid.uuidString.dropFirst(14).first == "4")
            seen.insert(uuid)
            for bit in 0..<128 where b[bit / 8] & (0x80 >> UInt8(bit % 8)) != 0 { ones[bit] += 1 }
        }
        #expect(seen.count == 4_000)
        // The random bits are each set about half the time (4,000 draws: 2,000 ± 300 is
        // over 9 standard deviations), the fixed ones always or never.
        let fixed: [Int: Int] = [48: 0, 49: 4_000, 50: 0, 51: 0, 64: 4_000, 65: 0]
        for bit in 0..<128 {
            if let count = fixed[bit] {
                #expect(ones[bit] == count, "bit \(bit)")
            } else {
                #expect((1_700...2_300).contains(ones[bit]), "bit \(bit) set \(ones[bit]) times")
            }
        }
        let metadata = RouteMetadata().withUUID()
        #expect(metadata.uuid.map { withUnsafeBytes(of: $0.uuid) { $0[6] >> 4 } } == 4)
    }
}
