import Foundation
import Testing
@testable import RouteLog

/// Which FIT messages and fields become what in a route and its report.
@Suite struct FITMessageMappingTests {
    static let session: UInt16 = 18, lap: UInt16 = 19, record: UInt16 = 20, event: UInt16 = 21, sport: UInt16 = 12

    @Test func enhancedAltitudeAndSpeedWinAndPowerIsCountedAsDropped() throws {
        var forge = FITForge()
        let fields: [FITForge.Field] = [.timestamp, .latitude, .longitude, .altitude, .speed, .enhancedAltitude,
                                        .enhancedSpeed, .power, .init(number: 31, size: 1, baseType: 0x02)]
        forge.define(local: 0, global: Self.record, fields)
        // altitude 100 m and speed 1 m/s, enhanced 9000 m and 70 m/s, 250 W, GPS accuracy 4 m.
        forge.data(local: 0, [1000, 0, 0, 3000, 1000, 47500, 70000, 250, 4])
        forge.data(local: 0, [1001, 0, 0, 3000, 1000, 0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF, 0xFF])
        let result = try FITImporter.read(forge.file())
        let points = try #require(result.routes.first?.points)
        #expect(points[0].altitude == 9000 && points[0].speed == 70 && points[0].horizontalAccuracy == 4)
        #expect(points[1].altitude == 100 && points[1].speed == 1 && points[1].horizontalAccuracy == nil)
        #expect(result.report.powerReadingsDropped == 1)
        #expect(result.report.notes.contains("1 power reading(s) dropped (RouteLog has no power column)"))
    }

    @Test func aTimerStopMakesTheNextPositionedRecordStartASegment() throws {
        var forge = FITForge()
        forge.define(local: 0, global: Self.record, FITForge.recordFields)
        forge.define(local: 1, global: Self.event, [.timestamp, .init(number: 0, size: 1, baseType: 0),
                                                    .init(number: 1, size: 1, baseType: 0)])
        forge.record(time: 1000, latitude: 1, longitude: 1)
        forge.record(time: 1001, latitude: 1.0001, longitude: 1)
        forge.data(local: 1, [1002, 0, 4])          // timer, stop_all
        forge.record(time: 1500, latitude: nil, longitude: nil)
        forge.data(local: 1, [1600, 0, 0])          // timer, start
        forge.record(time: 1601, latitude: 1.0002, longitude: 1)
        forge.data(local: 1, [1602, 3, 1])          // a marker event of type stop is not the timer
        forge.record(time: 1603, latitude: 1.0003, longitude: 1)
        forge.data(local: 1, [1604, 0, 4])          // stopped at the end: no break to make
        let result = try FITImporter.read(forge.file())
        #expect(result.routes.first?.segmentStarts == [2])
        #expect(result.report.pausesKept == 1)
        #expect(result.report.pointsWithoutPositionSkipped == 1)
    }

    @Test func theSessionSportIsReportedAndItsCaloriesKept() throws {
        var forge = FITForge.walk(3)
        forge.define(local: 2, global: Self.session, [.timestamp, .init(number: 5, size: 1, baseType: 0),
                                                      .init(number: 11, size: 2, baseType: 0x84)])
        forge.data(local: 2, [2000, 17, 321])       // hiking, 321 kcal
        let result = try FITImporter.read(forge.file())
        #expect(result.report.sports == ["hiking"] && result.report.activities == ["hike"])
        #expect(result.routes.first?.metadata.calories == 321)
        #expect(result.routes.first?.metadata.activity == .hike)
        #expect(result.report.notes.first == "sport: hiking (hike)")
    }

    @Test func aMultisportFileNamesEverySportButTransitions() throws {
        var forge = FITForge.walk(3)
        forge.define(local: 2, global: Self.session, [.init(number: 5, size: 1, baseType: 0)])
        for sport: UInt64 in [5, 3, 2, 3, 1] { forge.data(local: 2, [sport]) }
        let result = try FITImporter.read(forge.file())
        #expect(result.report.sports == ["swimming+cycling+running"] && result.report.activities == ["multisport"])
    }

    @Test func sportsRepeatedByManyMessagesAreKeptOnceEach() throws {
        var forge = FITForge.walk(2)
        forge.define(local: 3, global: Self.lap, [.init(number: 25, size: 1, baseType: 0)])
        for i in 0..<20_000 { forge.data(local: 3, [i % 3 == 0 ? 2 : 11]) }
        var decoder = FITDecoder(FITByteSource(data: Data(forge.file())), source: "laps", ignoresBadCRC: false)
        var builder = FITActivityBuilder(maximumPoints: 10)
        try decoder.decode(into: &builder)
        #expect(builder.activities.map(\.sports) == [[2, 11]] && builder.activities.map(\.laps) == [20_000])
        let report = try FITImporter.read(forge.file()).report
        #expect(report.sports == ["cycling+walking"] && report.activities == ["multisport"])

        var list = FITSportList()
        for sport in [UInt8(200), 3, 200, 64, 0, 255, 3, 63, 128, 0, 255] { list.insert(sport) }
        #expect(list.inOrder == [200, 3, 64, 0, 255, 63, 128])
    }

