/// The one-byte header in front of every record of a FIT file.
///
/// ```
/// bit 7 = 0: normal header
///   bit 6     1 = definition message, 0 = data message
///   bit 5     definition: 1 = developer field definitions follow the fields
///   bit 4     reserved
///   bits 0-3  local message type, 0...15
/// bit 7 = 1: compressed-timestamp header (always a data message)
///   bits 5-6  local message type, 0...3
///   bits 0-4  time offset: the low 5 bits of the message's timestamp
/// ```
enum FITRecordHeader: Equatable {
    case definition(localType: Int, hasDeveloperFields: Bool)
    case data(localType: Int)
    case compressedTimestamp(localType: Int, timeOffset: UInt32)

    init(_ byte: UInt8) {
        if byte & 0x80 != 0 {
            self = .compressedTimestamp(localType: Int((byte >> 5) & 0x03), timeOffset: UInt32(byte & 0x1F))
        } else if byte & 0x40 != 0 {
            self = .definition(localType: Int(byte & 0x0F), hasDeveloperFields: byte & 0x20 != 0)
        } else {
            self = .data(localType: Int(byte & 0x0F))
        }
    }

    /// The timestamp a compressed header gives: the last full timestamp seen (in any
    /// message) with its low 5 bits replaced by `offset`, one 32-second rollover later
    /// when the offset is below those bits (time only moves forward). Nil when that
    /// reaches 0xFFFFFFFF, FIT's invalid time, or would pass it: time cannot wrap round
    /// to the small values of system time, so such a header is damage.
    static func timestamp(offset: UInt32, after last: UInt32) -> UInt32? {
        var time = UInt64(last & ~UInt32(0x1F)) + UInt64(offset)
        if offset < last & 0x1F { time += 0x20 }
        return time < UInt64(UInt32.max) ? UInt32(time) : nil
    }
}
