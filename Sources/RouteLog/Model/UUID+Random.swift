import Foundation

extension UUID {
    /// A random (version 4) UUID from the system's generator, in one call. On Linux
    /// `UUID()` opens, reads and closes /dev/urandom each time, three system calls in
    /// every save, and `SystemRandomNumberGenerator` takes one call for every 8 bytes.
    static func random() -> UUID {
        var value = RandomBytes.value(of: uuid_t.self)
        withUnsafeMutableBytes(of: &value) { bytes in
            bytes[6] = bytes[6] & 0x0F | 0x40  // version 4: random
            bytes[8] = bytes[8] & 0x3F | 0x80  // variant 1 (RFC 9562)
        }
        return UUID(uuid: value)
    }
}
