import Foundation
import Testing
@testable import RouteLog

/// A processing instruction without data (`<?x?>`) crashed the GPX importer wherever it
/// stood (libxml2 hands FoundationXML a NULL data pointer, read as a C string): before
/// the root, first in the file, inside <trk>, inside <name>, after the root. The feed
/// now stops before its `?>` and the file is refused with its line and byte offset.
@Suite struct GPXImportInstructionTests {
    static let head = "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
    static let track = "<trk><name>a</name><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>2025-01-01T00:00:00Z</time></trkpt>\n"
        + "<trkpt lat=\"1.001\" lon=\"2\"><time>2025-01-01T00:00:10Z</time></trkpt></trkseg></trk>\n"
    static let declaration = "<?xml version=\"1.0\"?>\n"

    /// Each file and the line its `<?x?>` is on.
    static let files: [(String, String, Int)] = [
        ("first in the file", "<?x?>\n" + head + track + "</gpx>\n", 1),
        ("before the root", declaration + "<?x?>\n" + head + track + "</gpx>\n", 2),
        ("inside trk", declaration + head + "<trk><?x?><name>a</name></trk>\n</gpx>\n", 3),
        ("inside name", declaration + head + "<trk>\n<name>a<?x?></name></trk>\n</gpx>\n", 4),
        ("after the root", declaration + head + track + "</gpx>\n<?x?>\n", 7),
        ("blanks for data", declaration + head + track + "<?x \t ?></gpx>\n", 6),
    ]

    @Test(arguments: files.map(\.0))
    func anInstructionWithoutDataIsRefusedNotACrash(_ position: String) throws {
        let (_, text, line) = Self.files.first { $0.0 == position }!
        let bytes = Array(text.utf8)
        do {
            let result = try GPXImporter.read(data: Data(bytes), source: "pi.gpx")
            Issue.record("\(position): read \(result.routes.count) routes from a file with <?x?>")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument, "\(position): \(error)")
            #expect(error.message.contains("line \(line),"), "\(position): \(error)")
            #expect(error.message.contains("processing instruction without data"), "\(position): \(error)")
            #expect(error.path == "pi.gpx")
            let offset = try #require(error.offset)
            #expect(bytes[Int(offset)] == UInt8(ascii: ">") && bytes[Int(offset) - 1] == UInt8(ascii: "?"),
                    "\(position): the offset is the '>' that would complete it")
        }
    }

    @Test func theSameFromAFileOnDisk() throws {
        let dir = TemporaryDirectory()
        let url = dir.url.appendingPathComponent("pi.gpx")
        try Data(Self.files[2].1.utf8).write(to: url)
        #expect(throws: RouteLogError.self) { try GPXImporter.read(contentsOf: url) }
    }

    /// `<?xml` in the middle of a file is malformed XML (a declaration only comes first),
    /// refused as such, and instructions with data stay readable.
    @Test func aDeclarationInTheMiddleIsMalformedAndInstructionsWithDataPass() throws {
        #expect(throws: RouteLogError.self) {
            try GPXImporter.read(data: Data((Self.declaration + Self.head + Self.track + "<?xml version=\"1.0\"?></gpx>").utf8), source: "mid.gpx")
        }
        let withData = Self.declaration + "<?xml-stylesheet href=\"a.xsl\"?>\n" + Self.head + "<?app data?>" + Self.track + "</gpx>\n"
        let result = try GPXImporter.read(data: Data(withData.utf8), source: "ok.gpx")
        #expect(result.routes.count == 1 && result.routes[0].points.count == 2)
    }
}
