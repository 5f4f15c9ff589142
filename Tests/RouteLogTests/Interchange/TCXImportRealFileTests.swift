import Foundation
import Testing
@testable import RouteLog

/// Every real TCX file gets the outcome the README documents, and every point agrees
/// with Python's own XML parser (xml.etree, not libxml2) reading the same elements.
@Suite(.enabled(if: WatchFileFixtures.available, "needs ../shared/data/tcx (never copied into the project)"))
struct TCXImportRealFileTests {
    struct Expected: Sendable, CustomStringConvertible {
        var file: String
        var points: [Int]
        var withoutPosition = 0
        var laps: Int
        var pauses = 0
        var power = 0
        var sports: [String?]
        var name: String?
        /// The first and last point and the duration, as Python's xml.etree reads them.
        var ends: RouteEnds
        var description: String { file }
    }

    static let expectations: [Expected] = [
        Expected(file: "gpsbabel__bike.tcx", points: [1812], laps: 2, sports: ["Biking"],
                 ends: RouteEnds(("2013-04-30T19:23:57Z", 40.7817045, -73.9609005), ("2013-04-30T19:54:11Z", 40.7819944, -73.9605290), 1814)),
        Expected(file: "gpsbabel__course.tcx", points: [1202], withoutPosition: 3, laps: 1, pauses: 1, sports: [nil],
                 name: "ThursRide",
                 ends: RouteEnds(("2008-08-21T13:08:52Z", 34.1738977, -118.7587927), ("2008-08-21T14:58:06Z", 34.1555902, -118.7570634), 6554)),
        Expected(file: "gpsbabel__gtrnctr_power.tcx", points: [5109], laps: 1, power: 4606, sports: ["Biking"],
                 ends: RouteEnds(("2010-05-28T01:16:36Z", 37.3416909, -122.0711739), ("2010-05-28T02:41:44Z", 37.3415899, -122.0714110), 5108)),
        Expected(file: "tcxparser__no_hr.tcx", points: [383], withoutPosition: 1, laps: 3, sports: ["Running"],
                 ends: RouteEnds(("2012-12-26T21:29:53Z", 35.9518802, -79.0931872), ("2012-12-26T22:03:04Z", 35.9519545, -79.0930144), 1991)),
        Expected(file: "tcxparser__sup_activity_1.tcx", points: [111], laps: 2, sports: ["Other"],
                 ends: RouteEnds(("2022-07-16T16:08:25Z", 46.6369239, 16.1683627), ("2022-07-16T16:26:57Z", 46.6368975, 16.1683323), 1112)),
        Expected(file: "tcxparser__test.tcx", points: [383], withoutPosition: 1, laps: 3, sports: ["Running"],
                 ends: RouteEnds(("2012-12-26T21:29:53Z", 35.9518802, -79.0931872), ("2012-12-26T22:03:04Z", 35.9519545, -79.0930144), 1991)),
    ]

    @Test func everyFileHasAnExpectation() {
        #expect(WatchFileFixtures.names(in: WatchFileFixtures.tcxDirectory, suffix: ".tcx") == Self.expectations.map(\.file))
    }

    @Test(arguments: expectations)
    func importsWithItsDocumentedOutcome(_ expected: Expected) throws {
        let result = try TCXImporter.read(contentsOf: WatchFileFixtures.tcx(expected.file))
        let report = result.report
        #expect(result.routes.map(\.points.count) == expected.points)
        #expect(report.format == .tcx && report.pointCount == expected.points.reduce(0, +))
        #expect(report.pointsWithoutPositionSkipped == expected.withoutPosition && report.lapsRead == expected.laps)
        #expect(report.pausesKept == expected.pauses && report.powerReadingsDropped == expected.power)
        #expect(report.sports == expected.sports && result.routes.first?.metadata.name == expected.name)
        #expect(report.jumpsBroken == 0 && report.untimedRoutes == 0 && report.interpolatedTimes == 0)
        for route in result.routes { try RouteValidation.validate(route) }
        if let route = result.routes.first { expected.ends.check(route, expected.file) }
    }

    /// Python's xml.etree reads the same elements; every point and the calories must agree.
    @Test(.tags(.externalReader), .enabled(if: PythonReaders.available("json"), "needs python3 in .build/pyenv (make pyenv)"))
    func everyPointAgreesWithPythonsXMLParser() throws {
        let paths = Self.expectations.map { WatchFileFixtures.tcx($0.file).path }
        let output = try PythonReaders.script(Self.elementTreeScript, paths)
        let decoded = try JSONDecoder().decode([String: Reference].self, from: Data(output.utf8))
        for expected in Self.expectations {
            let route = try #require(try TCXImporter.read(contentsOf: WatchFileFixtures.tcx(expected.file)).routes.first)
            let reference = try #require(decoded[expected.file])
            #expect(route.points.count == reference.points.count, "\(expected.file)")
            #expect(route.metadata.calories == reference.calories, "\(expected.file): the laps' calories summed")
            for (index, (point, values)) in zip(route.points, reference.points).enumerated() {
                let mine: [Double?] = [point.timestamp.timeIntervalSince1970, point.latitude, point.longitude,
                                       point.altitude, point.heartRate, point.cadence, point.speed]
                for (field, (a, b)) in zip(Reference.fields, zip(mine, values)) where a != b {
                    Issue.record("\(expected.file) point \(index) \(field): \(String(describing: a)) vs \(String(describing: b))")
                    return
                }
            }
        }
    }

    struct Reference: Decodable {
        static let fields = ["time", "latitude", "longitude", "altitude", "heart rate", "cadence", "speed"]
        var points: [[Double?]]
        var calories: Double?
    }

    static let elementTreeScript = """
    import sys, json, datetime
    import xml.etree.ElementTree as ET
    T = '{http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2}'
    X = '{http://www.garmin.com/xmlschemas/ActivityExtension/v2}'
    def num(element, path):
        text = element.findtext(path)
        return float(text) if text is not None and text.strip() else None
    out = {}
    for path in sys.argv[1:]:
        root = ET.parse(path).getroot()
        first = next(iter(list(root.iter(T + 'Activity')) + list(root.iter(T + 'Course'))))
        points = []
        for tp in first.iter(T + 'Trackpoint'):
            if tp.find(T + 'Position') is None:
                continue
            time = datetime.datetime.fromisoformat(tp.findtext(T + 'Time').strip()).timestamp()
            hr = num(tp, T + 'HeartRateBpm/' + T + 'Value')
            cadence = num(tp, T + 'Cadence')
            if cadence is None:
                cadence = num(tp, T + 'Extensions/' + X + 'TPX/' + X + 'RunCadence')
            points.append([time, num(tp, T + 'Position/' + T + 'LatitudeDegrees'),
                           num(tp, T + 'Position/' + T + 'LongitudeDegrees'), num(tp, T + 'AltitudeMeters'),
                           hr if hr else None, cadence, num(tp, T + 'Extensions/' + X + 'TPX/' + X + 'Speed')])
        calories = [num(lap, T + 'Calories') for lap in first.findall(T + 'Lap')]
        calories = [c for c in calories if c is not None]
        out[path.split('/')[-1]] = {'points': points, 'calories': sum(calories) if calories else None}
    print(json.dumps(out))
    """
}
