import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A streaming GPX 1.0/1.1 reader over FoundationXML's XMLParser (libxml2's SAX
/// parser underneath), fed 128 KiB at a time by an ``XMLInputFeed``. It keeps only the
/// points it builds (in columns, see ``GPXPath``) and the text of the one value it is
/// reading, never the file; it stops at the first XML or data error, or the first
/// ``ImportLimits`` passed, with its line and column, and reads no further.
final class GPXReader: NSObject, XMLParserDelegate {
    var contents = GPXContents()
    private var error: RouteLogError?
    private let source: String
    let limits: ImportLimits
    private let feed: XMLInputFeed
    // Where we are.
    var depth = 0
    var path: GPXPath?
    private var segmentHasPoints = false
    var point: GPXPointValues?
    private var inMetadata = false
    private var extensionDepth: Int?       // depth of the open <extensions>, if any
    var skipUntilDepth: Int?               // inside an element we ignore entirely
    var text: String?                      // collecting character data...
    var collectingName = false             // ...of a name (else of a value), for its limit
    private var pointsRead = 0
    private var names: XMLNameBudget
    private var pathsWithPoints = 0
    private var pathsRead = 0
    private var parser: XMLParser?

    private init(source: String, limits: ImportLimits, feed: XMLInputFeed) {
        self.source = source
        self.limits = limits
        self.feed = feed
        names = XMLNameBudget(limit: limits.xmlNames)
    }

    /// Reads a GPX file from disk, streaming it in small chunks; a directory or a FIFO,
    /// socket or device is refused without waiting on it.
    static func read(contentsOf url: URL, limits: ImportLimits = .init()) throws -> GPXContents {
        let feed = try XMLInputFeed(contentsOf: url, what: "GPX file")
        return try read(feed, source: url.path, limits: limits)
    }

    /// Reads GPX from memory; `source` names it in errors.
    static func read(data: Data, source: String, limits: ImportLimits = .init()) throws -> GPXContents {
        try read(XMLInputFeed(bytes: data), source: source, limits: limits)
    }

    /// Reads GPX from `feed` (which then tells how far it was read).
    static func read(_ feed: XMLInputFeed, source: String, limits: ImportLimits) throws -> GPXContents {
        try GPXReader(source: source, limits: limits, feed: feed).run()
    }

