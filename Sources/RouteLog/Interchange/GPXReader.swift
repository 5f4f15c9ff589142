import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One `<trk>` or `<rte>` as read, before the import policy (times, jumps) is applied.
struct GPXPath {
    var name: String?
    var isPlannedRoute: Bool
    /// Points in file order; `timestamp` is only meaningful where `hasTime` is true.
    var points: [TrackPoint] = []
    var hasTime: [Bool] = []
    /// Indices where a new `<trkseg>` starts (never 0).
    var segmentStarts: [Int] = []
    /// `<trkseg>` elements without a point.
    var emptySegments = 0
    /// RouteLog's own track extensions: the app's calories and distance.
    var calories: Double?
    var distance: Double?
}

/// Everything a GPX file held that the importer cares about.
struct GPXContents {
    var paths: [GPXPath] = []
    var fileTime: Date?
    var waypoints = 0
    var unknownExtensions = 0
    var version: String?
}

/// A streaming GPX 1.0/1.1 reader over FoundationXML's XMLParser (libxml2's SAX
/// parser underneath). It keeps only the points it builds, never the text of the
/// file, and stops at the first XML or data error with its line and column.
final class GPXReader: NSObject, XMLParserDelegate {
    var contents = GPXContents()
    private var error: RouteLogError?
    private let source: String

    // Where we are.
    var depth = 0
    var path: GPXPath?
    private var segmentHasPoints = false
    var point: TrackPoint?
    var pointHasTime = false
    private var inMetadata = false
    private var extensionDepth: Int?       // depth of the open <extensions>, if any
    var skipUntilDepth: Int?       // inside an element we ignore entirely
    var text: String?              // collecting character data
    private var parser: XMLParser?

    private init(source: String) { self.source = source }

