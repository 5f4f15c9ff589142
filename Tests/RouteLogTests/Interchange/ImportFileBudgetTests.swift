import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// What a whole imported file may ask for, not only each route of it: the splits of all
/// its routes together (``ImportLimits/splitsPerFile``), and in TCX as in GPX the number
/// of different XML names (``ImportLimits/xmlNames``). Without them a GPX file of 81 KB
/// (400 tracks of 7 points, each zigzagging across the globe) asked for 1.9 GB of splits,
/// an old app's archive of 101 KB the same, and a TCX file of 16 MB of different element
/// names took half a minute in libxml2, as did processing instructions, namespace
/// prefixes and one start tag's attributes, which no delegate sees.
@Suite struct ImportFileBudgetTests {
    static let gpxOpen = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"x\" xmlns=\"http://www.topografix.com/GPX/1/1\">"

    /// `tracks` tracks of 7 untimed points alternating between longitude 0 and 180: about
    /// 120,000 km, 194,000 kilometre and mile splits, each.
    static func zigzags(_ tracks: Int) -> Data {
        let hop = (0..<7).map { "<trkpt lat=\"0\" lon=\"\($0 % 2 == 0 ? 0 : 180)\"/>" }.joined()
        return Data((gpxOpen + String(repeating: "<trk><trkseg>" + hop + "</trkseg></trk>", count: tracks) + "</gpx>").utf8)
    }

