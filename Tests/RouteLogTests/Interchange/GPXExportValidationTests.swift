import Foundation
import Testing
@testable import RouteLog

/// Exported GPX validates against the official GPX 1.1 schema with xmllint.
@Suite(.enabled(if: XMLLint.available, "needs xmllint and ../shared/data/schema/gpx-1.1.xsd"))
struct GPXExportValidationTests {
    static let files: [String] = {
        var names = GPXImporter.gpxFiles(in: InterchangeFixtures.gpxDirectory).map(\.lastPathComponent)
        if InterchangeFixtures.sharedDataAvailable { names += ["gpsbabel__dg100.gpx", "gpsbabel__sbn-v13.gpx"] }
        return names
    }()

    @Test(arguments: files)
    func everyImportedFixtureExportsToValidGPX(file: String) throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let routes = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx(file)).routes
        for (i, route) in routes.enumerated() {
            let url = dir.appendingPathComponent("\(i).gpx")
            try RouteExporter.data(for: RouteCodec.quantize(route), format: .gpx).write(to: url)
            let verdict = XMLLint.validate(url)
            #expect(verdict.valid, "\(file) route \(i): \(verdict.output)")
        }
    }

    @Test func everyFieldAndAwkwardNamesStayValid() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let route = Route(points: (0..<10).map { TrackPoint.sample($0) },
                          metadata: RouteMetadata(name: "Tom & Jerry's <walk> \"quoted\"", calories: 321.5, distance: 1234),
                          segmentStarts: [4, 7])
        let url = dir.appendingPathComponent("all.gpx")
        try RouteExporter.data(for: route, format: .gpx).write(to: url)
        let verdict = XMLLint.validate(url)
        #expect(verdict.valid, "\(verdict.output)")
        // The schema check must be able to fail: a point with its children out of order.
        let broken = String(decoding: try Data(contentsOf: url), as: UTF8.self)
            .replacingOccurrences(of: "<ele>400</ele><time>", with: "<time>2000-01-01T00:00:00Z</time><ele>400</ele><time>")
        try Data(broken.utf8).write(to: url)
        #expect(!XMLLint.validate(url).valid)
    }
}