    /// Reads a GPX file from disk, streaming it in small chunks.
    static func read(contentsOf url: URL) throws -> GPXContents {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
              FileManager.default.isReadableFile(atPath: url.path) else {
            throw RouteLogError(.notFound, "Cannot read the GPX file; check the path", path: url.path)
        }
        guard !isDirectory.boolValue else {
            throw RouteLogError(.invalidArgument, "This is a directory, not a GPX file", path: url.path)
        }
        let head = (try? FileHandle(forReadingFrom: url)).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: 512)
        } ?? Data()
        try checkDeclaredEncoding(head, source: url.path)
        guard let parser = XMLParser(contentsOf: url) else {
            throw RouteLogError(.io, "Cannot open the GPX file", path: url.path)
        }
        return try GPXReader(source: url.path).run(parser)
    }

    /// Reads GPX from memory; `source` names it in errors.
    static func read(data: Data, source: String) throws -> GPXContents {
        try checkDeclaredEncoding(data.prefix(512), source: source)
        return try GPXReader(source: source).run(XMLParser(data: data))
    }

    /// The encodings GPX files are written in. libxml2 converts others through iconv,
    /// and crashes on some malformed ones (a UTF-7 file was seen to): refuse them first.
    static let readableEncodings: Set<String> = [
        "utf-8", "utf8", "utf-16", "utf-16le", "utf-16be", "iso-8859-1", "latin1", "iso-latin-1",
        "us-ascii", "ascii", "windows-1252", "cp1252",
    ]

    /// Throws `.invalidArgument` when the XML declaration names an encoding other than
    /// those of ``readableEncodings``.
    static func checkDeclaredEncoding(_ head: Data, source: String) throws {
        let text = String(decoding: head, as: UTF8.self)
        guard text.hasPrefix("<?xml") || text.hasPrefix("\u{FEFF}<?xml"),
              let declarationEnd = text.range(of: "?>"),
              let attribute = text[..<declarationEnd.lowerBound].range(of: "encoding")
        else { return }
        let rest = text[attribute.upperBound..<declarationEnd.lowerBound].drop { $0 == " " || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return }
        let name = rest.dropFirst().prefix { $0 != quote }
        guard !readableEncodings.contains(name.lowercased()) else { return }
        throw RouteLogError(.invalidArgument,
                            "The GPX file declares the encoding \"\(name)\", which RouteLog does not read; "
                                + "convert it to UTF-8. Nothing from this file was imported",
                            path: source)
    }

    private func run(_ parser: XMLParser) throws -> GPXContents {
        self.parser = parser
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = self
        let finished = parser.parse()
        // libxml2 reports some errors (undeclared prefixes, a file cut short) while
        // parse() still returns true: our own record of the first error decides.
        if let error { throw error }
        if !finished || parser.parserError != nil {
            throw fail(parser.parserError.map(Self.describe) ?? "the XML parser stopped", parser)
        }
        if contents.version == nil {
            throw RouteLogError(.invalidArgument, "Not a GPX file: the file has no <gpx> element",
                                path: source)
        }
        return contents
    }

    private func fail(_ what: String, _ parser: XMLParser) -> RouteLogError {
        RouteLogError(.invalidArgument,
                      "Malformed GPX at line \(parser.lineNumber), column \(parser.columnNumber): \(what); "
                          + "nothing from this file was imported",
                      path: source)
    }

    func stop(_ what: String) {
        guard error == nil, let parser else { return }
        error = fail(what, parser)
        parser.abortParsing()
    }

    private static func describe(_ error: Error) -> String {
        let code = (error as NSError).code
        switch code {
        case 4: return "the file is empty or not XML"
        case 5: return "the file ends before its elements are closed (truncated?)"
        case 76: return "a closing tag does not match the element it closes"
        case 201: return "an element or attribute uses a namespace prefix that is not declared"
        case 9, 69: return "invalid character in the text (wrong encoding?)"
        case 89: return "entities expand too far (an entity loop or an expansion bomb)"
        default: return "the XML is not well-formed, or the file is truncated (libxml2 error \(code))"
        }
    }

    // MARK: XMLParserDelegate

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        stop(Self.describe(parseError))
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI uri: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        depth += 1
        guard error == nil, skipUntilDepth == nil else { return }
        // A prefixed name with no namespace: libxml2 only warns, we refuse.
        if let qualifiedName, qualifiedName.utf8.contains(UInt8(ascii: ":")), uri == nil || uri == "" {
            return stop("the prefix of <\(qualifiedName)> is not declared")
        }
        if depth == 1 {
            guard name == "gpx" else { return stop("the root element is <\(name)>, not <gpx>") }
            contents.version = attributes["version"] ?? (uri == GPXNamespace.gpx10 ? "1.0" : "1.1")
            return
        }
        if let extensionDepth, depth > extensionDepth { return startExtension(name, uri) }
        guard GPXNamespace.isGPX(uri) else {
            contents.unknownExtensions += 1
            skipUntilDepth = depth
            return
        }
        if point != nil {
            if ["ele", "time", "speed", "course"].contains(name) { text = "" }
            if name == "extensions" { extensionDepth = depth }
            return
        }
        switch name {
        case "extensions":
            extensionDepth = depth
        case "metadata":
            inMetadata = depth == 2
        case "time":
            if path == nil, depth == 2 || (inMetadata && depth == 3) { text = "" }
        case "wpt":
            contents.waypoints += 1
            skipUntilDepth = depth
        case "trk", "rte":
            guard depth == 2 else { break }
            path = GPXPath(name: nil, isPlannedRoute: name == "rte")
            segmentHasPoints = false
        case "trkseg":
            segmentHasPoints = false
        case "name":
            if path != nil, depth == 3 { text = "" }
        case "trkpt", "rtept":
            if path != nil { startPoint(attributes) }
        default:
            break
        }
    }

    private func startPoint(_ attributes: [String: String]) {
        guard let latText = attributes["lat"], let lonText = attributes["lon"] else {
            return stop("a point has no lat or lon attribute")
        }
        guard let lat = Double(Self.trimmed(latText)), lat.isFinite,
              (-90...90).contains(lat) else {
            return stop("lat=\"\(latText.prefix(40))\" is not a latitude in -90...90")
        }
        guard let lon = Double(Self.trimmed(lonText)), lon.isFinite,
              (-180...180).contains(lon) else {
            return stop("lon=\"\(lonText.prefix(40))\" is not a longitude in -180...180")
        }
        point = TrackPoint(latitude: lat, longitude: lon, timestamp: Date(timeIntervalSince1970: 0))
        pointHasTime = false
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if text != nil { text! += string }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if text != nil { text! += String(decoding: CDATABlock, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI uri: String?,
                qualifiedName: String?) {
        defer { depth -= 1 }
        guard error == nil else { return }
        if let skip = skipUntilDepth {
            if depth == skip { skipUntilDepth = nil }
            return
        }
        let value = text.map(Self.trimmed)
        text = nil
        if let extensionDepth, depth > extensionDepth {
            if let value, !value.isEmpty { setExtensionValue(name, uri, value) }
            return
        }
        if depth == extensionDepth { extensionDepth = nil }
        if point != nil, name != "trkpt", name != "rtept" {
            if let value, !value.isEmpty { setPointValue(name, value) }
            return
        }
        switch name {
        case "metadata":
            if depth == 2 { inMetadata = false }
        case "time":
            if path == nil, let value, let date = ISO8601Time.parse(value[...]),
               GPXImportOptions.validTimes.contains(date.timeIntervalSince1970) {
                contents.fileTime = date
            }
        case "name":
            if depth == 3, let value, !value.isEmpty { path?.name = value }
        case "trkpt", "rtept":
            guard let finished = point else { break }
            if !segmentHasPoints, let count = path?.points.count, count > 0 {
                path?.segmentStarts.append(count)
            }
            segmentHasPoints = true
            path?.points.append(finished)
            path?.hasTime.append(pointHasTime)
            point = nil
        case "trkseg":
            if !segmentHasPoints { path?.emptySegments += 1 }
        case "trk", "rte":
            if depth == 2, let finished = path { contents.paths.append(finished) }
            if depth == 2 { path = nil }
        default:
            break
        }
    }
}
