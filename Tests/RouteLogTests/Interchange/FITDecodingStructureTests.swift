import Foundation
import Testing
@testable import RouteLog

/// The FIT protocol's structures, each forged in memory: byte orders, compressed
/// timestamps, developer fields, chains, redefinitions, invalid values.
@Suite struct FITDecodingStructureTests {
    /// CRC-16/ARC's published check value (the CRC of the ASCII digits 1 to 9), which
    /// FIT's nibble-table CRC must give.
    @Test func theCRCIsCRC16ARC() {
        #expect(FITCRC.of(Array("123456789".utf8)) == 0xBB3D)
        #expect(FITCRC.of([]) == 0)
        var crc = FITCRC()
        crc.update(Array("123456789".utf8) + [0x3D, 0xBB])
        #expect(crc.value == 0, "bytes followed by their own CRC, little-endian, give 0")
    }

    @Test func recordsGivePointsInDegreesMetresAndSeconds() throws {
        let result = try FITImporter.read(FITForge.walk(3).file())
        let points = try #require(result.routes.first?.points)
        #expect(points.count == 3)
        #expect(abs(points[2].latitude - 47.3002) < 1e-7 && abs(points[2].longitude - 8.5002) < 1e-7)
        #expect(points[2].timestamp == Date(timeIntervalSince1970: 1_714_550_402))
        #expect(points[2].altitude == 400.4 && points[0].speed == 1.4)
        #expect(points[0].heartRate == 120 && points[0].cadence == 80)
        #expect(result.report.format == .fit && result.report.version == "2.0" && result.report.chainedFiles == 1)
    }

    @Test func bigEndianDefinitionsGiveTheSamePoints() throws {
        let little = try FITImporter.read(FITForge.walk(5).file())
        let big = try FITImporter.read(FITForge.walk(5, bigEndian: true).file())
        #expect(big.routes == little.routes)
        // Byte order also applies to the global message number: 20 is 0x00 0x14.
        var forge = FITForge()
        forge.define(local: 3, global: 20, FITForge.recordFields, bigEndian: true)
        forge.record(local: 3, time: 1_000_000_000, latitude: -33.5, longitude: 151.25)
        let point = try #require(try FITImporter.read(forge.file()).routes.first?.points.first)
        #expect(abs(point.latitude + 33.5) < 1e-7 && abs(point.longitude - 151.25) < 1e-7)
    }

    @Test func compressedTimestampsAddTheirOffsetWithARolloverEvery32Seconds() throws {
        // Last full timestamp 1000 = 31 * 32 + 8: offsets 10 (> 8) and then 3 (< 10, so
        // the next 32 seconds) give 1002 and 1027.
        #expect(FITRecordHeader.timestamp(offset: 10, after: 1000) == 1002)
        #expect(FITRecordHeader.timestamp(offset: 3, after: 1002) == 1027)
        #expect(FITRecordHeader.timestamp(offset: 8, after: 1000) == 1000)
        // The same in a file, from a UTC time (a multiple of 32 plus 1000; times below
        // 0x10000000 are system time, not UTC).
        let base: UInt32 = 0x4000_0000
        var forge = FITForge()
        forge.define(local: 0, global: 20, FITForge.recordFields)
        forge.record(time: base + 1000, latitude: 10, longitude: 20)
        forge.define(local: 1, global: 20, Array(FITForge.recordFields.dropFirst()))
        forge.record(local: 1, time: nil, latitude: 10.001, longitude: 20, compressedOffset: 10)
        forge.record(local: 1, time: nil, latitude: 10.002, longitude: 20, compressedOffset: 3)
        let times = try #require(try FITImporter.read(forge.file()).routes.first?.points.map(\.timestamp))
        let epoch = 631_065_600.0 + Double(base)
        #expect(times.map { $0.timeIntervalSince1970 - epoch } == [1000, 1002, 1027])
    }

    @Test func developerFieldsAreSkippedByTheirSize() throws {
        var forge = FITForge()
        forge.define(local: 0, global: 20, FITForge.recordFields,
                     developer: [.init(number: 0, size: 3, baseType: 0), .init(number: 1, size: 1, baseType: 1)])
        for i in 0..<4 {
            // The developer bytes look like a record header and a latitude: they must not be read as one.
            forge.data(local: 0, [UInt64(1000 + i), 0x1000_0000, 0x0800_0000, 0xFFFF, 0xFFFF, 0xFF, 0xFF, 0x40_0040, 0x40])
        }
        let result = try FITImporter.read(forge.file())
        #expect(result.routes.first?.points.count == 4)
        #expect(result.report.developerFieldsSkipped == 8)
        #expect(result.routes.first?.points.allSatisfy { abs($0.latitude - 22.5) < 1e-12 && abs($0.longitude - 11.25) < 1e-12 } == true)
    }

