import Foundation
import Testing
@testable import RouteLog

/// TCX written in the test: what each element becomes, and what is refused where.
@Suite struct TCXImportStructureTests {
    static func tcx(_ body: String, root: String = "<TrainingCenterDatabase xmlns=\"\(TCXReader.namespace)\" "
                        + "xmlns:ax=\"\(TCXReader.activityExtension)\">") -> [UInt8] {
        Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(root)\n\(body)\n</TrainingCenterDatabase>\n".utf8)
    }

    static func point(_ second: Int, _ lat: Double? = 47.3, _ lon: Double = 8.5, extra: String = "") -> String {
        let position = lat.map { "<Position><LatitudeDegrees>\($0)</LatitudeDegrees><LongitudeDegrees>\(lon)</LongitudeDegrees></Position>" } ?? ""
        return "<Trackpoint><Time>2024-05-01T08:00:\(String(format: "%02d", second))Z</Time>\(position)\(extra)</Trackpoint>"
    }

    static func read(_ bytes: [UInt8], options: RouteImportOptions = .init()) throws -> RouteImport {
        try TCXImporter.read(data: Data(bytes), source: "forged.tcx", options: options)
    }

    func refusal(_ bytes: [UInt8], options: RouteImportOptions = .init()) throws -> RouteLogError {
        let error = try #require(throwsError { try Self.read(bytes, options: options) }, "the TCX was accepted")
        #expect(error.code == .invalidArgument && error.message.contains("line "))
        return error
    }

