import Foundation
import Testing
@testable import RouteLog

/// Every real FIT file gets the outcome the README documents ("Importing FIT and TCX"),
/// checked against facts established without RouteLog: bytes decoded by hand, and the
/// Python package fitdecode reading every record.
@Suite(.enabled(if: WatchFileFixtures.available, "needs ../shared/data/fit (never copied into the project)"))
struct FITImportRealFileTests {
    struct Expected: Sendable, CustomStringConvertible {
        var file: String
        var points: [Int] = []
        var withoutPosition = 0
        var laps = 0
        var pauses = 0
        var power = 0
        var developerFields = 0
        var chained = 1
        var sports: [String?] = []
        /// For a refused file: words of the error and its byte offset.
        var refusal: (words: String, offset: Int64)?
        /// The first route's first and last point and its duration, as fitdecode reads them.
        var ends: RouteEnds?
        var description: String { file }
    }

    static let expectations: [Expected] = [
        Expected(file: "muktihari__activity-dev-fields.fit", points: [3601], laps: 1, power: 3601, developerFields: 3604,
                 sports: ["stand_up_paddleboarding"],
                 ends: RouteEnds(("2022-08-15T17:39:09Z", 0.0000000, 0.0000000), ("2022-08-15T18:39:09Z", 0.0000000, 0.0323393), 3600)),
        Expected(file: "muktihari__activity-multisport.fit", withoutPosition: 78, laps: 7),
        Expected(file: "muktihari__activity-truncated.fit", withoutPosition: 14),
        Expected(file: "tormoder__2013-02-06.fit", points: [583], withoutPosition: 7, laps: 5, sports: ["running"],
                 ends: RouteEnds(("2013-02-06T12:11:14Z", 57.3846136, -4.4299146), ("2013-02-06T12:54:58Z", 57.3846353, -4.4306117), 2624)),
        Expected(file: "tormoder__chained-activity-settings.fit", points: [14], laps: 1, chained: 2, sports: ["running"],
                 ends: RouteEnds(("2012-04-09T21:22:26Z", 41.5139261, -73.1485908), ("2012-04-09T21:22:39Z", 41.5139237, -73.1486391), 13)),
        Expected(file: "tormoder__compressed-speed-distance.fit", withoutPosition: 755, laps: 11),
        Expected(file: "tormoder__corrupt-filecrc.fit", refusal: ("the file CRC is 0xB1D5 but the bytes give 0xA1D5", 769)),
        Expected(file: "tormoder__corrupt-unexpected-eof.fit",
                 refusal: ("757 bytes of records and a 2-byte CRC follow it, but only 756 bytes remain", 4)),
        Expected(file: "tormoder__edge500-activity.fit", points: [10677], withoutPosition: 9, laps: 9, pauses: 47,
                 sports: ["cycling"],
                 ends: RouteEnds(("2011-09-25T13:00:22Z", 43.7133930, -79.3660663), ("2011-09-25T16:31:53Z", 43.6744384, -79.4081180), 12691)),
        Expected(file: "tormoder__edge810-vector.fit", points: [4700], laps: 8, power: 4700, sports: ["cycling"],
                 ends: RouteEnds(("2013-08-16T18:05:10Z", 47.6268263, -52.8154856), ("2013-08-16T19:23:29Z", 47.6264869, -52.8148095), 4699)),
        Expected(file: "tormoder__fenix2-run.fit", points: [2809], laps: 4, sports: ["running"],
                 ends: RouteEnds(("2015-08-15T14:45:08Z", 58.9591828, 5.7288390), ("2015-08-15T15:32:21Z", 58.9588145, 5.7298341), 2833)),
        Expected(file: "tormoder__indoor-trainer.fit", withoutPosition: 2263, laps: 5),
        Expected(file: "tormoder__sdk-activity.fit", points: [14], laps: 1, sports: ["running"],
                 ends: RouteEnds(("2012-04-09T21:22:26Z", 41.5139261, -73.1485908), ("2012-04-09T21:22:39Z", 41.5139237, -73.1486391), 13)),
        Expected(file: "tormoder__sdk-settings.fit"),
    ]

    @Test func everyFileHasAnExpectation() {
        let names = WatchFileFixtures.names(in: WatchFileFixtures.fitDirectory, suffix: ".fit")
        #expect(names == Self.expectations.map(\.file))
    }

