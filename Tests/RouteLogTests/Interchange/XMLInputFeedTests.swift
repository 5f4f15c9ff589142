import Foundation
import Testing
@testable import RouteLog

/// The feed that keeps input FoundationXML crashes on (Linux) away from it: a
/// processing instruction without data (`<?x?>`) made the parser read a NULL string,
/// and files in UCS-4, EBCDIC, or UTF-16 declaring UTF-32 or UTF-7, crashed libxml2.
@Suite struct XMLInputFeedTests {
    /// Where the scan stops in `text` (the offset of the completing '>'), or nil.
    func stop(_ bytes: [UInt8]) -> Int? {
        var scan = XMLInstructionScan()
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

    /// In UTF-16 a character past ASCII may hold a byte that looks like a blank: the
    /// `20` of U+2078 in `<?` U+6E67 U+2078 `?>` is no blank to the parser, so the
    /// instruction has no data. The scan reads code units, in either byte order.
    @Test func aUTF16CharacterHoldingABlankByteIsNoBlank() throws {
        func units(_ scalars: [UInt16], bigEndian: Bool) -> [UInt8] {
            scalars.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        }
        let instruction: [UInt16] = [0xFEFF, 0x3C, 0x3F, 0x6E67, 0x2078, 0x6D6C, 0x3F, 0x3E]
        for bigEndian in [true, false] {
            let bytes = units(instruction, bigEndian: bigEndian)
            var scan = XMLInstructionScan(utf16BigEndian: bigEndian)
            #expect(bytes.firstIndex { scan.step($0) != nil } == bytes.count - 1, "big-endian \(bigEndian)")
            // A real blank (U+0020) before data: an instruction with data passes.
            let withData = units([0xFEFF, 0x3C, 0x3F, 0x6E67, 0x20, 0x6D6C, 0x3F, 0x3E], bigEndian: bigEndian)
            var fine = XMLInstructionScan(utf16BigEndian: bigEndian)
            #expect(withData.allSatisfy { fine.step($0) == nil }, "big-endian \(bigEndian)")
            // Through the importer: refused, not a crash.
            let file = bytes + units(Array("<TrainingCenterDatabase/>".utf16), bigEndian: bigEndian)
            let error = try #require(throwsError { try TCXImporter.read(data: Data(file)) })
            #expect(error.code == .invalidArgument && error.message.contains("processing instruction without data"))
        }
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
        try (Data("<a>".utf8) + Data(repeating: UInt8(ascii: "a"), count: 299_997)).write(to: url)
        let feed = try XMLInputFeed(contentsOf: url)
        feed.open()
        var buffer = [UInt8](repeating: 0, count: 131_072)
        var reads: [Int] = []
        while true {
            let count = feed.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            reads.append(count)
        }
        // The head (4 KiB) is read ahead and handed out first.
        #expect(reads == [4_096, 131_072, 131_072, 33_760] && feed.instructionHazard == nil && feed.refusal == nil)
        #expect(feed.bytesRead == 300_000)
    }

    static let gpxBody = "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
        + "<trkpt lat=\"45\" lon=\"9\"><time>2026-01-01T08:00:00Z</time></trkpt></trkseg></trk></gpx>"
    static let tcxBody = "<TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\">"
        + "<Activities><Activity Sport=\"Running\"><Id>2026-01-01T08:00:00Z</Id><Lap StartTime=\"2026-01-01T08:00:00Z\">"
        + "<Track><Trackpoint><Time>2026-01-01T08:00:00Z</Time><Position><LatitudeDegrees>45</LatitudeDegrees>"
        + "<LongitudeDegrees>9</LongitudeDegrees></Position></Trackpoint></Track></Lap></Activity></Activities>"
        + "</TrainingCenterDatabase>"

    enum Width { case utf8, utf16LE, utf16BE }

    static func encode(_ text: String, _ width: Width, mark: Bool) -> [UInt8] {
        switch width {
        case .utf8: return (mark ? [0xEF, 0xBB, 0xBF] : []) + Array(text.utf8)
        case .utf16LE: return (mark ? [0xFF, 0xFE] : []) + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case .utf16BE: return (mark ? [0xFE, 0xFF] : []) + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }
    }

    /// Both readers, from memory and from a file, refuse `bytes` with `.invalidArgument`
    /// and a message holding `words`; the parser never sees them (it would crash).
    func expectRefused(_ bytes: [UInt8], _ words: String, _ comment: Comment,
                       kinds: Set<String> = ["GPX", "TCX"]) throws {
        let directory = TemporaryDirectory()
        let url = directory.url.appendingPathComponent("input.xml")
        try Data(bytes).write(to: url)
        let attempts: [(String, () throws -> Void)] = [
            ("GPX", { _ = try GPXImporter.read(data: Data(bytes), source: "memory") }),
            ("GPX", { _ = try GPXImporter.read(contentsOf: url) }),
            ("TCX", { _ = try TCXImporter.read(data: Data(bytes)) }),
            ("TCX", { _ = try TCXImporter.read(contentsOf: url) }),
        ]
        for (kind, attempt) in attempts where kinds.contains(kind) {
            let error = try #require(throwsError(attempt), comment)
            #expect(error.code == .invalidArgument, comment)
            #expect(error.message.contains(words) && error.message.contains(kind), "\(comment): \(error.message)")
        }
    }

    @Test func filesInUCS4OrEBCDICAreRefusedBeforeTheParser() throws {
        let declaration = "<?xml version=\"1.0\"?>"
        let ascii = Array((declaration + Self.gpxBody).utf8)
        let utf32BE = (declaration + Self.gpxBody).unicodeScalars.flatMap { s -> [UInt8] in
            let v = s.value
            return [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        let utf32LE = stride(from: 0, to: utf32BE.count, by: 4).flatMap { Array(utf32BE[$0..<$0 + 4].reversed()) }
        try expectRefused([0, 0, 0] + ascii, "UCS-4", "three NUL bytes before '<' (the fuzzer's TCX input)")
        try expectRefused(utf32BE, "UCS-4", "UTF-32 big-endian")
        try expectRefused(utf32LE, "UCS-4", "UTF-32 little-endian")
        try expectRefused([0, 0, 0xFE, 0xFF] + utf32BE, "UCS-4", "UTF-32 big-endian with a byte order mark")
        try expectRefused([0xFF, 0xFE, 0, 0] + utf32LE, "UCS-4", "UTF-32 little-endian with a byte order mark")
        try expectRefused([0x4C, 0x6F, 0xA7, 0x94] + ascii, "EBCDIC", "EBCDIC's '<?xm'")
    }

    @Test func aDeclaredEncodingIsCheckedInUTF8AndUTF16Alike() throws {
        for width in [Width.utf8, .utf16LE, .utf16BE] {
            for mark in [true, false] {
                for name in ["UTF-7", "UTF-32", "ISO-10646-UCS-4", "UCS-4", "EBCDIC", "IBM037", "Shift_JIS"] {
                    let text = "<?xml version=\"1.0\" encoding='\(name)'?>" + Self.gpxBody
                    try expectRefused(Self.encode(text, width, mark: mark), "declares the encoding \"\(name)\"",
                                      "\(name) declared in \(width), byte order mark \(mark)")
                }
            }
        }
        // Spaces around '=' and a long declaration.
        try expectRefused(Array("<?xml version=\"1.0\"   encoding =\t\"utf-7\" ?><gpx/>".utf8), "\"utf-7\"", "blanks")
        let long = "<?xml version=\"1.0\"" + String(repeating: " ", count: 2_000) + "encoding=\"UTF-8\"?>" + Self.gpxBody
        try expectRefused(Array(long.utf8), "longer than 1024", "a declaration of 2 KiB")
    }

    @Test func charactersLibxml2CannotConvertAreRefusedWhereverTheyStand() throws {
        for width in [Width.utf16LE, .utf16BE] {
            for (name, padding) in [("near the start", 0), ("200 KB in", 200_000)] {
                // Under each reader's own root, so that neither stops before the surrogate.
                for (kind, root) in [("GPX", "gpx"), ("TCX", "TrainingCenterDatabase")] {
                    let before = "<?xml version=\"1.0\"?><\(root)><desc>" + String(repeating: "a", count: padding)
                    let prefix = Self.encode(before, width, mark: true)
                    let after = Self.encode("x</desc></\(root)>", width, mark: false)
                    let high: [UInt8] = width == .utf16LE ? [0x00, 0xD8] : [0xD8, 0x00]
                    try expectRefused(prefix + high + high + after, "unpaired UTF-16 surrogate at byte \(prefix.count)",
                                      "two high surrogates \(name), \(width)", kinds: [kind])
                    let low: [UInt8] = width == .utf16LE ? [0x00, 0xDC] : [0xDC, 0x00]
                    try expectRefused(prefix + low + after, "unpaired UTF-16 surrogate at byte \(prefix.count)",
                                      "a lone low surrogate \(name), \(width)", kinds: [kind])
                }
            }
        }
        let declaration = "<?xml version=\"1.0\" encoding=\"windows-1252\"?>"
        let undefined = Array((declaration + "<gpx><desc>").utf8) + [0x81] + Array("</desc></gpx>".utf8)
        try expectRefused(undefined, "0x81, which windows-1252 leaves undefined", "an undefined windows-1252 byte")
        // libxml2 switches on the attribute alone: a declaration that never ends, one
        // without a blank before `encoding`, a second `encoding`, all count.
        for prolog in ["<?xml version=\"1.0\" encoding=\"windows-1252\";>", "<?xml version=\"1.0\"encoding='cp1252'?>",
                       "<?xml version=\"1.0\" encoding=\"UTF-8\" encoding=\"windows-1252\"?>"] {
            let bytes = Array((prolog + "<gpx><desc>").utf8) + [0x9D] + Array("</desc></gpx>".utf8)
            try expectRefused(bytes, "0x9D, which windows-1252 leaves undefined", "\(prolog)")
        }
        let ascii = Array("<?xml version=\"1.0\" encoding=\"US-ASCII\"?><gpx><desc>".utf8) + [0xC3, 0xA9] + Array("</desc></gpx>".utf8)
        try expectRefused(ascii, "declared US-ASCII but has the byte 0xC3", "a high byte in US-ASCII")
        let single = Array("<?xml version=\"1.0\" encoding=\"UTF-16LE\"?><gpx/>".utf8)
        try expectRefused(single, "but is written in single bytes", "UTF-16LE declared in a single-byte file")
        // windows-1252's defined bytes read, the euro sign included.
        let euro = Array((declaration + "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
                              + "<trk><name>").utf8) + [0x80, 0xE9] + Array("</name><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>".utf8)
        let read = try GPXImporter.read(data: Data(euro), source: "euro")
        #expect(read.routes.first?.metadata.name == "\u{20AC}\u{E9}")
    }

    @Test func readableEncodingsStillReadInBothWidths() throws {
        for width in [Width.utf8, .utf16LE, .utf16BE] {
            let names = width == .utf8 ? ["UTF-8", "utf-8", "ISO-8859-1", "US-ASCII", nil] : ["UTF-16", nil]
            for name in names {
                let declaration = "<?xml version=\"1.0\"" + (name.map { " encoding=\"\($0)\"" } ?? "") + "?>"
                let gpx = try GPXImporter.read(data: Data(Self.encode(declaration + Self.gpxBody, width, mark: true)),
                                               source: "gpx")
                #expect(gpx.routes.count == 1 && gpx.routes[0].points.count == 1, "\(width) \(name ?? "none")")
                let tcx = try TCXImporter.read(data: Data(Self.encode(declaration + Self.tcxBody, width, mark: true)))
                #expect(tcx.routes.count == 1, "TCX \(width) \(name ?? "none")")
            }
        }
    }

    @Test func aTCXFileDeclaringAnEntityIsRefusedLikeAGPXFile() throws {
        let text = "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e \"x\">]>" + Self.tcxBody
        let error = try #require(throwsError { try TCXImporter.read(data: Data(text.utf8)) })
        #expect(error.code == .invalidArgument && error.message.contains("TCX refused") && error.message.contains("ENTITY"))
    }
}
