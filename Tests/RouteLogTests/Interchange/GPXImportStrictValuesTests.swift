import Foundation
import Testing
@testable import RouteLog

/// Times and numbers are read as written: a date the calendar does not have, or a
/// number in any syntax but XML Schema's decimal one, fails the file with its line and
/// column instead of becoming some other value.
@Suite struct GPXImportStrictValuesTests {
    static let head = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"

    static func point(lat: String = "47", lon: String = "8", inside: String = "") -> Data {
        Data((head + "<trk><trkseg>\n<trkpt lat=\"\(lat)\" lon=\"\(lon)\">\(inside)</trkpt>\n</trkseg></trk></gpx>\n").utf8)
    }

    func expectRefused(_ data: Data, line: Int, mentions: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let result = try GPXImporter.read(data: data, source: "strict.gpx")
            Issue.record("accepted: \(result.routes.first?.points.first.map { "\($0)" } ?? "no point")",
                         sourceLocation: sourceLocation)
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
            #expect(error.message.contains("line \(line), column "), "\(error.message)", sourceLocation: sourceLocation)
            #expect(error.message.contains(mentions), "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a RouteLogError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [
        ("2024-02-30T00:00:00Z", "2024-02 has 29 days"), ("2023-02-29T12:00:00Z", "2023-02 has 28 days"),
        ("2024-04-31T00:00:00Z", "2024-04 has 30 days"), ("2024-13-01T00:00:00Z", "no month 13"),
        ("2024-00-10T00:00:00Z", "no month 0"), ("2024-05-00T00:00:00Z", "has 31 days"),
        ("2024-05-01T25:00:00Z", "no hour 25"), ("2024-05-01T24:00:01Z", "no hour 24"),
        ("2024-05-01T24:00:00.5Z", "no hour 24"), ("2024-05-01T10:60:00Z", "no minute 60"),
        ("2024-05-01T10:00:61Z", "no second 61"), ("2024-05-01T10:00:60Z", "leap second"),
        ("2024-05-01T10:00:00+15:00", "14:00"),
    ])
    func impossibleTimesAreRefused(time: String, why: String) {
        expectRefused(Self.point(inside: "<time>\(time)</time>"), line: 4, mentions: why)
    }

    @Test func theFilesOwnTimeIsCheckedToo() {
        let text = Self.head + "<metadata>\n<time>2024-02-30T00:00:00Z</time></metadata>\n"
            + "<trk><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>"
        expectRefused(Data(text.utf8), line: 4, mentions: "2024-02 has 29 days")
    }

    @Test func timesThatExistAreRead() throws {
        func read(_ time: String) throws -> String {
            let route = try #require(GPXImporter.read(data: Self.point(inside: "<time>\(time)</time>")).routes.first)
            return ISO8601Time.format(route.points[0].timestamp)
        }
        #expect(try read("2024-02-29T12:00:00Z") == "2024-02-29T12:00:00.000Z")
        #expect(try read("2000-02-29T00:00:00Z") == "2000-02-29T00:00:00.000Z")
        // 24:00:00 is the end of its day (XML Schema 1.0), the next day's midnight.
        #expect(try read("2024-12-31T24:00:00Z") == "2025-01-01T00:00:00.000Z")
        // A leap second, where UTC has them, is read as the next second (POSIX time).
        #expect(try read("2016-12-31T23:59:60Z") == "2017-01-01T00:00:00.000Z")
        #expect(try read("2017-01-01T00:59:60+01:00") == "2017-01-01T00:00:00.000Z")
    }

    @Test(arguments: ["0x1p4", "0x10", "inf", "-inf", "INF", "Infinity", "nan", "NaN", "1_0", "1,5", "", " ",
                      "+", "-", ".", "e5", "1e", "1e+", "1.2.3", "--1", "+-1", "1 2", "\u{661}\u{662}", "4\u{2007}7",
                      "1e999", "12abc"])
    func numbersInOtherSyntaxesAreRefused(text: String) {
        expectRefused(Self.point(lat: text), line: 4, mentions: "is not a latitude")
        guard !GPXReader.isBlank(text) else { return }   // an empty element is no value: see below
        expectRefused(Self.point(inside: "<ele>\(text)</ele>"), line: 4, mentions: "not a decimal number")
        let hr = "<extensions><gpxtpx:TrackPointExtension xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\">"
            + "<gpxtpx:hr>\(text)</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions>"
        expectRefused(Self.point(inside: hr), line: 4, mentions: "not a decimal number")
    }

    @Test func decimalsAsXMLSchemaWritesThemAreRead() throws {
        let cases: [(String, Double)] = [("+1.5", 1.5), (".5", 0.5), ("5.", 5), ("-0", 0), ("007.250", 7.25),
                                         (" 47.1 ", 47.1), ("\t-9.0E-4\n", -0.0009), ("1e1", 10), ("2.5E+1", 25)]
        for (text, value) in cases {
            let lat = try #require(GPXImporter.read(data: Self.point(lat: text)).routes.first).points[0].latitude
            #expect(lat == value, "lat=\"\(text)\"")
            let ele = try #require(GPXImporter.read(data: Self.point(inside: "<ele>\(text)</ele>")).routes.first)
            #expect(ele.points[0].altitude == value, "<ele>\(text)</ele>")
        }
        #expect(XSDNumber.parse("123456789012345678901234567890") == 1.2345678901234568e29)
    }

    @Test func anEmptyValueIsNoValue() throws {
        for inside in ["<ele></ele>", "<ele/>", "<ele> \n </ele>", "<time></time>"] {
            let route = try #require(GPXImporter.read(data: Self.point(inside: inside)).routes.first)
            #expect(route.points[0].altitude == nil, "\(inside)")
        }
    }
}
