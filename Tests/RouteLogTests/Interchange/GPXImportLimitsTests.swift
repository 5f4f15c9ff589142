import Foundation
import Testing
@testable import RouteLog

/// Every limit of ``ImportLimits`` is enforced while the GPX is read: the reader stops
/// at the first point, name or value past one, says which limit and where, and reads
/// no further (the feed's byte count shows it). Small limits keep the inputs small;
/// RoutelogHostileInputMemoryTests runs the default limits on the full-size files.
@Suite struct GPXImportLimitsTests {
    static let head = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"

    /// One track per entry of `tracks`, each with that many points, one per line.
    static func gpx(tracks: [Int]) -> Data {
        var text = head
        for count in tracks {
            text += "<trk><trkseg>\n"
            for i in 0..<count { text += "<trkpt lat=\"47.\(100_000 + i)\" lon=\"8.5\"/>\n" }
            text += "</trkseg></trk>\n"
        }
        return Data((text + "</gpx>\n").utf8)
    }

    /// Reads `data` with `limits`; returns the error and how many bytes were read.
    func refusal(_ data: Data, _ limits: ImportLimits) -> (error: RouteLogError?, bytesRead: Int) {
        let feed = XMLInputFeed(bytes: data)
        do {
            let contents = try GPXReader.read(feed, source: "big.gpx", limits: limits)
            Issue.record("read \(contents.paths.count) paths instead of refusing")
            return (nil, feed.bytesRead)
        } catch let error as RouteLogError {
            return (error, feed.bytesRead)
        } catch {
            Issue.record("not a RouteLogError: \(error)")
            return (nil, feed.bytesRead)
        }
    }

    @Test func theDefaultsAreTheStoresOwnLimits() {
        let limits = ImportLimits()
        #expect(limits.pointsPerRoute == RouteValidation.maxPoints)
        #expect(limits.pointsPerFile == 1_000_000)
        #expect(limits.nameBytes == 1024)
    }

    @Test func aTrackPastThePointLimitIsRefusedAtThatPointAndReadNoFurther() throws {
        var limits = ImportLimits()
        limits.pointsPerRoute = 1000
        let data = Self.gpx(tracks: [200_000])    // 6.6 MB
        let (error, bytesRead) = refusal(data, limits)
        let message = try #require(error).message
        #expect(message.contains("more than 1,000 points") && message.contains("ImportLimits.pointsPerRoute"))
        // The 1,001st point is on line 1,004 (declaration, <gpx>, <trk> first).
        #expect(message.contains("GPX refused at line 1004, column"), "\(message)")
        #expect(bytesRead <= 256 << 10, "read \(bytesRead) of \(data.count) bytes")
        var enough = limits
        enough.pointsPerRoute = 200_000
        enough.pointsPerFile = 200_000
        #expect(try GPXImporter.read(data: data, options: .init(limits: enough)).routes[0].points.count == 200_000)
    }

    @Test func theFileLimitCountsThePointsOfEveryTrack() throws {
        var limits = ImportLimits()
        limits.pointsPerFile = 2500
        let (error, bytesRead) = refusal(Self.gpx(tracks: [1000, 1000, 1000, 50_000]), limits)
        let message = try #require(error).message
        #expect(message.contains("the file has more than 2,500 points") && message.contains("ImportLimits.pointsPerFile"))
        #expect(bytesRead <= 256 << 10)
        #expect(try GPXImporter.read(data: Self.gpx(tracks: [1000, 1000, 500]), options: .init(limits: limits)).routes.count == 3)
    }

    @Test func theRouteLimitCountsTracksWithPoints() throws {
        var limits = ImportLimits()
        limits.routesPerFile = 3
        let (error, _) = refusal(Self.gpx(tracks: [1, 0, 1, 0, 1, 1]), limits)
        #expect(try #require(error).message.contains("more than 3 tracks and routes"))
        // Empty tracks hold nothing, so they are not counted.
        #expect(try GPXImporter.read(data: Self.gpx(tracks: [1, 0, 1, 0, 1]), options: .init(limits: limits)).routes.count == 3)
    }

