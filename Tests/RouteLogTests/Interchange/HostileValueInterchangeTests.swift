import Foundation
import Testing
@testable import RouteLog

/// Values at the edges of what RouteLog holds, through its readers and writers: a
/// preview decoded from JSON, a route the app never saved exported, the last storable
/// millisecond and a heart rate of 0 in a GPX round trip, and values built from mixed
/// content or hex floats refused by the importers.
@Suite struct HostileValueInterchangeTests {
    static func decodePreview(_ json: String) -> Result<RoutePreview, any Error> {
        Result { try JSONDecoder().decode(RoutePreview.self, from: Data(json.utf8)) }
    }

    @Test(arguments: [
        #"{"coordinates":[{"latitude":1e300,"longitude":0}],"tolerance":0}"#,
        #"{"coordinates":[{"latitude":9e13,"longitude":0},{"latitude":-9e13,"longitude":0}],"tolerance":0}"#,
        #"{"coordinates":[{"latitude":0,"longitude":180.5}],"tolerance":0}"#,
        #"{"coordinates":[{"latitude":45,"longitude":9}],"tolerance":-1}"#,
        #"{"coordinates":[{"latitude":45,"longitude":9}],"tolerance":1e999}"#,
    ])
    func aPreviewOffTheGlobeIsADecodingError(_ json: String) {
        guard case .failure(let error) = Self.decodePreview(json) else {
            Issue.record("decoded \(json)")
            return
        }
        #expect(error is DecodingError, "\(error)")
    }

    @Test func aPreviewOnTheGlobeStillDecodes() throws {
        let json = #"{"coordinates":[{"latitude":-90,"longitude":-180},{"latitude":90,"longitude":180}],"tolerance":12.5}"#
        let preview = try Self.decodePreview(json).get()
        #expect(preview.coordinates == [Coordinate(latitude: -90, longitude: -180), Coordinate(latitude: 90, longitude: 180)])
        #expect(preview.tolerance == 12.5)
    }

