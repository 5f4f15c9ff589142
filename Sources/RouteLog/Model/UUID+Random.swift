import Foundation

extension UUID {
    /// A random (version 4) UUID from the system's generator. On Linux `UUID()` opens,
    /// reads and closes /dev/urandom each time, three system calls in every save; the
    /// system generator is one call (getrandom) with no file.
    static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        let random = (generator.next(), generator.next())
        var bytes = withUnsafeBytes(of: random) { [UInt8]($0) }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4: random
        bytes[8] = bytes[8] & 0x3F | 0x80  // variant 1 (RFC 9562)
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