    @Test func aNamePastItsLimitIsRefusedAsItIsRead() throws {
        let name = String(repeating: "n", count: 10 << 20)
        let data = Data((Self.head + "<trk><name>\(name)</name><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>").utf8)
        let (error, bytesRead) = refusal(data, ImportLimits())
        let message = try #require(error).message
        #expect(message.contains("longer than 1,024 bytes") && message.contains("line 3, column"), "\(message)")
        #expect(bytesRead <= 256 << 10, "read \(bytesRead) of \(data.count) bytes")
        // Exactly 1,024 bytes of UTF-8 (512 two-byte letters) is a name.
        let most = String(repeating: "é", count: 512)
        let fits = Data((Self.head + "<trk><name>\(most)</name><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>").utf8)
        #expect(try GPXImporter.read(data: fits).routes[0].metadata.name == most)
    }

    @Test func aValuePastItsLimitIsRefusedAsItIsRead() throws {
        let digits = String(repeating: "0", count: 1 << 20) + "1"
        let data = Data((Self.head + "<trk><trkseg><trkpt lat=\"1\" lon=\"1\"><ele>\(digits)</ele></trkpt></trkseg></trk></gpx>").utf8)
        let (error, bytesRead) = refusal(data, ImportLimits())
        let message = try #require(error).message
        #expect(message.contains("more than 256 bytes of text") && message.contains("ImportLimits.valueBytes"))
        #expect(bytesRead <= 256 << 10)
    }

    @Test func aFileOfTooManyDifferentNamesIsRefusedBeforeLibxml2SlowsDown() throws {
        // libxml2's name table degrades quadratically past tens of thousands of names.
        var text = Self.head + "<extensions>"
        for i in 0..<50_000 { text += "<e\(i)/>" }
        let data = Data((text + "</extensions><trk><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>").utf8)
        let (error, bytesRead) = refusal(data, ImportLimits())
        #expect(try #require(error).message.contains("more than 10,000 different element, attribute and namespace names"))
        #expect(bytesRead <= 256 << 10, "read \(bytesRead) of \(data.count) bytes")
        // Many elements of a few names are fine: the names are counted, not the elements.
        let many = Self.head + "<extensions>" + String(repeating: "<e/>", count: 50_000)
            + "</extensions><trk><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>"
        #expect(try GPXImporter.read(data: Data(many.utf8)).report.unknownExtensionsSkipped == 50_000)
    }

    /// Three untimed points half the world apart each: about 40,000 km, more splits than
    /// a lowered limit allows.
    static let halfTheWorldApart = "<trkpt lat=\"0\" lon=\"0\"/><trkpt lat=\"0\" lon=\"179.9\"/><trkpt lat=\"0\" lon=\"-0.2\"/>"

    @Test func aRouteLongEnoughForTooManySplitsIsRefusedBeforeItsSplitsAreMade() throws {
        let text = Self.head + "<trk><trkseg>" + Self.halfTheWorldApart + "</trkseg></trk></gpx>"
        var options = GPXImportOptions()
        options.limits.splitsPerRoute = 10_000
        #expect {
            try GPXImporter.read(data: Data(text.utf8), options: options)
        } throws: { error in
            let message = (error as? RouteLogError)?.message ?? ""
            return message.contains("more than 10,000 kilometre and mile splits")
        }
        options.limits.splitsPerRoute = 70_000
        let route = try #require(GPXImporter.read(data: Data(text.utf8), options: options).routes.first)
        let metres = RouteMetrics.distance(of: route.points)
        #expect(metres > 39_000_000)
        #expect(route.splits.count == Int(metres / 1000) + Int(metres / 1609.344))
    }
}

extension GPXImportOptions {
    /// The default options with other limits.
    init(limits: ImportLimits) {
        self.init()
        self.limits = limits
    }
}
