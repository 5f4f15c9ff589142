import Foundation

/// A binary property list (`bplist00`, what NSKeyedArchiver writes) read in place:
/// objects are decoded one at a time, when asked for, straight from the file's bytes.
///
/// Foundation's `PropertyListSerialization` builds every object of the file at once,
/// and an array that names one object a million times becomes a million objects: a
/// 10 MB archive took 2 GB. Here nothing is built that is not asked for, and every
/// length, count and offset is checked against the file before it is used, so a
/// forged file costs no more than the bytes it has.
///
/// Layout (Apple's CFBinaryPList.c describes it): the header `bplist00`; the objects,
/// each a marker byte (high nibble the type, low nibble a size or 0xF and a following
/// integer object holding it); a table of each object's offset; and a 32-byte trailer
/// giving the offset table's entry size, the size of object references, the number of
/// objects, the top object and where the offset table starts.
struct BinaryPropertyList {
    /// One decoded object; containers hold references, decoded only when followed.
    enum Object: Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        /// Seconds since 2001-01-01T00:00:00Z.
        case date(Double)
        case data(Range<Int>)
        /// A string's bytes, with how they encode it.
        case string(Range<Int>, StringEncoding)
        /// An NSKeyedArchiver reference: an index into `$objects`.
        case uid(Int)
        case array(References)
        case dictionary(keys: References, values: References)
        /// Sets and anything else RouteLog has no use for.
        case other
    }

    enum StringEncoding: Equatable { case ascii, utf16BigEndian, utf8 }

    /// `count` object references of `size` bytes from byte `start`.
    struct References: Equatable {
        let start: Int
        let count: Int
        let size: Int
    }

    let file: MappedBytes
    let source: String
    private let offsetSize: Int
    private let referenceSize: Int
    let objectCount: Int
    let topObject: Int
    private let offsetTable: Int

    private var bytes: UnsafeRawBufferPointer { file.bytes }

    /// Checks the header and trailer against the file's size.
    /// - Throws: `.invalidArgument` when the bytes are not a binary property list.
    init(_ file: MappedBytes, source: String) throws {
        self.file = file
        self.source = source
        let size = file.bytes.count
        guard size >= 40, file.bytes.starts(with: Array("bplist00".utf8)) else {
            throw RouteLogError(.invalidArgument, "not a binary property list", path: source)
        }
        let trailer = size - 32
        func trailerInt(_ at: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(file.bytes[trailer + at + $1]) }
        }
        offsetSize = Int(file.bytes[trailer + 6])
        referenceSize = Int(file.bytes[trailer + 7])
        let count = trailerInt(8), top = trailerInt(16), table = trailerInt(24)
        guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize),
              table >= 9, table <= UInt64(trailer), count >= 1,
              count <= (UInt64(trailer) - table) / UInt64(offsetSize), top < count else {
            throw RouteLogError(.invalidArgument, "a damaged binary property list: its trailer names "
                                    + "\(count) objects and an offset table at \(table) that do not fit its \(size) bytes",
                                path: source)
        }
        objectCount = Int(count)
        topObject = Int(top)
        offsetTable = Int(table)
    }

    func damaged(_ what: String, at offset: Int) -> RouteLogError {
        RouteLogError(.invalidArgument, "a damaged binary property list: \(what)", path: source, offset: Int64(offset))
    }

    /// A big-endian unsigned integer of `width` bytes (at most 8). Every reference and
    /// offset goes through here, so the usual widths are single loads.
    private func unsigned(at offset: Int, width: Int) -> UInt64 {
        let bytes = self.bytes
        switch width {
        case 1: return UInt64(bytes[offset])
        case 2: return UInt64(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            var value: UInt64 = 0
            for i in 0..<width { value = value << 8 | UInt64(bytes[offset + i]) }
            return value
        }
    }

    /// Reference `index` of `references`, checked to name an object of the file.
    func reference(_ references: References, _ index: Int) throws -> Int {
        precondition((0..<references.count).contains(index))
        let at = references.start + index * references.size
        let value = unsigned(at: at, width: references.size)
        guard value < UInt64(objectCount) else { throw damaged("a reference to object \(value) of \(objectCount)", at: at) }
        return Int(value)
    }

    /// Where object `index` starts, as its offset table says; nil when it names no
    /// object or a place outside the objects.
    func offset(of index: Int) -> Int? {
        guard (0..<objectCount).contains(index) else { return nil }
        let offset = unsigned(at: offsetTable + index * offsetSize, width: offsetSize)
        return offset >= 8 && offset < UInt64(offsetTable) ? Int(offset) : nil
    }

    /// Object `index`, decoded.
    func object(_ index: Int) throws -> Object {
        guard (0..<objectCount).contains(index) else { throw damaged("no object \(index)", at: offsetTable) }
        let entry = offsetTable + index * offsetSize
        let offset64 = unsigned(at: entry, width: offsetSize)
        guard offset64 >= 8, offset64 < UInt64(offsetTable) else {
            throw damaged("object \(index) starts at \(offset64), outside the objects", at: entry)
        }
        let offset = Int(offset64)
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: return .other
            }
        case 0x1:
            guard low <= 3, fits(offset + 1, 1 << low) else { return .other }
            let value = unsigned(at: offset + 1, width: 1 << low)
            return .integer(low == 3 ? Int64(bitPattern: value) : Int64(value))
        case 0x2:
            guard low == 2 || low == 3, fits(offset + 1, 1 << low) else { throw damaged("a real of \(1 << low) bytes", at: offset) }
            let bits = unsigned(at: offset + 1, width: 1 << low)
            return .real(low == 3 ? Double(bitPattern: bits) : Double(Float(bitPattern: UInt32(bits))))
        case 0x3:
            guard marker == 0x33, fits(offset + 1, 8) else { throw damaged("a date that is not 8 bytes", at: offset) }
            return .date(Double(bitPattern: unsigned(at: offset + 1, width: 8)))
        case 0x4, 0x5, 0x6, 0x7:
            let (count, start) = try length(offset, low)
            let unit = marker >> 4 == 0x6 ? 2 : 1
            guard count <= (offsetTable - start) / unit else { throw damaged("\(count) bytes past the objects", at: offset) }
            let range = start..<start + count * unit
            switch marker >> 4 {
            case 0x4: return .data(range)
            case 0x5: return .string(range, .ascii)
            case 0x6: return .string(range, .utf16BigEndian)
            default: return .string(range, .utf8)
            }
        case 0x8:
            guard fits(offset + 1, low + 1), low < 8 else { throw damaged("a UID of \(low + 1) bytes", at: offset) }
            let value = unsigned(at: offset + 1, width: low + 1)
            guard value <= UInt64(Int.max) else { throw damaged("a UID past any index", at: offset) }
            return .uid(Int(value))
        case 0xA, 0xD:
            let (count, start) = try length(offset, low)
            let per = marker >> 4 == 0xD ? 2 * referenceSize : referenceSize
            guard count <= (offsetTable - start) / per else {
                throw damaged("a container of \(count) entries past the objects", at: offset)
            }
            let first = References(start: start, count: count, size: referenceSize)
            guard marker >> 4 == 0xD else { return .array(first) }
            return .dictionary(keys: first, values: References(start: start + count * referenceSize, count: count,
                                                               size: referenceSize))
        default:
            return .other
        }
    }

    private func fits(_ start: Int, _ count: Int) -> Bool { start <= offsetTable && count <= offsetTable - start }

    /// The count in a marker's low nibble, or in the integer object after it (0xF).
    private func length(_ offset: Int, _ low: Int) throws -> (count: Int, start: Int) {
        guard low == 0xF else { return (low, offset + 1) }
        guard fits(offset + 1, 1) else { throw damaged("a count past the objects", at: offset) }
        let intMarker = bytes[offset + 1]
        let width = 1 << Int(intMarker & 0x0F)
        guard intMarker >> 4 == 0x1, width <= 8, fits(offset + 2, width) else {
            throw damaged("a count that is not an integer", at: offset)
        }
        let count = unsigned(at: offset + 2, width: width)
        guard count <= UInt64(offsetTable) else { throw damaged("a count of \(count)", at: offset) }
        return (Int(count), offset + 2 + width)
    }

    /// The text of a string object.
    func text(_ range: Range<Int>, _ encoding: StringEncoding) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[range])
        switch encoding {
        case .ascii, .utf8:
            return String(decoding: slice, as: UTF8.self)
        case .utf16BigEndian:
            let units = stride(from: 0, to: slice.count, by: 2).map { UInt16(slice[$0]) << 8 | UInt16(slice[$0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        }
    }

    /// Whether a string object's text is exactly `ascii`, without building it.
    func text(_ range: Range<Int>, _ encoding: StringEncoding, equals ascii: [UInt8]) -> Bool {
        switch encoding {
        case .ascii, .utf8:
            guard range.count == ascii.count else { return false }
            return zip(range, ascii).allSatisfy { bytes[$0] == $1 }
        case .utf16BigEndian:
            guard range.count == 2 * ascii.count else { return false }
            return ascii.indices.allSatisfy { bytes[range.lowerBound + 2 * $0] == 0 && bytes[range.lowerBound + 2 * $0 + 1] == ascii[$0] }
        }
    }
}