    private func run() throws -> GPXContents {
        let parser = XMLParser(stream: feed)
        self.parser = parser
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = self
        let finished = parser.parse()
        if error == nil, let refused = declarationError() { error = refused }
        if let hazard = feed.instructionHazard { error = hazard.error("GPX", source: source) }
        if let errno = feed.readError {
            error = RouteLogError(.io, "Reading the GPX file failed: \(String(cString: strerror(errno))); "
                                      + "nothing from this file was imported", path: source)
        }
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

    private func fail(_ what: String, _ parser: XMLParser, refused: Bool = false) -> RouteLogError {
        RouteLogError(.invalidArgument,
                      (refused ? "GPX refused" : "Malformed GPX")
                          + " at line \(parser.lineNumber), column \(parser.columnNumber): \(what); "
                          + "nothing from this file was imported",
                      path: source)
    }

    /// The error for a DTD declaration the feed refused, if it refused one.
    private func declarationError() -> RouteLogError? {
        feed.refusal?.error("GPX", source: source)
    }

    /// Records the first error and stops the parser and its input at once. (An error
    /// the parser reports after the feed refused a declaration is the feed's doing: the
    /// declaration is the error.)
    func stop(_ what: String, refused: Bool = false) {
        guard error == nil, let parser else { return }
        error = declarationError() ?? fail(what, parser, refused: refused)
        feed.stop()
        parser.abortParsing()
    }

    /// Stops at a limit of ``ImportLimits``.
    func refuse(_ what: String) { stop(what, refused: true) }

    private static func describe(_ error: Error) -> String {
        let code = (error as NSError).code
        switch code {
        case 4: return "the file is empty or not XML"
        case 5: return "the file ends before its elements are closed (truncated?)"
        case 26: return "an entity reference names an entity XML does not predefine (RouteLog reads no DTD)"
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

    func parser(_ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String,
                forElement elementName: String, type: String?, defaultValue: String?) {
        refuse("the file's DOCTYPE declares default attributes (<!ATTLIST \(elementName.prefix(40)) "
                   + "\(attributeName.prefix(40))>), values the elements do not carry; RouteLog reads no DTD")
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        stop("&\(name.prefix(40)); names an entity XML does not predefine (RouteLog reads no DTD)")
        return nil
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI uri: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        depth += 1
        guard error == nil else { return }
        guard names.admit(qualifiedName, name, uri: uri, attributes: attributes) else { return refuse(names.refusal) }
        guard skipUntilDepth == nil else { return }
        // Mixed content: a value's text around an element would be read as one number
        // or name made of the pieces ("1<x>9</x>2" as 12, or 192).
        if text != nil {
            return stop("<\((qualifiedName ?? name).prefix(80))> is inside an element whose value is text (a number, a time or a name)")
        }
        // A prefixed name with no namespace: libxml2 only warns, we refuse.
        if let qualifiedName, qualifiedName.utf8.contains(UInt8(ascii: ":")), uri == nil || uri == "" {
            return stop("the prefix of <\(qualifiedName.prefix(80))> is not declared")
        }
        if depth == 1 {
            guard name == "gpx" else { return stop("the root element is <\(name.prefix(80))>, not <gpx>") }
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
            if ["ele", "time", "speed", "course"].contains(name) { collectText(name: false) }
            if name == "extensions" { extensionDepth = depth }
            return
        }
        switch name {
        case "extensions":
            extensionDepth = depth
        case "metadata":
            inMetadata = depth == 2
        case "time":
            if path == nil, depth == 2 || (inMetadata && depth == 3) { collectText(name: false) }
        case "wpt":
            contents.waypoints += 1
            skipUntilDepth = depth
        case "trk", "rte":
            guard depth == 2 else { break }
            pathsRead += 1
            path = GPXPath(isPlannedRoute: name == "rte")
            path?.placeInFile = pathsRead
            segmentHasPoints = false
        case "trkseg":
            segmentHasPoints = false
        case "name", "type":
            if path != nil, depth == 3 { collectText(name: true) }
        case "trkpt", "rtept":
            if path != nil { startPoint(name, attributes) }
        default:
            break
        }
    }

    private func startPoint(_ element: String, _ attributes: [String: String]) {
        guard let path else { return }
        let kind = path.isPlannedRoute ? "<rte>" : "<trk>"
        guard path.count < limits.pointsPerRoute else {
            return refuse("a \(kind) has more than \(ImportLimits.grouped(limits.pointsPerRoute)) points, the most "
                              + "one route may hold (ImportLimits.pointsPerRoute); split it into several")
        }
        guard pointsRead < limits.pointsPerFile else {
            return refuse("the file has more than \(ImportLimits.grouped(limits.pointsPerFile)) points, the most "
                              + "RouteLog imports from one file in one batch (ImportLimits.pointsPerFile); split the file")
        }
        guard !path.isEmpty || pathsWithPoints < limits.routesPerFile else {
            return refuse("the file has more than \(ImportLimits.grouped(limits.routesPerFile)) tracks and routes "
                              + "with points (ImportLimits.routesPerFile); split the file")
        }
        guard let latText = attributes["lat"], let lonText = attributes["lon"] else {
            return stop("a point has no lat or lon attribute")
        }
        guard let lat = XSDNumber.parse(latText), (-90...90).contains(lat) else {
            return stop("lat=\"\(Self.shown(latText))\" is not a latitude, a decimal number in -90...90")
        }
        guard let lon = XSDNumber.parse(lonText), (-180...180).contains(lon) else {
            return stop("lon=\"\(Self.shown(lonText))\" is not a longitude, a decimal number in -180...180")
        }
        point = GPXPointValues(latitude: lat, longitude: lon)
    }

    /// Starts collecting the character data of the element just opened.
    func collectText(name: Bool) {
        text = ""
        collectingName = name
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard error == nil, text != nil else { return }
        appendText(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard error == nil, text != nil else { return }
        appendText(String(decoding: CDATABlock, as: UTF8.self))
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI uri: String?,
                qualifiedName: String?) {
        defer { depth -= 1 }
        guard error == nil else { return }
        if let skip = skipUntilDepth {
            if depth == skip { skipUntilDepth = nil }
            return
        }
        let value = text
        text = nil
        if let extensionDepth, depth > extensionDepth {
            if let value, !Self.isBlank(value) { setExtensionValue(name, uri, value) }
            return
        }
        if depth == extensionDepth { extensionDepth = nil }
        if point != nil, name != "trkpt", name != "rtept" {
            if let value, !Self.isBlank(value) { setPointValue(name, value) }
            return
        }
        switch name {
        case "metadata":
            if depth == 2 { inMetadata = false }
        case "time":
            if path == nil, let value, !Self.isBlank(value) { setFileTime(value) }
        case "name":
            // As written: GPX's name is an xsd:string, whose white space is kept.
            if depth == 3, let value, !value.isEmpty { path?.name = value }
        case "type":
            if depth == 3, let value { path?.activity = ActivityKind(importedName: value) }
        case "trkpt", "rtept":
            guard let finished = point else { break }
            if !segmentHasPoints, let count = path?.count, count > 0 {
                path?.segmentStarts.append(count)
            }
            if path?.isEmpty == true { pathsWithPoints += 1 }
            segmentHasPoints = true
            path?.append(finished)
            pointsRead += 1
            point = nil
        case "trkseg":
            if !segmentHasPoints { path?.emptySegments += 1 }
        case "trk", "rte":
            guard depth == 2, let finished = path else { break }
            path = nil
            // A path without points is counted, not kept: it would cost memory for nothing.
            if finished.isEmpty {
                contents.pathsWithoutPoints += 1
                contents.segmentsOfPathsWithoutPoints += finished.emptySegments
            } else {
                contents.paths.append(finished)
            }
        default:
            break
        }
    }
}
