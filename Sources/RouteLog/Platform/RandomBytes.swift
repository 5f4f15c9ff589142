import CRouteLogSystem

/// Secure random bytes from the system, as many as asked in one call
/// (`routelog_random_bytes`: getrandom on Linux, arc4random_buf on Darwin), where
/// `SystemRandomNumberGenerator` makes one call for every eight.
enum RandomBytes {
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, routelog_random_bytes(base, buffer.count) != 0 else { return }
        // The system gave nothing (a seccomp filter, a kernel without the call): the
        // standard library's generator, which has its own fallbacks, eight bytes a call.
        var generator = SystemRandomNumberGenerator()
        var offset = 0
        while offset < buffer.count {
            let word = generator.next() as UInt64
            withUnsafeBytes(of: word) { bytes in
                for byte in bytes.prefix(buffer.count - offset) {
                    buffer[offset] = byte
                    offset += 1
                }
            }
        }
    }

    /// A random value of a trivial type (an integer, a tuple of them).
    static func value<T: BitwiseCopyable>(of type: T.Type = T.self) -> T {
        withUnsafeTemporaryAllocation(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment) { bytes in
            fill(bytes)
            return bytes.load(as: T.self)
        }
    }
}
