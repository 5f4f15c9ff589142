import Foundation
import Testing
@testable import RouteLog

/// A name stored, exported as GPX and imported again is the same name, whatever
/// control or white-space character XML 1.0 can carry is in it, wherever it is.
@Suite struct GPXNameRoundTripTests {
    /// Every control and white-space character XML 1.0 allows in text: tab, LF, CR,
    /// DEL and the C1 controls (NEL among them), the Unicode spaces and separators, and
    /// the invisible format characters (zero-width, bidi controls, BOM).
    static let characters: [Unicode.Scalar] = {
        var values: [UInt32] = [0x09, 0x0A, 0x0D, 0x20] + Array(0x7F...0x9F)
        values += [0xA0, 0x1680, 0x180E] + Array(0x2000...0x200F) + Array(0x2028...0x202F)
        values += [0x205F, 0x2060] + Array(0x2066...0x2069) + [0x3000, 0xFEFF]
        return values.map { Unicode.Scalar($0)! }
    }()

    func roundTrip(_ name: String, through store: RouteStore) throws -> String? {
        let route = Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 1_700_000_000))],
                          metadata: RouteMetadata(name: name))
        let id = try store.save(route)
        #expect(try store.summary(id).name == name)
        let gpx = try RouteExporter.data(for: id, in: store, format: .gpx)
        return try #require(GPXImporter.read(data: gpx, source: "name.gpx").routes.first).metadata.name
    }

    @Test func everyControlAndWhiteSpaceCharacterXMLAllowsRoundTrips() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"), options: .init(durability: .buffered))
        defer { try? store.close() }
        var tried = 0
        for scalar in Self.characters {
            let c = String(Character(scalar))
            for name in ["Walk\(c)Home", "\(c)Walk", "Walk\(c)", c, "\(c)\(c)"] {
                let back = try roundTrip(name, through: store)
                #expect(back == name, "U+\(String(scalar.value, radix: 16, uppercase: true)) in \(name.debugDescription)")
                tried += 1
            }
        }
        #expect(tried == Self.characters.count * 5)
        for name in ["Walk\r\nHome", "\r\n", "A\r\rB\n\rC", " \t leading and trailing \t ", "<&>\"'"] {
            #expect(try roundTrip(name, through: store) == name, "\(name.debugDescription)")
        }
    }

    @Test func theExportWritesCharacterReferencesAParserKeepsAsTheyAre() {
        #expect(TextEscaping.xml("a\r\nb\tc") == "a&#xD;&#xA;b&#x9;c")
        #expect(TextEscaping.xml("\u{85}\u{9B}\u{2028}") == "&#x85;&#x9B;&#x2028;")
        #expect(TextEscaping.xml("<&>\"'") == "&lt;&amp;&gt;&quot;&apos;")
    }

    @Test func charactersXMLCannotCarryAreDroppedAndTheFileStaysValid() throws {
        // C0 controls other than tab, LF and CR cannot appear in XML 1.0, even as
        // character references: they are left out rather than making the file unreadable.
        let route = Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 0))],
                          metadata: RouteMetadata(name: "A\u{1}B\u{1B}C\u{FFFE}"))
        let gpx = RouteExporter.data(for: route, format: .gpx)
        #expect(try GPXImporter.read(data: gpx).routes.first?.metadata.name == "ABC")
    }
}
