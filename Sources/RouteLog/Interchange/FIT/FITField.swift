/// FIT's base types: how many bytes a value takes and which bit pattern means "no
/// value" (the invalid-value sentinel every unset field holds).
///
/// | # | type | bytes | invalid |
/// |---|---|---|---|
/// | 0 | enum | 1 | 0xFF |
/// | 1, 2 | sint8, uint8 | 1 | 0x7F, 0xFF |
/// | 3, 4 | sint16, uint16 | 2 | 0x7FFF, 0xFFFF |
/// | 5, 6 | sint32, uint32 | 4 | 0x7FFFFFFF, 0xFFFFFFFF |
/// | 7 | string (UTF-8, NUL-terminated) | 1 each | empty |
/// | 8, 9 | float32, float64 | 4, 8 | all bits set |
/// | 10, 11, 12 | uint8z, uint16z, uint32z | 1, 2, 4 | 0 |
/// | 13 | byte | 1 each | every byte 0xFF |
/// | 14, 15, 16 | sint64, uint64, uint64z | 8 | 0x7FFF..., 0xFFFF..., 0 |
///
/// A definition's base type byte names the type in its low 5 bits (bit 7 only says
/// the type has more than one byte).
enum FITBaseType: UInt8, Equatable {
    case enumeration = 0, sint8, uint8, sint16, uint16, sint32, uint32, string
    case float32, float64, uint8z, uint16z, uint32z, byte, sint64, uint64, uint64z

    init?(_ byte: UInt8) {
        self.init(rawValue: byte & 0x1F)
    }

    /// Bytes of one value.
    var size: Int {
        switch self {
        case .enumeration, .sint8, .uint8, .string, .uint8z, .byte: return 1
        case .sint16, .uint16, .uint16z: return 2
        case .sint32, .uint32, .float32, .uint32z: return 4
        case .float64, .sint64, .uint64, .uint64z: return 8
        }
    }

    /// The value of raw bits (`size` bytes, already in host order), or nil for the
    /// invalid-value sentinel, a non-finite float, or a string.
    func value(_ raw: UInt64) -> Double? {
        switch self {
        case .enumeration, .uint8, .byte: return raw == 0xFF ? nil : Double(raw)
        case .sint8: return raw == 0x7F ? nil : Double(Int8(truncatingIfNeeded: raw))
        case .uint16: return raw == 0xFFFF ? nil : Double(raw)
        case .sint16: return raw == 0x7FFF ? nil : Double(Int16(truncatingIfNeeded: raw))
        case .uint32: return raw == 0xFFFF_FFFF ? nil : Double(raw)
        case .sint32: return raw == 0x7FFF_FFFF ? nil : Double(Int32(truncatingIfNeeded: raw))
        case .uint64: return raw == UInt64.max ? nil : Double(raw)
        case .sint64: return raw == 0x7FFF_FFFF_FFFF_FFFF ? nil : Double(Int64(bitPattern: raw))
        case .uint8z, .uint16z, .uint32z, .uint64z: return raw == 0 ? nil : Double(raw)
        case .float32:
            let value = Float(bitPattern: UInt32(truncatingIfNeeded: raw))
            return raw == 0xFFFF_FFFF || !value.isFinite ? nil : Double(value)
        case .float64:
            let value = Double(bitPattern: raw)
            return raw == UInt64.max || !value.isFinite ? nil : value
        case .string: return nil
        }
    }
}

/// One data message: its definition and its bytes (after the record header).
struct FITMessage {
    let definition: FITDefinition
    let bytes: [UInt8]
    /// Field 253 of the message, or the time its compressed-timestamp header gives.
    var timestamp: UInt32?

    /// The FIT timestamp field, in every message that has one.
    static let timestampField: UInt8 = 253

    var globalNumber: UInt16 { definition.globalNumber }

    /// The first value of field `number`, or nil when the message has no such field,
    /// it holds the invalid value, or its size is less than one value.
    func number(_ number: UInt8) -> Double? {
        guard let field = definition.fields.first(where: { $0.number == number }),
              field.size >= field.baseType.size else { return nil }
        return field.baseType.value(raw(field.offset, field.baseType.size))
    }

    /// Field `number` as an exact unsigned integer (timestamps, enums), nil as above.
    func unsigned(_ number: UInt8) -> UInt32? {
        guard let value = self.number(number), value >= 0, value <= Double(UInt32.max) else { return nil }
        return UInt32(value)
    }

    private func raw(_ offset: Int, _ size: Int) -> UInt64 {
        var raw: UInt64 = 0
        if definition.bigEndian {
            for i in 0..<size { raw = raw << 8 | UInt64(bytes[offset + i]) }
        } else {
            for i in (0..<size).reversed() { raw = raw << 8 | UInt64(bytes[offset + i]) }
        }
        return raw
    }
}