    @Test func withoutASessionTheSportMessageThenTheLapsNameTheSport() throws {
        var bySport = FITForge.walk(2)
        bySport.define(local: 2, global: Self.sport, [.init(number: 0, size: 1, baseType: 0)])
        bySport.data(local: 2, [37])
        bySport.define(local: 3, global: Self.lap, [.init(number: 25, size: 1, baseType: 0)])
        bySport.data(local: 3, [1])
        let sport = try FITImporter.read(bySport.file()).report
        #expect(sport.sports == ["stand_up_paddleboarding"] && sport.activities == ["stand up paddleboarding"])
        #expect(try FITImporter.read(bySport.file()).routes.first?.metadata.activity == .custom("stand up paddleboarding"))
        var byLap = FITForge.walk(2)
        byLap.define(local: 3, global: Self.lap, [.init(number: 25, size: 1, baseType: 0)])
        byLap.data(local: 3, [11])
        byLap.data(local: 3, [11])
        let lap = try FITImporter.read(byLap.file()).report
        #expect(lap.sports == ["walking"] && lap.activities == ["walk"] && lap.lapsRead == 2)
        let none = try FITImporter.read(FITForge.walk(2).file()).report
        #expect(none.sports == [nil] && none.activities == [nil])
        #expect(FITSport.name(250) == "sport 250" && FITSport.activityKind([0]) == .other)
    }

    @Test func recordsWithoutAnyTimeTakeTheFilesCreationTime() throws {
        var forge = FITForge()
        forge.define(local: 0, global: 0, [.init(number: 4, size: 4, baseType: 0x86)])  // file_id.time_created
        forge.data(local: 0, [UInt64(FITForge.fitTime(1_600_000_000))])
        forge.define(local: 1, global: Self.record, FITForge.recordFields)
        forge.record(local: 1, time: nil, latitude: 1, longitude: 1)
        forge.record(local: 1, time: nil, latitude: 1.001, longitude: 1)
        let result = try FITImporter.read(forge.file())
        #expect(result.routes.first?.points.allSatisfy { $0.timestamp == Date(timeIntervalSince1970: 1_600_000_000) } == true)
        #expect(result.report.untimedRoutes == 1)
    }

