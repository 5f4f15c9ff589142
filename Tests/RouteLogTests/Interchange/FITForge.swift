import Foundation
@testable import RouteLog

/// Writes FIT files byte by byte, for tests that need one exact shape: the protocol's
/// layout spelled out, so that each test says what it changes.
struct FITForge {
    /// A field of a definition: number, size in bytes, base type byte.
    struct Field {
        var number: UInt8
        var size: UInt8
        var baseType: UInt8

        static let timestamp = Field(number: 253, size: 4, baseType: 0x86)
        static let latitude = Field(number: 0, size: 4, baseType: 0x85)
        static let longitude = Field(number: 1, size: 4, baseType: 0x85)
        static let altitude = Field(number: 2, size: 2, baseType: 0x84)
        static let heartRate = Field(number: 3, size: 1, baseType: 0x02)
        static let cadence = Field(number: 4, size: 1, baseType: 0x02)
        static let speed = Field(number: 6, size: 2, baseType: 0x84)
        static let power = Field(number: 7, size: 2, baseType: 0x84)
        static let enhancedSpeed = Field(number: 73, size: 4, baseType: 0x86)
        static let enhancedAltitude = Field(number: 78, size: 4, baseType: 0x86)
    }

    /// The record definition most tests use: time, position, altitude, speed, hr, cadence.
    static let recordFields: [Field] = [.timestamp, .latitude, .longitude, .altitude, .speed, .heartRate, .cadence]

    private(set) var records: [UInt8] = []
    private var bigEndian = [Bool](repeating: false, count: 16)
    private var sizes = [[Int]](repeating: [], count: 16)

    /// A definition message for `local`.
    mutating func define(local: UInt8, global: UInt16, _ fields: [Field], developer: [Field] = [],
                         bigEndian: Bool = false) {
        records.append(0x40 | (developer.isEmpty ? 0 : 0x20) | local)
        records += [0, bigEndian ? 1 : 0]
        records += bigEndian ? [UInt8(global >> 8), UInt8(global & 0xFF)] : [UInt8(global & 0xFF), UInt8(global >> 8)]
        records.append(UInt8(fields.count))
        for field in fields { records += [field.number, field.size, field.baseType] }
        if !developer.isEmpty {
            records.append(UInt8(developer.count))
            for field in developer { records += [field.number, field.size, field.baseType] }
        }
        self.bigEndian[Int(local)] = bigEndian
        sizes[Int(local)] = fields.map { Int($0.size) } + developer.map { Int($0.size) }
    }

    /// A data message for `local`: one integer per field (each written in the field's
    /// size and the definition's byte order), after a normal header or, with
    /// `compressedOffset`, a compressed-timestamp header.
    mutating func data(local: UInt8, _ values: [UInt64], compressedOffset: UInt8? = nil) {
        if let offset = compressedOffset {
            records.append(0x80 | (local & 0x03) << 5 | (offset & 0x1F))
        } else {
            records.append(local)
        }
        // An undefined local type is written as if it had the usual record layout.
        let fieldSizes = sizes[Int(local)].isEmpty ? Self.recordFields.map { Int($0.size) } : sizes[Int(local)]
        precondition(values.count == fieldSizes.count, "one value per field")
        for (value, size) in zip(values, fieldSizes) {
            let little = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            records += bigEndian[Int(local)] ? little.reversed() : little
        }
    }

    /// A record message in the layout of ``recordFields``; nil writes the field's invalid value.
    mutating func record(local: UInt8 = 0, time: UInt32?, latitude: Double?, longitude: Double?,
                         altitude: Double? = nil, speed: Double? = nil, heartRate: UInt8? = nil,
                         cadence: UInt8? = nil, compressedOffset: UInt8? = nil) {
        func semicircles(_ degrees: Double?) -> UInt64 {
            guard let degrees else { return 0x7FFF_FFFF }
            return UInt64(UInt32(bitPattern: Int32((degrees * 2_147_483_648 / 180).rounded())))
        }
        var values: [UInt64] = compressedOffset == nil ? [UInt64(time ?? 0xFFFF_FFFF)] : []
        values += [semicircles(latitude), semicircles(longitude),
                   altitude.map { UInt64((($0 + 500) * 5).rounded()) } ?? 0xFFFF,
                   speed.map { UInt64(($0 * 1000).rounded()) } ?? 0xFFFF,
                   UInt64(heartRate ?? 0xFF), UInt64(cadence ?? 0xFF)]
        data(local: local, values, compressedOffset: compressedOffset)
    }

    /// Bytes exactly as given (a broken record, a stray header byte).
    mutating func raw(_ bytes: [UInt8]) { records += bytes }

    enum CRC { case correct, zero, wrong }

    /// The whole file: header (12 or 14 bytes), the records, the file CRC.
    func file(headerSize: UInt8 = 14, headerCRC: CRC = .correct, fileCRC: CRC = .correct,
              dataSize: UInt32? = nil) -> [UInt8] {
        let size = dataSize ?? UInt32(records.count)
        var bytes: [UInt8] = [headerSize, 0x20, 0x54, 0x08]
        bytes += (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * UInt32($0))) }
        bytes += Array(".FIT".utf8)
        if headerSize >= 14 {
            let crc: UInt16 = headerCRC == .zero ? 0 : FITCRC.of(bytes) ^ (headerCRC == .wrong ? 0x0101 : 0)
            bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
            bytes += [UInt8](repeating: 0, count: Int(headerSize) - 14)
        }
        bytes += records
        let crc = FITCRC.of(bytes) ^ (fileCRC == .wrong ? 0x0001 : 0)
        bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        return bytes
    }

    /// FIT time (seconds since 1989-12-31T00:00:00Z) of a Unix time.
    static func fitTime(_ unix: TimeInterval) -> UInt32 { UInt32(unix - 631_065_600) }

    /// A small valid activity: `count` records a second apart from 2024-05-01T08:00:00Z,
    /// walking north-east from 47.3, 8.5.
    static func walk(_ count: Int, bigEndian: Bool = false) -> FITForge {
        var forge = FITForge()
        forge.define(local: 0, global: 20, recordFields, bigEndian: bigEndian)
        for i in 0..<count {
            forge.record(time: fitTime(1_714_550_400 + Double(i)), latitude: 47.3 + Double(i) * 0.0001,
                         longitude: 8.5 + Double(i) * 0.0001, altitude: 400 + Double(i) / 5, speed: 1.4,
                         heartRate: 120, cadence: 80)
        }
        return forge
    }
}

extension FITImporter {
    /// Reads forged bytes.
    static func read(_ bytes: [UInt8], options: RouteImportOptions = .init()) throws -> RouteImport {
        try read(data: Data(bytes), source: "forged.fit", options: options)
    }
}
