import Foundation

extension UUID {
    /// A random (version 4) UUID from the system's generator. On Linux `UUID()` opens,
    /// reads and closes /dev/urandom each time, three system calls in every save; the
    /// system generator is one call (getrandom) with no file.
    static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var value = (generator.next() as UInt64, generator.next() as UInt64)
        withUnsafeMutableBytes(of: &value) { bytes in
            bytes[6] = bytes[6] & 0x0F | 0x40  // version 4: random
            bytes[8] = bytes[8] & 0x3F | 0x80  // variant 1 (RFC 9562)
        }
        return withUnsafeBytes(of: value) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }
}
