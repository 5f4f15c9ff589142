import Foundation
import Testing
@testable import RouteLog

@Suite struct GPXImportEncodingTests {
    static let root = Fixtures.packageRoot

    /// libxml2 crashed on this malformed file declaring UTF-7 (found by fuzzing): it must
    /// be refused before the parser sees it.
    @Test func aDeclaredEncodingRouteLogDoesNotReadIsRefusedBeforeParsing() throws {
        let url = Self.root.appendingPathComponent("Tests/Fuzz/corpus/gpx/utf7-declared-malformed.gpx")
        for attempt in [{ _ = try GPXImporter.read(contentsOf: url) },
                        { _ = try GPXImporter.read(data: try Data(contentsOf: url), source: "utf7") }] {
            do {
                try attempt()
                Issue.record("a UTF-7 GPX was read")
            } catch let error as RouteLogError {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains("UTF-7"))
            }
        }
    }

    @Test func commonEncodingsStillRead() throws {
        let body = "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
            + "<trkpt lat=\"45\" lon=\"9\"><time>2026-01-01T08:00:00Z</time></trkpt></trkseg></trk></gpx>"
        for encoding in ["UTF-8", "utf-8", "ISO-8859-1"] {
            let gpx = "<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n" + body
            let read = try GPXImporter.read(data: Data(gpx.utf8), source: encoding)
            #expect(read.routes.count == 1, "\(encoding)")
        }
    }
}
