/// One field of a definition message: which field, how many bytes, which base type,
/// and where its bytes start in the data messages it describes.
struct FITFieldDefinition: Equatable {
    var number: UInt8
    var size: Int
    var baseType: FITBaseType
    var offset: Int
}

/// What a definition message says about the data messages of its local type.
///
/// ```
/// offset size field
///      0    1 reserved
///      1    1 architecture: 0 little-endian, 1 big-endian (multi-byte values and
///             the global message number below)
///      2    2 global message number (20 = record, 19 = lap, 18 = session...)
///      4    1 number of fields, N
///      5  3*N field number, size in bytes, base type
///  [ 5+3N   1 number of developer fields, M       (when the header's bit 5 is set)
///    6+3N 3*M field number, size, developer data index ]
/// ```
/// Developer fields are skipped: only their sizes matter.
struct FITDefinition: Equatable {
    var globalNumber: UInt16
    var bigEndian: Bool
    var fields: [FITFieldDefinition]
    /// Developer fields in each data message, and their bytes.
    var developerFieldCount: Int
    var developerDataSize: Int

    /// Bytes of one data message after its record header.
    var messageSize: Int { (fields.last.map { $0.offset + $0.size } ?? 0) + developerDataSize }

    /// The fixed part of a definition (the first five bytes).
    static let fixedSize = 5

    /// The architecture, global number and field count of the fixed part, or why it
    /// is wrong.
    static func fixedPart(_ bytes: [UInt8]) -> Result<(bigEndian: Bool, global: UInt16, fieldCount: Int), FITDecodingProblem> {
        guard bytes[1] <= 1 else {
            return .failure(FITDecodingProblem("architecture byte \(bytes[1]) is neither 0 (little-endian) nor 1 (big-endian)"))
        }
        let bigEndian = bytes[1] == 1
        let global = bigEndian ? UInt16(bytes[2]) << 8 | UInt16(bytes[3]) : UInt16(bytes[3]) << 8 | UInt16(bytes[2])
        return .success((bigEndian, global, Int(bytes[4])))
    }

    /// Field definitions from their 3-byte entries.
    /// - Throws: ``FITDecodingProblem`` for a base type that is not one of FIT's.
    static func fields(_ bytes: [UInt8]) throws -> [FITFieldDefinition] {
        var fields: [FITFieldDefinition] = []
        fields.reserveCapacity(bytes.count / 3)
        var offset = 0
        for entry in stride(from: 0, to: bytes.count, by: 3) {
            let number = bytes[entry], size = Int(bytes[entry + 1]), typeByte = bytes[entry + 2]
            guard let baseType = FITBaseType(typeByte) else {
                throw FITDecodingProblem("field \(number) has base type 0x\(String(typeByte, radix: 16)), which is not a FIT base type")
            }
            fields.append(FITFieldDefinition(number: number, size: size, baseType: baseType, offset: offset))
            offset += size
        }
        return fields
    }

    /// The bytes of the developer data that follow the fields, from their 3-byte entries.
    static func developerDataSize(_ bytes: [UInt8]) -> Int {
        stride(from: 0, to: bytes.count, by: 3).reduce(0) { $0 + Int(bytes[$1 + 1]) }
    }
}

/// Why a FIT file cannot be read, without the where: the decoder adds the byte offset.
struct FITDecodingProblem: Error, Equatable {
    var text: String
    /// Whether the file passed a limit of ``ImportLimits`` rather than being malformed.
    var isLimit: Bool
    init(_ text: String, isLimit: Bool = false) {
        self.text = text
        self.isLimit = isLimit
    }
}