    /// A chain of many files without a positioned record costs no memory per file: their
    /// activities are counted, not kept; and with bad CRCs ignored, only the first
    /// mismatches are described, the rest counted (memory grows with the points kept,
    /// never with the file).
    @Test func aChainOfManyEmptyFilesKeepsCountsNotFiles() throws {
        var lap = FITForge()
        lap.define(local: 0, global: 19, [.init(number: 25, size: 1, baseType: 0)])
        lap.data(local: 0, [1])
        let empty = lap.file(headerSize: 12)
        let chain = [[UInt8]](repeating: empty, count: 5000).joined() + FITForge.walk(3).file()
        var decoder = FITDecoder(FITByteSource(data: Data(chain)), source: "chain", ignoresBadCRC: false)
        var builder = FITActivityBuilder(maximumPoints: 10)
        try decoder.decode(into: &builder)
        #expect(builder.activities.map(\.path.count) == [3])
        #expect(builder.filesWithoutPoints == 5000)
        let result = try FITImporter.read(Array(chain))
        #expect(result.routes.map(\.points.count) == [3])
        #expect(result.report.chainedFiles == 5001 && result.report.filesWithoutPoints == 5000 && result.report.lapsRead == 5000)

        let bad = [[UInt8]](repeating: lap.file(headerSize: 14, headerCRC: .wrong, fileCRC: .wrong), count: 1000).joined()
            + FITForge.walk(2).file()
        var options = RouteImportOptions()
        options.importsDespiteBadCRC = true
        let forced = try FITImporter.read(Array(bad), options: options)
        #expect(forced.routes.map(\.points.count) == [2])
        let listed = FITDecoder.listedCRCMismatches
        #expect(forced.report.ignoredCRCMismatches.count == listed + 1)
        #expect(forced.report.ignoredCRCMismatches.last == "\(2000 - listed) more in later files of the chain, not listed")
    }

    @Test func chainedFilesGiveOneRouteEachAndCheckEachCRC() throws {
        var settings = FITForge()
        settings.define(local: 0, global: 0, [.init(number: 0, size: 1, baseType: 0)])
        settings.data(local: 0, [2])
        let chain = FITForge.walk(3).file(headerSize: 12) + settings.file() + FITForge.walk(2).file()
        let result = try FITImporter.read(chain)
        #expect(result.routes.map(\.points.count) == [3, 2])
        #expect(result.report.chainedFiles == 3 && result.report.filesWithoutPoints == 1)
        #expect(result.report.notes.contains("3 FIT files chained in this file"))
        // Local definitions end with their file: the second file may not use the first's.
        var undefined = FITForge()
        undefined.record(time: 5, latitude: 1, longitude: 1)
        #expect(throws: RouteLogError.self) { try FITImporter.read(FITForge.walk(1).file() + undefined.file()) }
        var damaged = FITForge.walk(2).file(fileCRC: .wrong)
        damaged = FITForge.walk(1).file() + damaged
        let error = try #require(throwsError { try FITImporter.read(damaged) })
        #expect(error.message.contains("file CRC") && error.offset != nil)
    }

    @Test func invalidValueSentinelsReadAsAbsent() throws {
        var forge = FITForge()
        forge.define(local: 0, global: 20, FITForge.recordFields)
        let start = FITForge.fitTime(1_714_550_400)
        forge.record(time: start, latitude: 1, longitude: 2)  // altitude, speed, hr, cadence invalid
        forge.record(time: start + 1, latitude: nil, longitude: 2, altitude: 10)  // no latitude: not a point
        forge.record(time: nil, latitude: 1, longitude: 2.001, heartRate: 0)  // no time, hr 0
        let result = try FITImporter.read(forge.file())
        let points = try #require(result.routes.first?.points)
        #expect(points.count == 2)
        #expect(points[0].altitude == nil && points[0].speed == nil && points[0].heartRate == nil && points[0].cadence == nil)
        #expect(points[1].heartRate == nil, "a heart rate of 0 is a lost sensor")
        #expect(points[1].timestamp == points[0].timestamp, "a record without time takes its neighbour's (held at the end)")
        #expect(result.report.pointsWithoutPositionSkipped == 1 && result.report.interpolatedTimes == 1)
        // Each base type's own sentinel, decoded directly.
        #expect(FITBaseType.sint8.value(0x7F) == nil && FITBaseType.sint8.value(0x80) == -128)
        #expect(FITBaseType.uint16z.value(0) == nil && FITBaseType.uint16z.value(0xFFFF) == 65535)
        #expect(FITBaseType.float32.value(0xFFFF_FFFF) == nil && FITBaseType.float32.value(0x3FC0_0000) == 1.5)
        #expect(FITBaseType.sint64.value(0x7FFF_FFFF_FFFF_FFFF) == nil && FITBaseType.uint64.value(UInt64.max) == nil)
    }

    @Test func aDefinitionRedefinedMidFileAppliesToTheMessagesAfterIt() throws {
        var forge = FITForge()
        forge.define(local: 0, global: 20, FITForge.recordFields)
        forge.record(time: 1000, latitude: 1, longitude: 2, altitude: 100)
        // Local type 0 now means a shorter record with the enhanced altitude, big-endian.
        forge.define(local: 0, global: 20, [.timestamp, .latitude, .longitude, .enhancedAltitude], bigEndian: true)
        forge.data(local: 0, [1001, 0x0100_0000, 0x0200_0000, UInt64((250 + 500) * 5)])
        // And then a lap (global 19), which gives no point.
        forge.define(local: 0, global: 19, [.timestamp])
        forge.data(local: 0, [1002])
        let result = try FITImporter.read(forge.file())
        let points = try #require(result.routes.first?.points)
        #expect(points.map(\.altitude) == [100, 250])
        #expect(abs(points[1].latitude - 1.40625) < 1e-12)
        #expect(result.report.lapsRead == 1)
    }

    @Test func aTwelveByteHeaderAndAZeroHeaderCRCAreAccepted() throws {
        #expect(try FITImporter.read(FITForge.walk(2).file(headerSize: 12)).routes.count == 1)
        #expect(try FITImporter.read(FITForge.walk(2).file(headerCRC: .zero)).routes.count == 1)
        #expect(try FITImporter.read(FITForge.walk(2).file(headerSize: 16)).routes.count == 1, "a longer header is skipped over")
    }
}

/// The error `body` throws, or nil.
func throwsError(_ body: () throws -> Any) -> RouteLogError? {
    do {
        _ = try body()
        return nil
    } catch let error as RouteLogError {
        return error
    } catch {
        return RouteLogError(.io, "\(error)")
    }
}
