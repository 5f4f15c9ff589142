import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One TCX Activity or Course as read, before the import policy (times, jumps).
struct TCXPath {
    var path = GPXPath(name: nil, isPlannedRoute: false)
    /// The Activity's `Sport` attribute; nil for a course.
    var sport: String?
    /// The Activity's `<Id>`, a time, for points without one.
    var idTime: Date?
    var isCourse = false
}

/// Everything a TCX file held that the importer cares about. Only the Activities and
/// Courses with points are kept; those without are counted, so that a file of millions
/// of empty ones costs no memory per element.
struct TCXContents {
    var paths: [TCXPath] = []
    /// Activities and Courses without a positioned Trackpoint, not kept.
    var pathsWithoutPoints = 0
    var coursePoints = 0
    var unknownExtensions = 0
    var laps = 0
    var pointsWithoutPosition = 0
    var powerReadings = 0
    var pauses = 0
    var pointCount = 0
    var sawRoot = false
}

/// A streaming TCX (Training Center Database v2) reader over FoundationXML's
/// XMLParser, built like ``GPXReader``: it keeps only the points it builds, and stops
/// at the first XML or data error with its line and column.
///
/// Read: `Activities` (any `Activity`, also inside a `MultiSportSession`) and
/// `Courses/Course`, their `Lap`s, `Track`s and `Trackpoint`s. A Trackpoint's direct
/// children `Time`, `Position/LatitudeDegrees|LongitudeDegrees`, `AltitudeMeters`,
/// `HeartRateBpm/Value`, `Cadence`, and in `Extensions/TPX` (ActivityExtension v2)
/// `Speed`, `RunCadence` (when there is no `Cadence`) and `Watts` (counted, not kept).
final class TCXReader: NSObject, XMLParserDelegate {
    static let namespace = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
    static let namespaceV1 = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v1"
    static let activityExtension = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"

    var contents = TCXContents()
    let options: RouteImportOptions
    private let source: String
    private var error: RouteLogError?
    private var parser: XMLParser?
    private var feed: XMLInputFeed?

    // Where we are.
    var depth = 0
    private var sectionDepth: Int?          // <Activities> or <Courses>
    var current: TCXPath?
    var currentDepth = 0                    // depth of the open Activity or Course
    private var tracksInContainer = 0       // Tracks seen in the open Lap (or Course)
    private var breakPending = false
    var point: TrackPoint?
    var pointDepth = 0
    var pointHasTime = false
    var latitude: Double?
    var longitude: Double?
    var pointHasPower = false
    var pointChild = ""                     // the open direct child of the Trackpoint
    var skipUntilDepth: Int?
    var text: String?
    var textBytes = 0
    var textElement = ""

    /// The names the file uses, against ``ImportLimits/xmlNames``.
    private var names: XMLNameBudget

    private init(source: String, options: RouteImportOptions) {
        self.source = source
        self.options = options
        names = XMLNameBudget(limit: options.limits.xmlNames)
    }

    static func read(contentsOf url: URL, options: RouteImportOptions) throws -> TCXContents {
        let feed = try XMLInputFeed(contentsOf: url, what: "TCX file")
        return try TCXReader(source: url.path, options: options).run(feed)
    }

    static func read(data: Data, source: String, options: RouteImportOptions) throws -> TCXContents {
        try TCXReader(source: source, options: options).run(XMLInputFeed(bytes: data))
    }

    private func run(_ feed: XMLInputFeed) throws -> TCXContents {
        self.feed = feed
        let parser = XMLParser(stream: feed)
        self.parser = parser
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = self
        let finished = parser.parse()
        // What stopped the feed explains the parser's complaint about a cut-off file.
        if let refusal = feed.refusal { throw refusal.error("TCX", source: source) }
        if let hazard = feed.instructionHazard { throw hazard.error("TCX", source: source) }
        if let errno = feed.readError {
            throw RouteLogError(.io, "Reading the TCX file failed: \(String(cString: strerror(errno))); "
                                    + "nothing from this file was imported", path: source)
        }
        if let error { throw error }
        if !finished || parser.parserError != nil {
            throw fail(parser.parserError.map(Self.describe) ?? "the XML parser stopped", parser)
        }
        guard contents.sawRoot else {
            throw RouteLogError(.invalidArgument, "Not a TCX file: the file has no <TrainingCenterDatabase> element",
                                path: source)
        }
        return contents
    }

    private func fail(_ what: String, _ parser: XMLParser, refused: Bool = false) -> RouteLogError {
        RouteLogError(.invalidArgument,
                      (refused ? "TCX refused" : "Malformed TCX")
                          + " at line \(parser.lineNumber), column \(parser.columnNumber): \(what); "
                          + "nothing from this file was imported", path: source)
    }

    /// Records the first error and stops the parser and its input at once; `refused`
    /// for a limit of ``ImportLimits`` passed rather than a fault of the file.
    func stop(_ what: String, refused: Bool = false) {
        guard error == nil, let parser else { return }
        error = fail(what, parser, refused: refused)
        feed?.stop()
        parser.abortParsing()
    }

    private static func describe(_ error: Error) -> String {
        switch (error as NSError).code {
        case 4: return "the file is empty or not XML"
        case 5: return "the file ends before its elements are closed (truncated?)"
        case 76: return "a closing tag does not match the element it closes"
        case 201: return "an element or attribute uses a namespace prefix that is not declared"
        case 9, 69: return "invalid character in the text (wrong encoding?)"
        case 89: return "entities expand too far (an entity loop or an expansion bomb)"
        case let code: return "the XML is not well-formed, or the file is truncated (libxml2 error \(code))"
        }
    }