    @Test(arguments: expectations)
    func importsWithItsDocumentedOutcome(_ expected: Expected) throws {
        let url = WatchFileFixtures.fit(expected.file)
        if let refusal = expected.refusal {
            let error = try #require(throwsError { try FITImporter.read(contentsOf: url) })
            #expect(error.code == .invalidArgument && error.offset == refusal.offset && error.path == url.path)
            #expect(error.message.contains(refusal.words) && error.message.contains("nothing from this file was imported"))
            return
        }
        let result = try FITImporter.read(contentsOf: url)
        let report = result.report
        #expect(result.routes.map(\.points.count) == expected.points)
        #expect(report.pointCount == expected.points.reduce(0, +) && report.routeCount == expected.points.count)
        #expect(report.pointsWithoutPositionSkipped == expected.withoutPosition)
        #expect(report.lapsRead == expected.laps && report.pausesKept == expected.pauses)
        #expect(report.powerReadingsDropped == expected.power && report.developerFieldsSkipped == expected.developerFields)
        #expect(report.chainedFiles == expected.chained && report.sports == expected.sports)
        #expect(report.jumpsBroken == 0 && report.untimedRoutes == 0 && report.interpolatedTimes == 0)
        for route in result.routes { try RouteValidation.validate(route) }
        if expected.points.isEmpty { #expect(report.notes.last == "no record with a position: nothing imported") }
        if let ends = expected.ends, let route = result.routes.first { ends.check(route, expected.file) }
    }

    /// tormoder__sdk-activity.fit decoded by hand. Its record definition at byte 0x7A is
    /// `42 00 01 00 14 06 fd 04 86 00 04 85 01 04 85 05 04 86 02 02 84 06 02 84`: local
    /// type 2, architecture 1 (big-endian), global 0x0014 = 20, six fields (timestamp,
    /// lat, long, distance, altitude, speed). The first record at 0x92 is
    /// `02 29e60712 1d85612e cbfbb497 00000002 0f33 0000`: time 702940946 s after
    /// 1989-12-31 = 2012-04-09T21:22:26Z; lat 495280430 × 180 / 2³¹; long -872696681
    /// × 180 / 2³¹; altitude 3891 / 5 − 500 = 278.2 m; speed 0. The last of its 14
    /// records is 13 s later (fitdecode agrees).
    @Test func theSDKActivityMatchesItsBytesDecodedByHand() throws {
        let route = try #require(try FITImporter.read(contentsOf: WatchFileFixtures.fit("tormoder__sdk-activity.fit")).routes.first)
        let first = route.points[0]
        #expect(first.timestamp == Date(timeIntervalSince1970: 702_940_946 + 631_065_600))
        #expect(ISO8601Time.format(first.timestamp) == "2012-04-09T21:22:26.000Z")
        #expect(first.latitude == 495_280_430 * 180 / 2_147_483_648.0)
        #expect(first.longitude == -872_696_681 * 180 / 2_147_483_648.0)
        #expect(abs(first.altitude! - 278.2) < 1e-9 && first.speed == 0)
        #expect(RouteMetrics.duration(of: route.points) == 13)
    }

    @Test func aBadCRCIsImportedWhenAllowedAndTheRestIsTheSDKActivity() throws {
        var options = RouteImportOptions()
        options.importsDespiteBadCRC = true
        let damaged = try FITImporter.read(contentsOf: WatchFileFixtures.fit("tormoder__corrupt-filecrc.fit"), options: options)
        let intact = try FITImporter.read(contentsOf: WatchFileFixtures.fit("tormoder__sdk-activity.fit"))
        #expect(damaged.routes == intact.routes)
        #expect(damaged.report.ignoredCRCMismatches.count == 1)
        // A truncated file is still refused: its records do not all decode.
        #expect(throws: RouteLogError.self) {
            try FITImporter.read(contentsOf: WatchFileFixtures.fit("tormoder__corrupt-unexpected-eof.fit"), options: options)
        }
    }

