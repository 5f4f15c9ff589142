import Foundation
import Testing
@testable import RouteLog

/// The stream that keeps input FoundationXML crashes on (Linux) away from it: a
/// processing instruction without data (`<?x?>`) made the parser read a NULL string.
@Suite struct GuardedXMLStreamTests {
    /// Where the scan stops in `text` (the offset of the completing '>'), or nil.
    func stop(_ bytes: [UInt8]) -> Int? {
        var scan = GuardedXMLStream.InstructionScan()
        return bytes.firstIndex { scan.step($0) != nil }
    }

    func stop(_ text: String) -> Int? { stop(Array(text.utf8)) }

    @Test func instructionsWithoutDataAreFound() {
        #expect(stop("<?x?>") == 4)
        #expect(stop("<a><?target \t\r\n?></a>") == 16)
        #expect(stop("<??>") == 3)
        let utf16 = "<?x?>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(stop(utf16) == 8, "NUL bytes are passed over, so UTF-16 is scanned too")
    }

    @Test func instructionsWithDataAndOrdinaryXMLPass() {
        #expect(stop("<?xml version=\"1.0\"?><a b=\"?>\">x ? y ?> <? </a>") == nil)
        #expect(stop("<?xml-stylesheet href=\"a.xsl\"?><?x ??><?x ? ?>") == nil)
        #expect(stop("a <b> c << d") == nil)
    }

    @Test func theTCXReaderRefusesSuchAFileAtTheByteWhereItStopped() throws {
        let bytes = Array("<?xml version=\"1.0\"?>\n<?foo?>\n<TrainingCenterDatabase/>".utf8)
        let error = try #require(throwsError { try TCXImporter.read(data: Data(bytes)) })
        #expect(error.code == .invalidArgument && error.offset == 28)
        #expect(error.message.contains("processing instruction without data"))
        let fine = Array("<?xml version=\"1.0\"?>\n<?foo bar?>\n<TrainingCenterDatabase/>".utf8)
        #expect(try TCXImporter.read(data: Data(fine)).routes.isEmpty)
    }

    @Test func theFuzzersInputIsRefusedNotACrash() throws {
        let seed = Fixtures.packageRoot.appendingPathComponent("Tests/Fuzz/corpus/tcx/regression-instruction-without-data")
        let error = try #require(throwsError { try TCXImporter.read(contentsOf: seed) })
        #expect(error.message.contains("processing instruction without data"))
    }

    @Test func theFileIsStreamedInTheParsersChunks() throws {
        let directory = TemporaryDirectory()
        let url = directory.url.appendingPathComponent("big.xml")
        try Data(repeating: UInt8(ascii: "a"), count: 300_000).write(to: url)
        let stream = try GuardedXMLStream(file: url)
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 131_072)
        var reads: [Int] = []
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            reads.append(count)
        }
        #expect(reads == [131_072, 131_072, 37_856] && stream.hazard == nil)
    }
}
