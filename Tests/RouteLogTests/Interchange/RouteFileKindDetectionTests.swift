import Foundation
import Testing
@testable import RouteLog

/// Telling GPX, TCX and FIT apart by their first bytes, whatever the file is called.
@Suite struct RouteFileKindDetectionTests {
    func kind(_ text: String) -> RouteFileKind? { RouteFileKind.detect(Data(text.utf8)) }

    @Test func aFITHeaderIsFIT() {
        #expect(RouteFileKind.detect(Data(FITForge.walk(1).file())) == .fit)
        #expect(RouteFileKind.detect(Data(FITForge.walk(1).file(headerSize: 12))) == .fit)
        var notFIT = FITForge.walk(1).file()
        notFIT[11] = 0
        #expect(RouteFileKind.detect(Data(notFIT)) == nil)
        #expect(RouteFileKind.detect(Data(FITForge.walk(1).file().prefix(11))) == nil)
    }

    @Test func theRootElementTellsGPXFromTCX() {
        #expect(kind("<gpx version=\"1.1\"/>") == .gpx)
        #expect(kind("<TrainingCenterDatabase xmlns=\"x\">") == .tcx)
        #expect(kind("<tcx:TrainingCenterDatabase xmlns:tcx=\"x\">") == .tcx)
        #expect(kind("<?xml version=\"1.0\"?>\r\n<TrainingCenterDatabase\r\n  xmlns=\"x\">") == .tcx)
        #expect(kind("<kml/>") == nil && kind("gpx") == nil && kind("") == nil && kind("<") == nil)
        #expect(kind("<gpxx/>") == nil, "the name must match whole")
    }

    @Test func whatXMLAllowsBeforeTheRootIsPassedOver() {
        let preamble = "\u{FEFF}<?xml version='1.0'?>\n<!-- <TrainingCenterDatabase> in a comment -->\n"
            + "<?xml-stylesheet href=\"a.xsl\"?>\n<!DOCTYPE gpx [ <!ENTITY a \"<b>\"> ]>\n\t"
        #expect(kind(preamble + "<gpx>") == .gpx)
        #expect(kind("<!-- unterminated comment <gpx>") == nil)
        #expect(kind("<!DOCTYPE x [ <!ELEMENT a (b)> ]>\n<!DOCTYPE y>\n<TrainingCenterDatabase/>") == .tcx)
        // Thousands of DOCTYPEs are passed over in one pass; a root past 64 KiB is not seen.
        let many = String(repeating: "<!DOCTYPE gpx>", count: 4_000)
        #expect(kind(many + "<gpx/>") == .gpx && kind(many + many + "<gpx/>") == nil)
    }

    @Test func utf16TextIsReadInEitherByteOrder() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><TrainingCenterDatabase/>"
        let little = Data([0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let big = Data([0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        let noMark = Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(RouteFileKind.detect(little) == .tcx && RouteFileKind.detect(big) == .tcx && RouteFileKind.detect(noMark) == .tcx)
    }

    @Test func filesAreReadByContentNotByName() throws {
        let directory = TemporaryDirectory()
        let fit = directory.url.appendingPathComponent("walk.gpx")
        try Data(FITForge.walk(3).file()).write(to: fit)
        let tcx = directory.url.appendingPathComponent("ride.fit")
        try Data(TCXImportStructureTests.tcx("<Activities><Activity Sport=\"Biking\"><Lap><Track>"
            + TCXImportStructureTests.point(0) + "</Track></Lap></Activity></Activities>")).write(to: tcx)
        let text = directory.url.appendingPathComponent("notes.tcx")
        try Data("shopping list".utf8).write(to: text)
        #expect(try RouteFileKind.detect(contentsOf: fit) == .fit)
        #expect(try RouteFileKind.detect(contentsOf: tcx) == .tcx)
        #expect(try RouteImporter.read(contentsOf: fit).report.format == .fit)
        #expect(try RouteImporter.read(contentsOf: tcx).report.sports == ["Biking"])
        let error = try #require(throwsError { try RouteImporter.read(contentsOf: text) })
        #expect(error.code == .invalidArgument && error.message.hasPrefix("Not a GPX, TCX or FIT file"))
        let missing = try #require(throwsError { try RouteImporter.read(contentsOf: directory.url.appendingPathComponent("none")) })
        #expect(missing.code == .notFound)
        let folder = try #require(throwsError { try RouteImporter.read(contentsOf: directory.url) })
        #expect(folder.code == .invalidArgument)
        #expect(RouteImporter.routeFiles(in: directory.url).map(\.lastPathComponent) == ["ride.fit", "walk.gpx"])
        let inMemory = try RouteImporter.read(data: Data(FITForge.walk(2).file()), source: "upload")
        #expect(inMemory.report.format == .fit && inMemory.report.source == "upload")
    }
}