    // MARK: XMLParserDelegate

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        stop(Self.describe(parseError))
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI uri: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        depth += 1
        guard error == nil else { return }
        // Every start tag, skipped ones too: the names are what costs libxml2 the time.
        guard names.admit(qualifiedName, name, uri: uri, attributes: attributes) else {
            return stop(names.refusal, refused: true)
        }
        guard skipUntilDepth == nil else { return }
        // Mixed content: the text around the element would be read as one value made of
        // the pieces ("1<x>2</x>0" as 10, or 120).
        if text != nil { return stop("<\((qualifiedName ?? name).prefix(80))> is inside <\(textElement)>, whose value is text") }
        if let qualifiedName, qualifiedName.utf8.contains(UInt8(ascii: ":")), uri == nil || uri == "" {
            return stop("the prefix of <\(qualifiedName)> is not declared")
        }
        if depth == 1 { return startRoot(name, uri) }
        if point != nil { return startPointChild(name, uri) }
        guard Self.isTCX(uri) else {
            skipUntilDepth = depth
            return
        }
        if sectionDepth == nil {
            if depth == 2, name == "Activities" || name == "Courses" { sectionDepth = depth } else { skipUntilDepth = depth }
            return
        }
        guard let current else {
            if name == "Activity" || name == "Course" { startPath(name, attributes) }
            return
        }
        switch name {
        case "Lap":
            if depth == currentDepth + 1 {
                contents.laps += 1
                tracksInContainer = 0
            }
        case "Track":
            if tracksInContainer > 0 { breakPending = true }
            tracksInContainer += 1
        case "Trackpoint":
            startPoint()
        case "Id" where depth == currentDepth + 1 && !current.isCourse,
             "Name" where depth == currentDepth + 1 && current.isCourse,
             "Calories" where depth == currentDepth + 2:
            collectText(name)
        case "CoursePoint":
            contents.coursePoints += 1
            skipUntilDepth = depth
        case "Extensions", "Notes", "Creator", "Training":
            skipUntilDepth = depth
        default:
            break
        }
    }

    private func startRoot(_ name: String, _ uri: String?) {
        guard name == "TrainingCenterDatabase" else { return stop("the root element is <\(name)>, not <TrainingCenterDatabase>") }
        if uri == Self.namespaceV1 { return stop("this is TCX version 1, which RouteLog does not read (only version 2)") }
        guard Self.isTCX(uri) else { return stop("the root element's namespace is \(uri ?? ""), not TCX version 2's") }
        contents.sawRoot = true
    }

    private func startPath(_ name: String, _ attributes: [String: String]) {
        if let sport = attributes["Sport"], sport.utf8.count > options.maximumTextBytes {
            return stop("the Sport attribute is longer than \(options.maximumTextBytes) bytes")
        }
        current = TCXPath(sport: name == "Activity" ? attributes["Sport"] : nil, isCourse: name == "Course")
        currentDepth = depth
        tracksInContainer = 0
        breakPending = false
    }

    private func startPoint() {
        point = TrackPoint(latitude: 0, longitude: 0, timestamp: Date(timeIntervalSince1970: 0))
        pointDepth = depth
        pointHasTime = false
        latitude = nil
        longitude = nil
        pointHasPower = false
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard text != nil else { return }
        textBytes += string.utf8.count
        guard textBytes <= options.maximumTextBytes else {
            text = nil
            return stop("the text of <\(textElement)> is longer than \(options.maximumTextBytes) bytes, "
                + "the most RouteLog reads in one element")
        }
        text! += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI uri: String?, qualifiedName: String?) {
        defer { depth -= 1 }
        guard error == nil else { return }
        if let skip = skipUntilDepth {
            if depth == skip { skipUntilDepth = nil }
            return
        }
        let value = text.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        text = nil
        if point != nil {
            if depth == pointDepth { return endPoint() }
            if let value, !value.isEmpty { setPointValue(name, value) }
            return
        }
        if depth == sectionDepth { sectionDepth = nil }
        guard current != nil else { return }
        if depth == currentDepth {
            // A path without points is counted, not kept: it would cost memory for nothing.
            if current!.path.isEmpty { contents.pathsWithoutPoints += 1 } else { contents.paths.append(current!) }
            current = nil
            return
        }
        guard let value, !value.isEmpty else { return }
        setPathValue(name, value)
    }

    private func endPoint() {
        defer { point = nil }
        guard var finished = point, let latitude, let longitude else {
            contents.pointsWithoutPosition += 1
            return
        }
        guard contents.pointCount < options.maximumPoints else {
            return stop("the file has more than \(options.maximumPoints) Trackpoints with a position, "
                + "the most RouteLog imports from one file")
        }
        let routes = options.limits.routesPerFile
        guard current?.path.isEmpty == false || contents.paths.count < routes else {
            return stop("the file has more than \(ImportLimits.grouped(routes)) Activities and Courses with points "
                + "(ImportLimits.routesPerFile); split the file", refused: true)
        }
        finished.latitude = latitude
        finished.longitude = longitude
        if breakPending, let count = current?.path.count, count > 0 {
            current?.path.segmentStarts.append(count)
            contents.pauses += 1
        }
        breakPending = false
        if pointHasPower { contents.powerReadings += 1 }
        current?.path.append(GPXPointValues(finished, hasTime: pointHasTime))
        contents.pointCount += 1
    }
}
