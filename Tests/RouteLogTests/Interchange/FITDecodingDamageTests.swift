import Foundation
import Testing
@testable import RouteLog

/// Damaged and hostile FIT bytes: each is refused with the byte offset of the problem,
/// or read only when the caller allows a bad CRC and everything else decodes.
@Suite struct FITDecodingDamageTests {
    func refusal(_ bytes: [UInt8], options: RouteImportOptions = .init()) throws -> RouteLogError {
        let error = try #require(throwsError { try FITImporter.read(bytes, options: options) }, "the bytes were accepted")
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("nothing from this file was imported"))
        return error
    }

    var ignoringCRC: RouteImportOptions {
        var options = RouteImportOptions()
        options.importsDespiteBadCRC = true
        return options
    }

    @Test func aBadHeaderCRCIsRefusedUnlessAllowed() throws {
        let bytes = FITForge.walk(3).file(headerCRC: .wrong)
        let error = try refusal(bytes)
        #expect(error.message.contains("header CRC") && error.offset == 12)
        let result = try FITImporter.read(bytes, options: ignoringCRC)
        #expect(result.routes.first?.points.count == 3)
        #expect(result.report.notes.contains { $0.hasPrefix("imported despite a bad CRC: the header CRC") })
    }

    @Test func aBadFileCRCIsRefusedUnlessAllowedAndThenEveryRecordMustStillDecode() throws {
        let bytes = FITForge.walk(3).file(fileCRC: .wrong)
        let error = try refusal(bytes)
        #expect(error.message.contains("file CRC") && error.message.contains("--ignore-crc"))
        #expect(error.offset == Int64(bytes.count - 2))
        #expect(try FITImporter.read(bytes, options: ignoringCRC).routes.first?.points.count == 3)
        // Allowing a bad CRC does not allow a broken record.
        var broken = FITForge.walk(3)
        broken.raw([0x05])  // a data message of local type 5, never defined
        _ = try refusal(broken.file(fileCRC: .wrong), options: ignoringCRC)
    }

    @Test func aDataMessageOfAnUndefinedLocalTypeIsRefusedWhereItStands() throws {
        var forge = FITForge.walk(2)
        let offset = 14 + forge.records.count
        forge.record(local: 7, time: 5, latitude: 1, longitude: 1)
        let error = try refusal(forge.file())
        #expect(error.message.contains("local message type 7") && error.offset == Int64(offset))
        var compressed = FITForge()
        compressed.raw([0xA3])  // compressed-timestamp header for local type 1, nothing defined
        #expect(try refusal(compressed.file()).message.contains("local message type 1"))
    }

    @Test func aCompressedTimestampBeforeAnyFullTimestampIsRefused() throws {
        var forge = FITForge()
        forge.define(local: 0, global: 20, Array(FITForge.recordFields.dropFirst()))
        forge.record(time: nil, latitude: 1, longitude: 1, compressedOffset: 4)
        #expect(try refusal(forge.file()).message.contains("compressed-timestamp"))
    }

    /// A compressed timestamp only moves time forward; one that would pass FIT's last
    /// time wrapped round to a system time (below 0x10000000) and was taken as one.
    @Test func aCompressedTimestampPastTheLastFITTimeIsRefusedWhereItStands() throws {
        #expect(FITRecordHeader.timestamp(offset: 1, after: 0xFFFF_FFFE) == nil)
        #expect(FITRecordHeader.timestamp(offset: 0x1F, after: 0xFFFF_FFE0) == nil, "0xFFFFFFFF is FIT's invalid time")
        #expect(FITRecordHeader.timestamp(offset: 0x1E, after: 0xFFFF_FFE0) == 0xFFFF_FFFE)
        var forge = FITForge()
        forge.define(local: 0, global: 20, FITForge.recordFields)
        forge.record(time: 0xFFFF_FFFE, latitude: 10, longitude: 20)
        forge.define(local: 1, global: 20, Array(FITForge.recordFields.dropFirst()))
        let offset = 14 + forge.records.count
        forge.record(local: 1, time: nil, latitude: 10.001, longitude: 20, compressedOffset: 1)
        let error = try refusal(forge.file())
        #expect(error.offset == Int64(offset))
        #expect(error.message.hasPrefix("Malformed FIT at byte \(offset): a compressed-timestamp header's offset 1 "
            + "after the timestamp 0xFFFFFFFE would pass 0xFFFFFFFE"), "\(error.message)")
    }

    @Test func lengthsThatRunPastTheEndOfTheRecordsAreRefused() throws {
        // A definition of 200 fields in a file whose records end 3 bytes later.
        var fields = FITForge()
        fields.raw([0x40, 0, 0, 20, 0, 200, 0, 4, 0x86])
        #expect(try refusal(fields.file()).message.contains("definition of 200 fields"))
        // A data message longer than what is left (the data size cuts it off).
        let message = FITForge.walk(2)
        let cut = message.file(dataSize: UInt32(message.records.count - 4))
        #expect(try refusal(Array(cut)).message.contains("needs"))
        // A developer field count past the end.
        var developer = FITForge()
        developer.raw([0x60, 0, 0, 20, 0, 0])
        #expect(try refusal(developer.file()).message.contains("developer field count"))
    }

    @Test func aDataSizeClaimingGigabytesIsRefusedBeforeReadingOn() throws {
        let bytes = FITForge.walk(2).file(dataSize: 0xFFFF_FFF0)
        let error = try refusal(bytes)
        #expect(error.offset == 4)
        #expect(error.message.contains("4294967280 bytes of records") && error.message.contains("truncated"))
    }

    @Test func everyTruncationOfAFileIsRefused() throws {
        let bytes = FITForge.walk(4).file()
        for length in 0..<bytes.count {
            let error = throwsError { try FITImporter.read(Array(bytes.prefix(length))) }
            #expect(error?.code == .invalidArgument, "a file cut to \(length) of \(bytes.count) bytes was accepted")
        }
    }

    @Test func everySingleBitFlipIsRefusedOrChangesNothing() throws {
        // CRC-16 catches every burst of up to 16 bits, so no flipped bit may give other points.
        let bytes = FITForge.walk(4).file()
        let original = try FITImporter.read(bytes).routes
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                if let routes = try? FITImporter.read(flipped).routes {
                    #expect(routes == original, "flipping bit \(bit) of byte \(index) changed the points")
                }
            }
        }
    }

    @Test func bytesAfterTheEndThatAreNotAnotherFITFileAreRefused() throws {
        let error = try refusal(FITForge.walk(2).file() + [0x0E, 1, 2, 3])
        #expect(error.message.contains("not another FIT file"))
        let padded = try refusal(FITForge.walk(2).file() + [UInt8](repeating: 0, count: 20))
        #expect(padded.message.contains("not another FIT file"))
    }

    @Test func headersThatAreNotFITAreRefused() throws {
        var bytes = FITForge.walk(1).file()
        bytes[9] = UInt8(ascii: "X")
        #expect(try refusal(bytes).message.contains(".FIT"))
        bytes = FITForge.walk(1).file()
        bytes[0] = 11
        #expect(try refusal(bytes).message.contains("header size is 11"))
        bytes = FITForge.walk(1).file()
        bytes[1] = 0x30
        #expect(try refusal(bytes).message.contains("protocol version 3.0"))
        #expect(try refusal([]).message.contains("empty"))
    }

    @Test func anArchitectureByteOtherThanZeroOrOneIsRefused() throws {
        var forge = FITForge()
        forge.raw([0x40, 0, 2, 20, 0, 0])
        #expect(try refusal(forge.file()).message.contains("architecture byte 2"))
        var baseType = FITForge()
        baseType.raw([0x40, 0, 0, 20, 0, 1, 0, 4, 0x1F])
        #expect(try refusal(baseType.file()).message.contains("base type 0x1f"))
    }

    @Test func aLatitudeOutsideTheGlobeIsRefused() throws {
        var forge = FITForge()
        forge.define(local: 0, global: 20, FITForge.recordFields)
        forge.data(local: 0, [1000, 0x7000_0000, 0, 0xFFFF, 0xFFFF, 0xFF, 0xFF])  // 157.5 degrees north
        #expect(try refusal(forge.file()).message.contains("outside -90...90"))
    }

    @Test func readingStopsAtThePointLimit() throws {
        var options = RouteImportOptions()
        options.maximumPoints = 50
        #expect(try FITImporter.read(FITForge.walk(50).file(), options: options).report.pointCount == 50)
        let error = try refusal(FITForge.walk(51).file(), options: options)
        #expect(error.message.contains("more than 50 positioned records"))
        // The 51st record's offset: 14-byte header, 27-byte definition, 50 records of 19 bytes.
        #expect(error.offset == Int64(14 + 27 + 50 * 19))
    }
}
