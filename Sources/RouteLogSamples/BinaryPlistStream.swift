import Foundation

/// Writes a binary property list (`bplist00`) straight to a file, one object at a
/// time, so that an archive of millions of objects (or one forged to name the same
/// object a million times) is made without holding it in memory: only each object's
/// offset is kept, 8 bytes an object.
///
/// The caller numbers the objects: object `n` is the `n`-th one written, and
/// references name objects by number, written or not yet. `objectCount` is declared
/// first because it sets the width of every reference.
public struct BinaryPlistStream {
    private let handle: FileHandle
    private var buffer = Data()
    private var offsets: [UInt64] = []
    private var position: UInt64 = 0
    private let objectCount: Int
    private let referenceSize: Int

    /// Starts the file at `url` (replacing it) for `objectCount` objects.
    public init(url: URL, objectCount: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        handle = try FileHandle(forWritingTo: url)
        self.objectCount = objectCount
        referenceSize = objectCount < 1 << 8 ? 1 : objectCount < 1 << 16 ? 2 : 4
        offsets.reserveCapacity(objectCount)
        append(Data("bplist00".utf8))
    }

    private mutating func append(_ bytes: Data) {
        buffer.append(bytes)
        position += UInt64(bytes.count)
        if buffer.count >= 1 << 20 { flush() }
    }

    /// A big-endian integer, byte by byte (no allocation: references are most of a file).
    private mutating func append(_ value: UInt64, width: Int) {
        for shift in stride(from: 8 * (width - 1), through: 0, by: -8) {
            buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
        position += UInt64(width)
        if buffer.count >= 1 << 20 { flush() }
    }

    private mutating func flush() {
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private static func bigEndian(_ value: UInt64, width: Int) -> Data {
        Data((0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) })
    }

    private mutating func begin() {
        precondition(offsets.count < objectCount, "more objects than declared")
        offsets.append(position)
    }

    /// A marker with its count: in the low nibble, or 0xF and an integer after it.
    private mutating func marker(_ type: UInt8, count: Int) {
        if count < 15 {
            append(Data([type << 4 | UInt8(count)]))
        } else {
            append(Data([type << 4 | 0xF, 0x13]) + Self.bigEndian(UInt64(count), width: 8))
        }
    }

    /// The next object: an ASCII string.
    public mutating func string(_ text: String) {
        begin()
        precondition(text.utf8.allSatisfy { $0 < 0x80 })
        marker(0x5, count: text.utf8.count)
        append(Data(text.utf8))
    }

    /// The next object: a 64-bit integer.
    public mutating func integer(_ value: Int64) {
        begin()
        append(Data([0x13]) + Self.bigEndian(UInt64(bitPattern: value), width: 8))
    }

    /// The next object: a 64-bit real.
    public mutating func real(_ value: Double) {
        begin()
        append(Data([0x23]) + Self.bigEndian(value.bitPattern, width: 8))
    }

    /// The next object: a keyed-archive UID.
    public mutating func uid(_ value: Int) {
        begin()
        append(Data([0x83]) + Self.bigEndian(UInt64(value), width: 4))
    }

    /// The next object: an array of `count` references, produced in order by `references`.
    public mutating func array(count: Int, _ references: (Int) -> Int) {
        begin()
        marker(0xA, count: count)
        for i in 0..<count { append(UInt64(references(i)), width: referenceSize) }
    }

    /// The next object: a dictionary of key and value references.
    public mutating func dictionary(_ pairs: [(key: Int, value: Int)]) {
        begin()
        marker(0xD, count: pairs.count)
        for pair in pairs { append(UInt64(pair.key), width: referenceSize) }
        for pair in pairs { append(UInt64(pair.value), width: referenceSize) }
    }

    /// Writes the offset table and the trailer naming `top`, and closes the file.
    public mutating func finish(top: Int) throws {
        precondition(offsets.count == objectCount, "\(offsets.count) objects written of \(objectCount) declared")
        let table = position
        for offset in offsets { append(offset, width: 8) }
        append(Data(repeating: 0, count: 6) + Data([8, UInt8(referenceSize)])
                   + Self.bigEndian(UInt64(objectCount), width: 8) + Self.bigEndian(UInt64(top), width: 8)
                   + Self.bigEndian(table, width: 8))
        flush()
        try handle.close()
    }
}
