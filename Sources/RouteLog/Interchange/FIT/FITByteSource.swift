import Foundation

/// The bytes of a FIT file read front to back in 64 KiB chunks, so memory stays
/// bounded whatever the file's size. Every byte taken goes into the running CRC.
///
/// The length is known before reading (the file's size, or the data's count), so the
/// decoder checks every length a file claims against what is really there before it
/// takes a byte.
struct FITByteSource {
    /// Bytes in the whole input.
    let length: Int64
    /// Offset of the next byte to take.
    private(set) var offset: Int64 = 0
    /// The CRC of the bytes taken since it was last reset.
    var crc = FITCRC()
    private var buffer: [UInt8] = []
    private var position = 0
    private let nextChunk: (Int) throws -> [UInt8]

    static let chunkSize = 65_536

    /// Raised when the input delivers fewer bytes than its length promised (a file
    /// cut short while it was being read).
    struct ShortRead: Error {}

    init(data: Data) {
        length = Int64(data.count)
        var cursor = data.startIndex
        nextChunk = { want in
            let end = data.index(cursor, offsetBy: min(want, data.endIndex - cursor))
            defer { cursor = end }
            return [UInt8](data[cursor..<end])
        }
    }

    /// Reads `handle` from its current position; `length` is the file's size.
    init(handle: FileHandle, length: Int64) {
        self.length = length
        nextChunk = { want in
            guard let data = try handle.read(upToCount: want) else { return [] }
            return [UInt8](data)
        }
    }

    /// Bytes from ``offset`` to the end of the input.
    var remaining: Int64 { length - offset }

    /// The next `count` bytes, as a fresh array (the decoder keeps none of them long).
    /// - Throws: ``ShortRead`` when the input ends first.
    mutating func take(_ count: Int) throws -> [UInt8] {
        if buffer.count - position < count { try refill(count) }
        let bytes = Array(buffer[position..<(position + count)])
        position += count
        offset += Int64(count)
        crc.update(bytes)
        return bytes
    }

    /// The next byte.
    mutating func takeByte() throws -> UInt8 {
        if position == buffer.count { try refill(1) }
        let byte = buffer[position]
        position += 1
        offset += 1
        crc.update(byte)
        return byte
    }

    private mutating func refill(_ count: Int) throws {
        buffer.removeSubrange(0..<position)
        position = 0
        while buffer.count < count {
            let more = try nextChunk(max(Self.chunkSize, count - buffer.count))
            if more.isEmpty { throw ShortRead() }
            buffer += more
        }
    }
}
