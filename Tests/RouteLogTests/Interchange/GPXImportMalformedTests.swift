import Foundation
import Testing
@testable import RouteLog

/// Malformed files fail with their line and column, and give nothing.
@Suite struct GPXImportMalformedTests {
    static let head = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"

    func expectMalformed(_ text: String, line: Int, mentions: String,
                         sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let result = try GPXImporter.read(data: Data(text.utf8), source: "bad.gpx")
            Issue.record("expected an error, got \(result.routes.count) routes", sourceLocation: sourceLocation)
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
            #expect(error.message.contains("line \(line), column "), "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(mentions), "\(error)", sourceLocation: sourceLocation)
            #expect(error.path == "bad.gpx", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a RouteLogError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func truncatedFile() {
        expectMalformed(Self.head + "<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>2024-05-01T10:00:00Z</time></trkpt>\n<trkpt lat=\"1",
                        line: 5, mentions: "truncated")
    }

    @Test func missingClosingTag() {
        expectMalformed(Self.head + "<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\">\n</trkseg></trk></gpx>\n",
                        line: 5, mentions: "closing tag")
    }

    @Test func undeclaredPrefix() {
        expectMalformed(Self.head + "<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><extensions>\n<gpxtpx:hr>150</gpxtpx:hr>"
                            + "</extensions></trkpt></trkseg></trk></gpx>\n",
                        line: 5, mentions: "prefix")
    }

    @Test func latitudeThatIsNotANumber() {
        expectMalformed(Self.head + "<trk><trkseg>\n\n<trkpt lat=\"north\" lon=\"2\"></trkpt></trkseg></trk></gpx>\n",
                        line: 5, mentions: "latitude")
    }

    @Test func latitudeOutOfRangeAndNaN() {
        expectMalformed(Self.head + "<trk><trkseg>\n<trkpt lat=\"91\" lon=\"2\"></trkpt></trkseg></trk></gpx>\n",
                        line: 4, mentions: "latitude")
        expectMalformed(Self.head + "<trk><trkseg>\n<trkpt lat=\"1\" lon=\"NaN\"></trkpt></trkseg></trk></gpx>\n",
                        line: 4, mentions: "longitude")
    }

    @Test func timeThatIsNotADateOrOutOfRange() {
        expectMalformed(Self.head + "<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>yesterday</time></trkpt></trkseg></trk></gpx>\n",
                        line: 4, mentions: "ISO 8601")
        expectMalformed(Self.head + "<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>1900-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>\n",
                        line: 4, mentions: "1970")
    }

    @Test func elevationThatIsNotANumber() {
        expectMalformed(Self.head + "<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><ele>high</ele></trkpt></trkseg></trk></gpx>\n",
                        line: 4, mentions: "<ele>")
    }

    @Test func notGPXAtAll() {
        expectMalformed("<?xml version=\"1.0\"?>\n<kml><Document/></kml>\n", line: 2, mentions: "<kml>")
        do {
            _ = try GPXImporter.read(data: Data("just text".utf8), source: "bad.gpx")
            Issue.record("plain text was accepted")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument && error.message.contains("line 1"))
        } catch { Issue.record("\(error)") }
    }

    @Test func missingFileIsNotFoundAndADirectoryIsRefused() throws {
        #expect {
            try GPXImporter.read(contentsOf: URL(fileURLWithPath: "/nonexistent/route.gpx"))
        } throws: { ($0 as? RouteLogError)?.code == .notFound }
        #expect {
            try GPXImporter.read(contentsOf: InterchangeFixtures.gpxDirectory)
        } throws: { ($0 as? RouteLogError)?.code == .invalidArgument }
    }

    @Test func aRealFileCutShortFailsWithItsLastLine() throws {
        let original = try Data(contentsOf: InterchangeFixtures.gpx("gpxgo__visnjan.gpx"))
        let cut = original.prefix(original.count / 2)
        let lines = cut.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("cut.gpx")
        try cut.write(to: url)
        do {
            _ = try GPXImporter.read(contentsOf: url)
            Issue.record("a truncated file was accepted")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("line \(lines)"), "\(error)")
            #expect(error.path == url.path)
        }
    }
}