    /// The exporters take any `Route`; one with times no store holds is written with
    /// the times clamped as the store's integers are, not a stop of the process.
    @Test(arguments: [1e17, -1e17, 9.3e15, .infinity, -.infinity, .nan])
    func everyExporterWritesARouteWithATimeNoStoreHolds(_ seconds: Double) {
        let route = Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: seconds)),
                                   TrackPoint(latitude: 1.1, longitude: 2.1, timestamp: Date(timeIntervalSince1970: 0))])
        for format in [RouteExportFormat.gpx, .geojson, .csv, .json] {
            let text = String(decoding: RouteExporter.data(for: route, format: format), as: UTF8.self)
            #expect(text.contains("1970-01-01T00:00:00.000Z"), "\(format)")
        }
    }

    @Test func theLastStorableMillisecondSurvivesAGPXRoundTrip() throws {
        let last = Date(timeIntervalSince1970: 7_258_118_399.999)
        let route = Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: last)])
        try RouteValidation.validate(route.points[0], index: 0)
        let text = RouteExporter.data(for: route, format: .gpx)
        #expect(String(decoding: text, as: UTF8.self).contains("2199-12-31T23:59:59.999Z"))
        let read = try GPXImporter.read(data: text, source: "last.gpx")
        #expect(read.routes.first?.points.first?.timestamp == last)
        // One millisecond later is 2200, which no store holds.
        let later = Data(String(decoding: text, as: UTF8.self).replacingOccurrences(of: "2199-12-31T23:59:59.999Z", with: "2200-01-01T00:00:00.000Z").utf8)
        #expect(throws: RouteLogError.self) { try GPXImporter.read(data: later, source: "later.gpx") }
    }

    @Test func aHeartRateOf0SurvivesAGPXRoundTripAndGarminsStillMeansNoReading() throws {
        let route = Route(points: [
            TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 1_700_000_000), heartRate: 0),
            TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 1_700_000_001), heartRate: 131),
        ])
        let text = RouteExporter.data(for: route, format: .gpx)
        let written = String(decoding: text, as: UTF8.self)
        #expect(written.contains("<routelog:hr>0</routelog:hr>") && !written.contains("<gpxtpx:hr>0</gpxtpx:hr>"))
        let points = try #require(try GPXImporter.read(data: text, source: "hr.gpx").routes.first).points
        #expect(points.map(\.heartRate) == [0, 131])
        let garmin = Data(written.replacingOccurrences(of: "<extensions><routelog:hr>0</routelog:hr></extensions>", with:
            "<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>0</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions>").utf8)
        #expect(garmin != text)
        let fromGarmin = try #require(try GPXImporter.read(data: garmin, source: "garmin.gpx").routes.first).points
        #expect(fromGarmin.map(\.heartRate) == [nil, 131])
    }

    static func gpx(point inner: String) -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1" xmlns:x="urn:x"
             xmlns:g="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
        <trk><name>A</name><trkseg><trkpt lat="1" lon="2"><time>2024-05-01T08:00:00Z</time>\(inner)</trkpt></trkseg></trk>
        </gpx>
        """.utf8)
    }

    @Test(arguments: [
        "<ele>1<x:foo>5</x:foo>0</ele>",
        "<extensions><g:TrackPointExtension><g:hr>1<x:foo>99</x:foo>2</g:hr></g:TrackPointExtension></extensions>",
        "<ele>1<ele>5</ele>0</ele>",
    ])
    func aGPXValueAroundAnElementIsRefused(_ inner: String) throws {
        let error = try #require(throwsError { try GPXImporter.read(data: Self.gpx(point: inner), source: "mixed.gpx") })
        #expect(error.message.contains("is inside an element whose value is text"), "\(error.message)")
        // The same values without the element inside are read.
        let plain = inner.replacingOccurrences(of: "<x:foo>5</x:foo>", with: "").replacingOccurrences(of: "<ele>5</ele>", with: "")
            .replacingOccurrences(of: "<x:foo>99</x:foo>", with: "")
        let point = try #require(try GPXImporter.read(data: Self.gpx(point: plain), source: "plain.gpx").routes.first?.points.first)
        #expect(point.altitude == 10 || point.heartRate == 12)
    }

    @Test func aGPXNameAroundAnElementIsRefused() throws {
        let data = Data(String(decoding: Self.gpx(point: ""), as: UTF8.self)
            .replacingOccurrences(of: "<name>A</name>", with: "<name>A<x:b>B</x:b>C</name>").utf8)
        let error = try #require(throwsError { try GPXImporter.read(data: data, source: "name.gpx") })
        #expect(error.message.contains("<x:b> is inside an element whose value is text"), "\(error.message)")
    }

    @Test func aTCXValueAroundAnElementIsRefused() throws {
        let position = "<Position><LatitudeDegrees>1<x:a xmlns:x=\"urn:x\">2</x:a>0</LatitudeDegrees><LongitudeDegrees>8</LongitudeDegrees></Position>"
        let bytes = TCXImportStructureTests.tcx("<Activities><Activity Sport=\"Running\"><Id>2024-05-01T08:00:00Z</Id><Lap StartTime=\"x\"><Track>"
            + "<Trackpoint><Time>2024-05-01T08:00:01Z</Time>\(position)</Trackpoint></Track></Lap></Activity></Activities>")
        let error = try #require(throwsError { try TCXImportStructureTests.read(bytes) })
        #expect(error.message.contains("<x:a> is inside <LatitudeDegrees>"), "\(error.message)")
    }

    @Test(arguments: ["0x1p5", "inf", "nan", "1e", "--1"])
    func aTCXNumberOutsideTheXSDGrammarIsRefused(_ text: String) throws {
        let bytes = TCXImportStructureTests.tcx("<Activities><Activity Sport=\"Running\"><Id>2024-05-01T08:00:00Z</Id><Lap StartTime=\"x\"><Track>"
            + TCXImportStructureTests.point(1, extra: "<AltitudeMeters>\(text)</AltitudeMeters>") + "</Track></Lap></Activity></Activities>")
        let error = try #require(throwsError { try TCXImportStructureTests.read(bytes) })
        #expect(error.message.contains("not a number"), "\(error.message)")
        let plain = TCXImportStructureTests.tcx("<Activities><Activity Sport=\"Running\"><Id>2024-05-01T08:00:00Z</Id><Lap StartTime=\"x\"><Track>"
            + TCXImportStructureTests.point(1, extra: "<AltitudeMeters> 3.2E1 </AltitudeMeters>") + "</Track></Lap></Activity></Activities>")
        #expect(try TCXImportStructureTests.read(plain).routes.first?.points.first?.altitude == 32)
    }
}