    @Test func aTrackpointGivesEveryValueTCXHas() throws {
        let extra = "<AltitudeMeters>412.5</AltitudeMeters><DistanceMeters>3.2</DistanceMeters><HeartRateBpm><Value>131</Value></HeartRateBpm>"
            + "<Cadence>88</Cadence><SensorState>Present</SensorState><Extensions><ax:TPX><ax:Speed>4.25</ax:Speed>"
            + "<ax:Watts>210</ax:Watts><ax:Temperature>20</ax:Temperature></ax:TPX><other:X xmlns:other=\"urn:x\"/></Extensions>"
        let bytes = Self.tcx("<Activities><Activity Sport=\"Biking\"><Id>2024-05-01T08:00:00Z</Id><Lap StartTime=\"x\">"
            + "<Calories>42</Calories><Track>\(Self.point(1, extra: extra))</Track></Lap></Activity></Activities>")
        let result = try Self.read(bytes)
        let point = try #require(result.routes.first?.points.first)
        #expect(point == TrackPoint(latitude: 47.3, longitude: 8.5, timestamp: Date(timeIntervalSince1970: 1_714_550_401),
                                    altitude: 412.5, speed: 4.25, heartRate: 131, cadence: 88))
        #expect(result.routes.first?.metadata.calories == 42)
        #expect(result.report.sports == ["Biking"] && result.report.activities == ["ride"])
        #expect(result.routes.first?.metadata.activity == .ride)
        #expect(result.report.powerReadingsDropped == 1 && result.report.unknownExtensionsSkipped == 2)
    }

    @Test func trackpointsWithoutAPositionAreSkippedAndGiveNothingToTheirNeighbours() throws {
        let bytes = Self.tcx("<Activities><Activity Sport=\"Running\"><Id>x</Id><Lap><Track>"
            + Self.point(1) + Self.point(2, nil, extra: "<HeartRateBpm><Value>150</Value></HeartRateBpm>") + Self.point(3, 47.31)
            + "</Track></Lap></Activity></Activities>")
        let result = try Self.read(bytes)
        #expect(result.routes.first?.points.map(\.heartRate) == [nil, nil])
        #expect(result.routes.first?.points.map(\.latitude) == [47.3, 47.31])
        #expect(result.report.pointsWithoutPositionSkipped == 1)
    }

    @Test func aSecondTrackInALapIsAPauseButANewLapIsNot() throws {
        let track = { (from: Int) in "<Track>\(Self.point(from))\(Self.point(from + 1, 47.3001))</Track>" }
        let bytes = Self.tcx("<Activities><Activity Sport=\"Running\"><Lap>\(track(0))\(track(10))</Lap>"
            + "<Lap>\(track(20))</Lap></Activity></Activities>")
        let result = try Self.read(bytes)
        #expect(result.routes.first?.segmentStarts == [2])
        #expect(result.report.pausesKept == 1 && result.report.lapsRead == 2)
    }

    @Test func coursesAreRoutesNamedAfterThemAndTheirCoursePointsAreSkipped() throws {
        let bytes = Self.tcx("<Courses><Course><Name>Loop</Name><Lap><TotalTimeSeconds>1</TotalTimeSeconds></Lap>"
            + "<Track>\(Self.point(0))\(Self.point(5, 47.301))</Track>"
            + "<CoursePoint><Name>Water</Name><Time>2024-05-01T08:00:03Z</Time></CoursePoint></Course></Courses>"
            + "<Workouts><Workout><Name>not a path</Name></Workout></Workouts>")
        let result = try Self.read(bytes)
        #expect(result.routes.first?.metadata.name == "Loop" && result.routes.first?.points.count == 2)
        #expect(result.report.waypointsSkipped == 1 && result.report.sports == [nil])
    }

    @Test func everyActivityOfAMultisportSessionIsARoute() throws {
        let bytes = Self.tcx("<Activities><MultiSportSession><Id>x</Id><FirstSport><Activity Sport=\"Running\"><Lap><Track>"
            + Self.point(0) + "</Track></Lap></Activity></FirstSport><NextSport><Activity Sport=\"Biking\"><Lap><Track>"
            + Self.point(30) + "</Track></Lap></Activity></NextSport></MultiSportSession>"
            + "<Activity Sport=\"Other\"><Lap/></Activity></Activities>")
        let result = try Self.read(bytes)
        #expect(result.routes.count == 2 && result.report.sports == ["Running", "Biking"])
        #expect(result.report.emptyPathsSkipped == 1)
    }

    @Test func runCadenceStandsInForAMissingCadenceAndTheIdDatesUntimedPoints() throws {
        let point = "<Trackpoint><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position>"
            + "<Extensions><ax:TPX><ax:RunCadence>84</ax:RunCadence></ax:TPX></Extensions></Trackpoint>"
        let bytes = Self.tcx("<Activities><Activity Sport=\"Walking\"><Id>2020-01-02T03:04:05Z</Id><Lap><Track>\(point)</Track></Lap></Activity></Activities>")
        let result = try Self.read(bytes)
        let first = try #require(result.routes.first?.points.first)
        #expect(first.cadence == 84 && ISO8601Time.format(first.timestamp) == "2020-01-02T03:04:05.000Z")
        #expect(result.report.untimedRoutes == 1 && result.report.activities == ["walk"])
        #expect(result.routes.first?.metadata.activity == .walk)
    }

    @Test func malformedFilesAreRefusedWithLineAndColumn() throws {
        let good = Self.tcx("<Activities><Activity Sport=\"Running\"><Lap><Track>\(Self.point(0))</Track></Lap></Activity></Activities>")
        #expect(try refusal(Array(good.prefix(good.count - 40))).message.contains("truncated"))
        let badLatitude = Self.tcx("<Activities><Activity><Lap><Track>\(Self.point(0, 91))</Track></Lap></Activity></Activities>")
        #expect(try refusal(badLatitude).message.contains("outside -90...90"))
        let notANumber = Self.tcx("<Activities><Activity><Lap><Track>\(Self.point(0, extra: "<AltitudeMeters>high</AltitudeMeters>"))"
            + "</Track></Lap></Activity></Activities>")
        #expect(try refusal(notANumber).message.contains("<AltitudeMeters> holds \"high\""))
        let lateTime = Self.tcx("<Activities><Activity><Lap><Track><Trackpoint><Time>2250-01-01T00:00:00Z</Time></Trackpoint>"
            + "</Track></Lap></Activity></Activities>")
        #expect(try refusal(lateTime).message.contains("outside 1970...2200"))
        let prefix = Self.tcx("<Activities><q:Activity/></Activities>")
        let undeclared = try refusal(prefix).message
        #expect(undeclared.contains("prefix"), "\(undeclared)")
        #expect(try refusal(Self.tcx("", root: "<gpx>")).message.contains("not <TrainingCenterDatabase>"))
        let v1 = Self.tcx("", root: "<TrainingCenterDatabase xmlns=\"\(TCXReader.namespaceV1)\">")
        #expect(try refusal(v1).message.contains("version 1"))
    }

    @Test func anOverlongTextIsRefusedWhileStreamingAtTheLimit() throws {
        let name = String(repeating: "n", count: 70_000)
        let bytes = Self.tcx("<Courses><Course><Name>\(name)</Name></Course></Courses>")
        #expect(try refusal(bytes).message.contains("longer than 65536 bytes"))
        var options = RouteImportOptions()
        options.maximumTextBytes = 10
        let short = Self.tcx("<Courses><Course><Name>Eleven char</Name></Course></Courses>")
        #expect(try refusal(short, options: options).message.contains("<Name> is longer than 10 bytes"))
        let sport = Self.tcx("<Activities><Activity Sport=\"\(String(repeating: "s", count: 11))\"/></Activities>")
        #expect(try refusal(sport, options: options).message.contains("Sport attribute"))
    }

    @Test func readingStopsAtThePointLimit() throws {
        var options = RouteImportOptions()
        options.maximumPoints = 3
        let points = (0..<4).map { Self.point($0, 47.3 + Double($0) / 1000) }.joined()
        let bytes = Self.tcx("<Activities><Activity><Lap><Track>\(points)</Track></Lap></Activity></Activities>")
        #expect(try refusal(bytes, options: options).message.contains("more than 3 Trackpoints"))
        options.maximumPoints = 4
        #expect(try Self.read(bytes, options: options).report.pointCount == 4)
    }

    @Test func timesOutsideTrackpointsAreNotPointTimes() throws {
        // A Creator's build time is free text; only a Trackpoint's own <Time> is read.
        let bytes = Self.tcx("<Activities><Activity Sport=\"Running\"><Lap><Track>\(Self.point(7))</Track></Lap>"
            + "<Creator><Version><Time>May 20 2008, 16:58:11</Time></Version></Creator></Activity></Activities>")
        #expect(try Self.read(bytes).routes.first?.points.first?.timestamp == Date(timeIntervalSince1970: 1_714_550_407))
    }
}
