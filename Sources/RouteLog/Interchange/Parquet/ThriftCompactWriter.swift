/// Writes Thrift's compact protocol: the encoding of a Parquet file's footer and page
/// headers. Only what those structures use: structs (and unions, which are structs with
/// one field), i32, i64, bool, double, binary and lists.
///
/// A field is a header byte holding the id's distance from the previous field of the
/// same struct (1 to 15) and the type, or the type alone followed by the id as a zigzag
/// varint; a struct ends with a stop byte (0). Integers are zigzag varints; a bool field
/// carries its value in the type.
struct ThriftCompactWriter {
    /// The compact protocol's type codes.
    enum FieldType: UInt8 {
        case boolTrue = 1, boolFalse = 2, byte = 3, i16 = 4, i32 = 5, i64 = 6, double = 7
        case binary = 8, list = 9, set = 10, map = 11, structure = 12
    }

    private(set) var bytes: [UInt8] = []
    /// The last field id written in the struct being written, and in the structs around it.
    private var lastFieldID: Int16 = 0
    private var enclosing: [Int16] = []

    init() {}

    // MARK: Fields

    mutating func i16(_ id: Int16, _ value: Int16) {
        fieldHeader(id, .i16)
        varint(zigzag(Int64(value)))
    }

    mutating func i32(_ id: Int16, _ value: Int32) {
        fieldHeader(id, .i32)
        varint(zigzag(Int64(value)))
    }

    mutating func i64(_ id: Int16, _ value: Int64) {
        fieldHeader(id, .i64)
        varint(zigzag(value))
    }

    mutating func bool(_ id: Int16, _ value: Bool) {
        fieldHeader(id, value ? .boolTrue : .boolFalse)
    }

    mutating func double(_ id: Int16, _ value: Double) {
        fieldHeader(id, .double)
        var bits = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    mutating func binary(_ id: Int16, _ value: [UInt8]) {
        fieldHeader(id, .binary)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ id: Int16, _ value: String) { binary(id, Array(value.utf8)) }

    /// A struct field whose fields `body` writes.
    mutating func structure(_ id: Int16, _ body: (inout ThriftCompactWriter) -> Void) {
        fieldHeader(id, .structure)
        structBody(body)
    }

    /// A list of i32 (enum values, for instance).
    mutating func list(_ id: Int16, i32 values: [Int32]) {
        fieldHeader(id, .list)
        listHeader(values.count, .i32)
        for value in values { varint(zigzag(Int64(value))) }
    }

    /// A list of strings.
    mutating func list(_ id: Int16, strings values: [String]) {
        fieldHeader(id, .list)
        listHeader(values.count, .binary)
        for value in values {
            let utf8 = Array(value.utf8)
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A list of structs; `body` writes the fields of element `index`.
    mutating func list(_ id: Int16, structs count: Int, _ body: (inout ThriftCompactWriter, Int) -> Void) {
        fieldHeader(id, .list)
        listHeader(count, .structure)
        for index in 0..<count { structBody { body(&$0, index) } }
    }

    /// Ends the outermost struct (a footer or a page header is one struct).
    mutating func stop() { bytes.append(0) }

    // MARK: Encoding

    private mutating func structBody(_ body: (inout ThriftCompactWriter) -> Void) {
        enclosing.append(lastFieldID)
        lastFieldID = 0
        body(&self)
        bytes.append(0)
        lastFieldID = enclosing.removeLast()
    }

    private mutating func fieldHeader(_ id: Int16, _ type: FieldType) {
        let delta = Int(id) - Int(lastFieldID)
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type.rawValue)
        } else {
            bytes.append(type.rawValue)
            varint(zigzag(Int64(id)))
        }
        lastFieldID = id
    }

    private mutating func listHeader(_ count: Int, _ element: FieldType) {
        if count < 15 {
            bytes.append(UInt8(count) << 4 | element.rawValue)
        } else {
            bytes.append(0xF0 | element.rawValue)
            varint(UInt64(count))
        }
    }

    private mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    private func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}
