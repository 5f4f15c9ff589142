import Foundation

/// Files shaped to cost a reader as much as possible, written straight to disk in
/// chunks (never whole in memory), for the tests that show RouteLog's import limits
/// hold: huge GPX tracks and names, and keyed archives with many splits or with one
/// location array named by many routes.
public enum HostileInputs {
    private static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<gpx version=\"1.1\" creator=\"hostile\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"

    /// A file written in 1 MiB pieces.
    private final class ChunkedFile {
        private let handle: FileHandle
        private var buffer = Data()

        init(_ url: URL) throws {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            handle = try FileHandle(forWritingTo: url)
        }

        func append(_ bytes: Data) {
            buffer.append(bytes)
            if buffer.count >= 1 << 20 {
                handle.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }

        func close() throws {
            handle.write(buffer)
            try handle.close()
        }

        /// `count` copies of one item: `block` (1,000 items) as often as it fits, then
        /// `item` for the rest.
        func appendRepeated(_ count: Int, block: Data, item: Data) {
            var written = 0
            while written + 1000 <= count {
                append(block)
                written += 1000
            }
            for _ in written..<count { append(item) }
        }
    }

    /// A GPX file of one track holding `points` bare points (`<trkpt lat=... lon=.../>`,
    /// about 42 bytes each: 10,000,000 points make 420 MB).
    public static func gpx(points: Int, to url: URL) throws {
        let file = try ChunkedFile(url)
        file.append(Data((head + "<trk><name>many points</name><trkseg>\n").utf8))
        // A block of 1,000 points repeated: the bytes, not their variety, are the point.
        var block = ""
        for i in 0..<1000 {
            let digits = String(1_000_000 + i).dropFirst()
            block += "<trkpt lat=\"47.\(digits)\" lon=\"8.\(digits)\"/>\n"
        }
        file.appendRepeated(points, block: Data(block.utf8), item: Data("<trkpt lat=\"47.5\" lon=\"8.5\"/>\n".utf8))
        file.append(Data("</trkseg></trk></gpx>\n".utf8))
        try file.close()
    }

    /// A GPX file of one track of three points, then `emptyTracks` tracks without any
    /// (`<trk/>`, 7 bytes each: 1,000,000 make 7 MB).
    public static func gpx(emptyTracks: Int, to url: URL) throws {
        let file = try ChunkedFile(url)
        file.append(Data((head + "<trk><trkseg><trkpt lat=\"47.1\" lon=\"8.1\"/><trkpt lat=\"47.2\" lon=\"8.2\"/>"
                          + "<trkpt lat=\"47.3\" lon=\"8.3\"/></trkseg></trk>\n").utf8))
        file.appendRepeated(emptyTracks, block: Data(String(repeating: "<trk/>\n", count: 1000).utf8),
                            item: Data("<trk/>\n".utf8))
        file.append(Data("</gpx>\n".utf8))
        try file.close()
    }

    /// A GPX file of one track of one point whose `<name>` is `nameBytes` letters long.
    public static func gpx(nameBytes: Int, to url: URL) throws {
        let file = try ChunkedFile(url)
        file.append(Data((head + "<trk><name>").utf8))
        let letters = Data(repeating: UInt8(ascii: "n"), count: 1 << 16)
        var written = 0
        while written < nameBytes {
            let count = min(letters.count, nameBytes - written)
            file.append(letters.prefix(count))
            written += count
        }
        file.append(Data("</name><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>\n".utf8))
        try file.close()
    }

