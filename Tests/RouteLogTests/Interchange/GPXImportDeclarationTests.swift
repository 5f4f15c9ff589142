import Foundation
import Testing
@testable import RouteLog

/// A file that declares its own entities (or default attributes) in a DOCTYPE is
/// refused with a clear message: XMLParser would silently drop an entity's text
/// ("A&xxe;B" read as "A") or invent attributes, and RouteLog reads no DTD.
@Suite struct GPXImportDeclarationTests {
    static let body = "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
        + "<trk><name>A&xxe;B</name><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>\n"

    func refusal(_ text: String, encoding: String.Encoding = .utf8) throws -> String {
        let data = try #require(text.data(using: encoding))
        do {
            let result = try GPXImporter.read(data: data, source: "dtd.gpx")
            Issue.record("read, name \(result.routes.first?.metadata.name ?? "nil")")
            return ""
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument)
            return error.message
        }
    }

    @Test func anInternalEntityIsRefusedNotDroppedWithWhereItIsDeclared() throws {
        let message = try refusal("<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [\n  <!ENTITY xxe \"ZZ\">\n]>\n" + Self.body)
        #expect(message.contains("line 3, column 3"), "\(message)")
        #expect(message.contains("declares an entity (<!ENTITY)") && message.contains("nothing from this file was imported"))
    }

    @Test func externalAndParameterEntitiesAreRefused() throws {
        for declaration in ["<!ENTITY xxe SYSTEM \"file:///etc/passwd\">", "<!ENTITY % pe \"<!ENTITY xxe 'x'>\"> %pe;",
                            "<!ENTITY xxe PUBLIC \"-//x\" \"http://example.com/x\">"] {
            let message = try refusal("<!DOCTYPE gpx [\(declaration)]>" + Self.body)
            #expect(message.contains("line 1, column 16") && message.contains("<!ENTITY"), "\(declaration): \(message)")
        }
    }

    @Test func defaultAttributesAreRefused() throws {
        let text = "<!DOCTYPE gpx [<!ATTLIST trkpt lat CDATA \"5\">]>\n"
            + "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg><trkpt lon=\"1\"/></trkseg></trk></gpx>"
        let message = try refusal(text)
        #expect(message.contains("default attributes (<!ATTLIST)") && message.contains("line 1, column 16"), "\(message)")
    }

    @Test func aUTF16FileDeclaringAnEntityIsRefusedToo() throws {
        let message = try refusal("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<!DOCTYPE gpx [<!ENTITY xxe \"ZZ\">]>"
                                      + Self.body, encoding: .utf16)
        #expect(message.contains("declares an entity") && message.contains("line 2, column 16"), "\(message)")
    }

    @Test func aReferenceToAnUndeclaredEntityIsAnError() throws {
        let message = try refusal("<?xml version=\"1.0\"?>\n" + Self.body)
        #expect(message.contains("&xxe;") && message.contains("line 2"), "\(message)")
    }

    @Test func harmlessPrologsStillRead() throws {
        let plain = "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><name>A&amp;B&#33;</name>"
            + "<trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>"
        for prolog in ["", "<?xml version=\"1.0\"?>\n<!-- a comment that says <!ENTITY x \"y\"> -->\n",
                       "<!DOCTYPE gpx SYSTEM \"http://www.topografix.com/GPX/1/1/gpx.dtd\">\n",
                       "<!DOCTYPE gpx [<!ELEMENT gpx ANY><!-- ]> <!ENTITY --><?pi <!ENTITY ?>]>\n",
                       "<?xml-stylesheet href=\"a.css\"?><!DOCTYPE gpx PUBLIC \"-//x\" \"<!ENTITY\">"] {
            let result = try GPXImporter.read(data: Data((prolog + plain).utf8))
            #expect(result.routes.first?.metadata.name == "A&B!", "\(prolog)")
        }
    }

    @Test func theGuardFindsADeclarationSplitAcrossReads() throws {
        // The feed hands the parser 128 KiB at a time: put the declaration across a boundary.
        let padding = "<!--" + String(repeating: "x", count: (128 << 10) - 48) + "-->"   // "<!EN" | "TITY"
        let message = try refusal("<?xml version=\"1.0\"?>\n" + padding + "<!DOCTYPE gpx [<!ENTITY xxe \"ZZ\">]>" + Self.body)
        #expect(message.contains("declares an entity"), "\(message)")
    }
}
