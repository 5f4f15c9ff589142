/// Little-endian loads of the format's fixed-width numbers from raw bytes, for the
/// readers that walk fixed-width tables in place (an IndexPutRun's entries) instead of
/// through a ``ByteReader``. The caller checks that the bytes are there.
extension UnsafeRawBufferPointer {
    func u16(at offset: Int) -> UInt16 { UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    func u32(at offset: Int) -> UInt32 { UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    func u64(at offset: Int) -> UInt64 { UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    func i32(at offset: Int) -> Int32 { Int32(bitPattern: u32(at: offset)) }
    func i64(at offset: Int) -> Int64 { Int64(bitPattern: u64(at: offset)) }
    func f64(at offset: Int) -> Double { Double(bitPattern: u64(at: offset)) }

    /// Throws unless `size` bytes lie at `offset`: what a fixed-width reader checks
    /// before its loads.
    /// - Throws: ByteReader.Malformed at `offset`.
    @inline(__always)
    func need(_ size: Int, at offset: Int) throws {
        guard offset >= 0, count - offset >= size else {
            throw ByteReader.Malformed(reason: "needs \(size) bytes, \(count - offset) left", offset: offset)
        }
    }
}