    /// An NSKeyedArchiver archive in the old app's layout: `routes` route objects that
    /// all name one `routeCoordinates` array of `references` entries, which cycle
    /// through `locations` distinct CLLocations (one second apart, walking north), and
    /// one `kmTimes` array of `splits` dates (in time order, spread over the route).
    ///
    /// With `routes: 1` and `locations == references` it is an honest archive of one
    /// long route with many splits; with many routes, or few locations named many
    /// times, a small file names millions of points.
    public static func archive(routes: Int = 1, references: Int, locations: Int, splits: Int, to url: URL) throws {
        precondition(routes >= 1 && locations >= 1 && locations <= references)
        let keys = ["$archiver", "$version", "$top", "$objects", "root", "$class", "NS.objects", "$classname", "$classes",
                    "routeCoordinates", "kmCoordinates", "kmTimes", "mileCoordinates", "mileTimes", "totalDistance",
                    "NS.time", "kCLLocationCodingKeyCoordinateLatitude", "kCLLocationCodingKeyCoordinateLongitude",
                    "kCLLocationCodingKeyTimestamp", "kCLLocationCodingKeyHorizontalAccuracy", "NSKeyedArchiver",
                    "NSMutableArray", "NSArray", "NSObject", "Route", "CLLocation", "NSDate", "$null"]
        func key(_ name: String) -> Int { 1 + keys.firstIndex(of: name)! }
        // Archive ($objects) indices.
        let nullIndex = 0, rootIndex = 1, routeIndex = 2, locationsIndex = 3, timesIndex = 4, emptyIndex = 5
        let arrayClass = 6, routeClass = 7, locationClass = 8, dateClass = 9, firstLocation = 10
        let firstDate = firstLocation + locations
        let archiveCount = firstDate + splits
        // Property-list object ids, in the order they are written.
        let version = keys.count + 1, topDictionary = version + 1, objectsArray = topDictionary + 1
        let firstUID = objectsArray + 1, firstArchived = firstUID + archiveCount
        let rootElements = firstArchived + archiveCount, locationElements = rootElements + 1
        let timeElements = locationElements + 1, emptyElements = timeElements + 1, firstClassList = emptyElements + 1
        let firstReal = firstClassList + 4, distanceReal = firstReal + 4 * locations + splits
        let objectCount = distanceReal + 1
        func uid(_ index: Int) -> Int { firstUID + index }
        let start2015 = 454_834_800.0

        var plist = try BinaryPlistStream(url: url, objectCount: objectCount)
        plist.dictionary([(key("$archiver"), key("NSKeyedArchiver")), (key("$version"), version),
                          (key("$top"), topDictionary), (key("$objects"), objectsArray)])
        for name in keys { plist.string(name) }
        plist.integer(100_000)
        plist.dictionary([(key("root"), uid(rootIndex))])
        plist.array(count: archiveCount) { firstArchived + $0 }
        for index in 0..<archiveCount { plist.uid(index) }
        for index in 0..<archiveCount {
            switch index {
            case nullIndex: plist.string("$null")
            case rootIndex: plist.dictionary([(key("$class"), uid(arrayClass)), (key("NS.objects"), rootElements)])
            case routeIndex:
                plist.dictionary([(key("$class"), uid(routeClass)), (key("routeCoordinates"), uid(locationsIndex)),
                                  (key("kmCoordinates"), uid(emptyIndex)), (key("kmTimes"), uid(timesIndex)),
                                  (key("mileCoordinates"), uid(emptyIndex)), (key("mileTimes"), uid(emptyIndex)),
                                  (key("totalDistance"), distanceReal)])
            case locationsIndex: plist.dictionary([(key("$class"), uid(arrayClass)), (key("NS.objects"), locationElements)])
            case timesIndex: plist.dictionary([(key("$class"), uid(arrayClass)), (key("NS.objects"), timeElements)])
            case emptyIndex: plist.dictionary([(key("$class"), uid(arrayClass)), (key("NS.objects"), emptyElements)])
            case arrayClass, routeClass, locationClass, dateClass:
                let name = ["NSMutableArray", "Route", "CLLocation", "NSDate"][index - arrayClass]
                plist.dictionary([(key("$classname"), key(name)), (key("$classes"), firstClassList + index - arrayClass)])
            case firstLocation..<firstDate:
                let real = firstReal + 4 * (index - firstLocation)
                plist.dictionary([(key("$class"), uid(locationClass)),
                                  (key("kCLLocationCodingKeyCoordinateLatitude"), real),
                                  (key("kCLLocationCodingKeyCoordinateLongitude"), real + 1),
                                  (key("kCLLocationCodingKeyTimestamp"), real + 2),
                                  (key("kCLLocationCodingKeyHorizontalAccuracy"), real + 3)])
            default:
                plist.dictionary([(key("$class"), uid(dateClass)),
                                  (key("NS.time"), firstReal + 4 * locations + index - firstDate)])
            }
        }
        plist.array(count: routes) { _ in uid(routeIndex) }
        plist.array(count: references) { uid(firstLocation + $0 % locations) }
        plist.array(count: splits) { uid(firstDate + $0) }
        plist.array(count: 0) { $0 }
        plist.array(count: 2) { [key("NSMutableArray"), key("NSObject")][$0] }
        plist.array(count: 2) { [key("Route"), key("NSObject")][$0] }
        plist.array(count: 2) { [key("CLLocation"), key("NSObject")][$0] }
        plist.array(count: 2) { [key("NSDate"), key("NSObject")][$0] }
        for i in 0..<locations {
            plist.real(10 + Double(i) * 1e-5)
            plist.real(20)
            plist.real(start2015 + Double(i))
            plist.real(5)
        }
        for s in 0..<splits { plist.real(start2015 + Double(s) * Double(locations) / Double(max(splits, 1))) }
        plist.real(1000)
        try plist.finish(top: 0)
    }
}