    /// The profile's `date_time`s below 0x10000000 are seconds since the device was
    /// switched on, not UTC: such records are points without a time (the file's UTC
    /// creation time, or their neighbours', as in GPX), never dates in 1990.
    @Test func systemTimesAreNoUTCTimes() throws {
        var forge = FITForge()
        forge.define(local: 0, global: 0, [.init(number: 4, size: 4, baseType: 0x86)])  // file_id.time_created
        forge.data(local: 0, [UInt64(FITForge.fitTime(1_600_000_000))])
        forge.define(local: 1, global: Self.record, FITForge.recordFields)
        forge.record(local: 1, time: 1000, latitude: 1, longitude: 1)
        forge.record(local: 1, time: 0x0FFF_FFFF, latitude: 1.001, longitude: 1)
        let result = try FITImporter.read(forge.file())
        #expect(result.routes.first?.points.map(\.timestamp) == [Date(timeIntervalSince1970: 1_600_000_000),
                                                                  Date(timeIntervalSince1970: 1_600_000_000)])
        #expect(result.report.untimedRoutes == 1)
        // One UTC time among them: the system times take it, as points without a time.
        var mixed = FITForge()
        mixed.define(local: 0, global: Self.record, FITForge.recordFields)
        mixed.record(time: 1000, latitude: 1, longitude: 1)
        mixed.record(time: FITForge.fitTime(1_700_000_000), latitude: 1.001, longitude: 1)
        let points = try #require(try FITImporter.read(mixed.file()).routes.first?.points)
        #expect(points.map(\.timestamp) == [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: 1_700_000_000)])
        // A creation time in system time is no file time either.
        var created = FITForge()
        created.define(local: 0, global: 0, [.init(number: 4, size: 4, baseType: 0x86)])
        created.data(local: 0, [500])
        created.define(local: 1, global: Self.record, FITForge.recordFields)
        created.record(local: 1, time: nil, latitude: 1, longitude: 1)
        let untimed = try #require(try FITImporter.read(created.file()).routes.first?.points.first)
        #expect(untimed.timestamp != FITActivityBuilder.date(500))
    }

    /// A `timestamp_correlation` (162) says which UTC time a system time was: records in
    /// system time take the UTC time of the correlation last before them (the first one
    /// for records before any), with its fractions of a second.
    @Test func aTimestampCorrelationTurnsSystemTimesIntoUTC() throws {
        let correlation: [FITForge.Field] = [.timestamp, .init(number: 1, size: 4, baseType: 0x86),
                                             .init(number: 0, size: 2, baseType: 0x84), .init(number: 5, size: 2, baseType: 0x84)]
        let utc = FITForge.fitTime(1_700_000_000)
        var forge = FITForge()
        forge.define(local: 0, global: Self.record, FITForge.recordFields)
        forge.define(local: 1, global: 162, correlation)
        forge.record(time: 995, latitude: 1, longitude: 1)
        // UTC 1_700_000_000.5 was system time 990.25: an offset of (1_700_000_000.5 - 990.25).
        forge.data(local: 1, [UInt64(utc), 990, 16384, 250])
        forge.record(time: 1000, latitude: 1.0001, longitude: 1)
        // The clock drifted by a second.
        forge.data(local: 1, [UInt64(utc + 100), 1089, 0xFFFF, 0xFFFF])
        forge.record(time: 1100, latitude: 1.0002, longitude: 1)
        let result = try FITImporter.read(forge.file())
        let points = try #require(result.routes.first?.points)
        #expect(points.map(\.timestamp.timeIntervalSince1970) == [1_700_000_005.25, 1_700_000_010.25, 1_700_000_111])
        #expect(result.report.untimedRoutes == 0)
        // Correlations repeated with no point between them are kept as the last one
        // (and the file's first): memory grows with the points, not with the file.
        var repeated = FITForge()
        repeated.define(local: 0, global: Self.record, FITForge.recordFields)
        repeated.define(local: 1, global: 162, correlation)
        repeated.record(time: 995, latitude: 1, longitude: 1)
        for second in 0..<1000 { repeated.data(local: 1, [UInt64(utc) + UInt64(second), 990, 0xFFFF, 0xFFFF]) }
        repeated.record(time: 1000, latitude: 1.0001, longitude: 1)
        var activity = FITActivity(protocolVersion: "2.0")
        for second in 0..<1000 { activity.correlate(pointsBefore: 1, Double(second)) }
        #expect(activity.correlations.map(\.offset) == [0, 999])
        let repeatedPoints = try #require(try FITImporter.read(repeated.file()).routes.first?.points)
        // The first point before any correlation takes the first; the second the last.
        #expect(repeatedPoints.map(\.timestamp.timeIntervalSince1970) == [1_700_000_005, 1_700_000_000 + 999 + 10])
        // A correlation sent with a compressed-timestamp header has its UTC time there.
        var compressed = FITForge()
        compressed.define(local: 0, global: Self.record, FITForge.recordFields)
        compressed.define(local: 1, global: 162, correlation)
        compressed.define(local: 2, global: 162, [.init(number: 1, size: 4, baseType: 0x86)])
        compressed.data(local: 1, [UInt64(utc), 990, 0xFFFF, 0xFFFF])
        compressed.data(local: 2, [1000], compressedOffset: UInt8((utc + 5) & 0x1F))
        compressed.record(time: 1005, latitude: 1, longitude: 1)
        let compressedPoints = try #require(try FITImporter.read(compressed.file()).routes.first?.points)
        #expect(compressedPoints.map(\.timestamp.timeIntervalSince1970) == [1_700_000_010])
        // A correlation whose UTC time is itself system time says nothing.
        var unsure = FITForge()
        unsure.define(local: 0, global: Self.record, FITForge.recordFields)
        unsure.define(local: 1, global: 162, correlation)
        unsure.data(local: 1, [500, 400, 0xFFFF, 0xFFFF])
        unsure.record(time: 1000, latitude: 1, longitude: 1)
        #expect(try FITImporter.read(unsure.file()).report.untimedRoutes == 1)
    }

    @Test func anHourLongGapBetweenRecordsIsBrokenLikeInGPX() throws {
        var forge = FITForge()
        forge.define(local: 0, global: Self.record, FITForge.recordFields)
        let start = FITForge.fitTime(1_714_550_400)
        forge.record(time: start, latitude: 1, longitude: 1)
        forge.record(time: start + 1, latitude: 1.0001, longitude: 1)
        forge.record(time: start + 8000, latitude: 1.0002, longitude: 1)
        let result = try FITImporter.read(forge.file())
        #expect(result.routes.first?.segmentStarts == [2] && result.report.jumpsBroken == 1)
        var keep = RouteImportOptions()
        keep.breaksJumps = false
        #expect(try FITImporter.read(forge.file(), options: keep).routes.first?.segmentStarts == [])
    }

    @Test func aFileWithoutPositionedRecordsImportsNothingAndSaysSo() throws {
        var forge = FITForge()
        forge.define(local: 0, global: Self.record, FITForge.recordFields)
        forge.record(time: 1000, latitude: nil, longitude: nil, heartRate: 90)
        let result = try FITImporter.read(forge.file())
        #expect(result.routes.isEmpty && result.report.pointsWithoutPositionSkipped == 1)
        #expect(result.report.notes.last == "no record with a position: nothing imported")
    }
}