    @Test func aGPXFileWhoseRoutesPassTheFilesSplitsIsRefused() throws {
        // Five such tracks fit a million splits; the sixth does not.
        let five = try RouteImporter.read(data: Self.zigzags(5), source: "five.gpx")
        let splits = five.routes.reduce(0) { $0 + $1.splits.count }
        #expect(five.routes.count == 5 && splits > 900_000 && splits <= 1_000_000, "\(splits) splits")
        do {
            _ = try RouteImporter.read(data: Self.zigzags(400), source: "many.gpx")
            Issue.record("400 zigzag tracks were imported")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("ImportLimits.splitsPerFile") && error.message.contains("route 6"), "\(error.message)")
        }
        // A lower budget is honoured too.
        var options = RouteImportOptions()
        options.limits.splitsPerFile = 200_000
        #expect(throws: RouteLogError.self) { _ = try RouteImporter.read(data: Self.zigzags(2), source: "two.gpx", options: options) }
    }

    @Test func anArchiveWhoseRoutesPassTheFilesSplitsIsRefused() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("splits.archive")
        // 40 route objects, each with 200,000 archived kilometre splits.
        try HostileInputs.archive(routes: 40, references: 1, locations: 1, splits: 200_000, to: url)
        do {
            _ = try LegacyArchiveMigrator.read(data: try Data(contentsOf: url), source: "splits.archive")
            Issue.record("an archive of 40 routes of 200,000 splits each was read")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("ImportLimits.splitsPerFile"), "\(error.message)")
        }
        // Five fit.
        try HostileInputs.archive(routes: 5, references: 1, locations: 1, splits: 200_000, to: url)
        let (routes, _) = try LegacyArchiveMigrator.read(data: try Data(contentsOf: url), source: "five.archive")
        #expect(routes.reduce(0) { $0 + $1.splits.count } == 1_000_000)
    }

    /// An old app's archive keeps its kilometre splits and has its miles computed: the
    /// budget is charged for the splits kept, so a file exactly at it is read.
    @Test func anArchiveIsChargedForTheSplitsItKeeps() throws {
        let archive = try Data(contentsOf: KeyedArchiveMigrationTests.pythonFixture)
        let (routes, _) = try LegacyArchiveMigrator.read(data: archive, source: "legacy.archive")
        let kept = routes.reduce(0) { $0 + $1.splits.count }
        #expect(kept > 0)
        var limits = ImportLimits()
        limits.splitsPerFile = kept
        #expect(try LegacyArchiveMigrator.read(data: archive, source: "legacy.archive", limits: limits).routes.count == routes.count)
        limits.splitsPerFile = kept - 1
        #expect(throws: RouteLogError.self) { _ = try LegacyArchiveMigrator.read(data: archive, source: "legacy.archive", limits: limits) }
    }

    static let onePoint = "<trk><trkseg><trkpt lat=\"1\" lon=\"1\"><time>2020-01-01T00:00:00Z</time></trkpt></trkseg></trk>"

    /// A GPX file with `markup` before its one point.
    static func gpx(_ markup: String) -> Data { Data((gpxOpen + markup + onePoint + "</gpx>").utf8) }

    /// Markup whose names libxml2 keeps but the reader never sees, or one start tag of
    /// many attributes (which libxml2 checks against each other before the reader sees
    /// the tag): a thousand of each are read, more are refused before the parser meets
    /// them.
    @Test(arguments: ["instructions", "prefixes", "attributes", "tcx attributes"])
    func markupTheParserPaysQuadraticallyForIsCounted(_ kind: String) throws {
        func file(_ n: Int) -> Data {
            switch kind {
            case "instructions": return Self.gpx((0..<n).map { "<?p\($0) x?>" }.joined())
            case "prefixes": return Self.gpx((0..<n).map { "<extensions xmlns:p\($0)=\"u\"/>" }.joined())
            case "attributes": return Self.gpx("<extensions" + (0..<n).map { " a\($0)='>'" }.joined() + "/>")
            default:
                return Data(("<?xml version=\"1.0\"?>\n<TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\">"
                    + "<Folders" + (0..<n).map { " a\($0)=\"\"" }.joined() + "/><Activities><Activity Sport=\"Running\"><Lap><Track>"
                    + "<Trackpoint><Time>2020-01-01T00:00:00Z</Time><Position><LatitudeDegrees>1</LatitudeDegrees>"
                    + "<LongitudeDegrees>1</LongitudeDegrees></Position></Trackpoint></Track></Lap></Activity></Activities>"
                    + "</TrainingCenterDatabase>").utf8)
            }
        }
        // The XML declaration is a processing instruction too, and the root's xmlns a
        // namespace declaration.
        let fits = kind == "instructions" || kind == "prefixes" ? 999 : 1_000
        #expect(try RouteImporter.read(data: file(fits), source: kind).routes.count == 1)
        do {
            _ = try RouteImporter.read(data: file(fits + 1), source: kind)
            Issue.record("\(kind): one past the limit was read")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("more than 1,000"), "\(error.message)")
        }
    }

    /// What looks like a start tag in a comment, a CDATA section or a DOCTYPE literal,
    /// with a quote in it, hides nothing after it: an empty processing instruction (which
    /// crashes the XML parser on Linux) is still stopped, and the counts still count.
    @Test(arguments: ["<!-- <a ' -->", "<!-- <a \" -->", "<desc><![CDATA[<a ']]></desc>", "<!-- <b ' <c \" -->"])
    func aQuoteInACommentHidesNothing(_ decoy: String) throws {
        for (after, what) in [("<?p?>", "processing instruction without data"),
                              ((0..<1_001).map { "<?p\($0) x?>" }.joined(), "more than 1,000"),
                              ("<extensions" + (0..<1_001).map { " a\($0)=''" }.joined() + "/>", "more than 1,000")] {
            do {
                _ = try RouteImporter.read(data: Self.gpx(decoy + after), source: "decoy.gpx")
                Issue.record("\(decoy) hid \(what)")
            } catch let error as RouteLogError {
                #expect(error.message.contains(what), "\(error.message)")
            }
        }
    }

    /// Namespace declarations count once each: one repeated on every point (as exporters
    /// write extensions) is read, a thousand different default namespaces are refused.
    @Test func namespaceDeclarationsCountOnceEach() throws {
        let point = "<trkpt lat=\"1\" lon=\"1\"><extensions><x:e xmlns:x=\"urn:one\"/><e xmlns=\"urn:two\"/></extensions></trkpt>"
        let repeated = Data((Self.gpxOpen + "<trk><trkseg>" + String(repeating: point, count: 1_500) + "</trkseg></trk></gpx>").utf8)
        #expect(try RouteImporter.read(data: repeated, source: "repeated.gpx").routes.first?.points.count == 1_500)
        let different = Self.gpx((0..<1_001).map { "<extensions xmlns=\"urn:x:\($0)\"/>" }.joined())
        do {
            _ = try RouteImporter.read(data: different, source: "different.gpx")
            Issue.record("1,001 different default namespaces were read")
        } catch let error as RouteLogError {
            #expect(error.message.contains("different namespace declarations"), "\(error.message)")
        }
    }

    @Test func aTCXFileOfTooManyDifferentNamesIsRefused() throws {
        func tcx(names: Int) -> Data {
            let names = (0..<names).map { "<e\($0)/>" }.joined()
            return Data(("<?xml version=\"1.0\"?>\n<TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\">"
                + "<Folders>" + names + "</Folders><Activities><Activity Sport=\"Running\"><Lap><Track><Trackpoint>"
                + "<Time>2020-01-01T00:00:00Z</Time><Position><LatitudeDegrees>1</LatitudeDegrees>"
                + "<LongitudeDegrees>1</LongitudeDegrees></Position></Trackpoint></Track></Lap></Activity></Activities>"
                + "</TrainingCenterDatabase>").utf8)
        }
        #expect(try RouteImporter.read(data: tcx(names: 9_000), source: "fine.tcx").routes.count == 1)
        do {
            _ = try RouteImporter.read(data: tcx(names: 20_000), source: "names.tcx")
            Issue.record("a TCX file of 20,000 different element names was imported")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("ImportLimits.xmlNames"), "\(error.message)")
        }
    }
}