    @Test func refusedFilesLeaveTheStoreUnchanged() throws {
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store())
        defer { try? store.close() }
        _ = try RouteImporter.importFile(WatchFileFixtures.fit("tormoder__sdk-activity.fit"), into: store)
        let before = directorySnapshot(directory.store())
        for name in ["tormoder__corrupt-filecrc.fit", "tormoder__corrupt-unexpected-eof.fit"] {
            #expect(throws: RouteLogError.self) { try RouteImporter.importFile(WatchFileFixtures.fit(name), into: store) }
        }
        #expect(directorySnapshot(directory.store()) == before)
        #expect(try store.summaries().count == 1)
    }

    /// Every point of every file, field by field, against fitdecode's reading.
    @Test(.tags(.externalReader), .enabled(if: WatchFileFixtures.fitdecodeAvailable, "needs the Python package fitdecode (make pyenv)"))
    func everyPointAgreesWithFitdecode() throws {
        let names = Self.expectations.filter { $0.refusal == nil && !$0.points.isEmpty }.map(\.file)
        let output = try PythonReaders.script(Self.fitdecodeScript, names.map { WatchFileFixtures.fit($0).path })
        let decoded = try JSONDecoder().decode([String: Reference].self, from: Data(output.utf8))
        for name in names {
            let route = try #require(try FITImporter.read(contentsOf: WatchFileFixtures.fit(name)).routes.first)
            let reference = try #require(decoded[name])
            #expect(route.points.count == reference.points.count, "\(name)")
            #expect(route.segmentStarts.count == reference.pauses, "\(name): timer stops")
            // The device's own session totals: the same calories, the duration to within
            // 2 s (first to last record against the session's elapsed time), and the
            // distance computed from the points within 1.5% of the device's.
            if let session = reference.session {
                #expect(route.metadata.calories == session.calories, "\(name)")
                #expect(abs(RouteMetrics.duration(of: route.points) - session.elapsed) <= 2, "\(name)")
                if let distance = session.distance {
                    let mine = RouteMetrics.distance(of: route.points, segmentStarts: route.segmentStarts)
                    #expect(abs(mine - distance) / distance < 0.015, "\(name): \(mine) m against the device's \(distance) m")
                }
            }
            for (index, (point, values)) in zip(route.points, reference.points).enumerated() {
                let mine: [Double?] = [point.timestamp.timeIntervalSince1970, point.latitude, point.longitude, point.altitude,
                                       point.speed, point.heartRate, point.cadence, point.horizontalAccuracy]
                for (field, (a, b)) in zip(Reference.fields, zip(mine, values)) {
                    let same = (a == nil && b == nil) || (a != nil && b != nil && abs(a! - b!) <= 1e-9 * max(1, abs(b!)))
                    if !same {
                        Issue.record("\(name) point \(index) \(field): \(String(describing: a)) vs fitdecode's \(String(describing: b))")
                        return
                    }
                }
            }
        }
    }

    struct Reference: Decodable {
        static let fields = ["time", "latitude", "longitude", "altitude", "speed", "heart rate", "cadence", "gps accuracy"]
        struct Session: Decodable {
            var calories: Double?
            var elapsed: Double
            var distance: Double?
        }
        var points: [[Double?]]
        var pauses: Int
        var session: Session?
    }

    static let fitdecodeScript = """
    import sys, json, fitdecode
    STOPS = ('stop', 'stop_all', 'stop_disable', 'stop_disable_all')
    out = {}
    for path in sys.argv[1:]:
        points, pauses, pending, session = [], 0, False, None
        with fitdecode.FitReader(path) as reader:
            for frame in reader:
                if not isinstance(frame, fitdecode.FitDataMessage):
                    continue
                def v(name):
                    return frame.get_value(name, fallback=None) if frame.has_field(name) else None
                if frame.name == 'event' and v('event') == 'timer' and v('event_type') in STOPS:
                    pending = True
                if frame.name == 'session':
                    session = {'calories': v('total_calories'), 'elapsed': v('total_elapsed_time'),
                               'distance': v('total_distance')}
                if frame.name != 'record' or v('position_lat') is None or v('position_long') is None:
                    continue
                if pending and points:
                    pauses += 1
                pending = False
                alt = v('enhanced_altitude') if v('enhanced_altitude') is not None else v('altitude')
                speed = v('enhanced_speed') if v('enhanced_speed') is not None else v('speed')
                points.append([v('timestamp').timestamp(), v('position_lat') * 180 / 2**31,
                               v('position_long') * 180 / 2**31, alt, speed, v('heart_rate') or None,
                               v('cadence'), v('gps_accuracy')])
        out[path.split('/')[-1]] = {'points': points, 'pauses': pauses, 'session': session}
    print(json.dumps(out))
    """
}
