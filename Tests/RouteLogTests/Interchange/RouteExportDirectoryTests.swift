import Foundation
import Testing
@testable import RouteLog

/// Exporting a whole store: file names from ids only, nothing escapes the directory.
@Suite struct RouteExportDirectoryTests {
    @Test func everyRouteGetsAnIdNamedFileInsideTheDirectory() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"))
        defer { try? store.close() }
        let hostile = ["../../escaped", "/etc/passwd", "a/b\\c", "..", "nul\u{0}byte"]
        for (i, name) in hostile.enumerated() {
            let points = (0..<5).map { TrackPoint.sample($0, start: 1_700_000_000 + Double(i) * 10_000) }
            try store.save(Route(points: points, metadata: RouteMetadata(name: name)))
        }
        let out = dir.appendingPathComponent("export")
        for format in RouteExportFormat.allCases {
            let files = try RouteExporter.exportAll(from: store, to: out, format: format)
            #expect(files.count == hostile.count)
            for file in files {
                #expect(file.deletingLastPathComponent().standardizedFileURL.path == out.standardizedFileURL.path)
                #expect(file.lastPathComponent.range(of: "^route-[0-9]+\\.[a-z]+$", options: .regularExpression) != nil)
            }
        }
        let listed = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(listed.count == hostile.count * RouteExportFormat.allCases.count)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("escaped").path))
        // The hostile name is inside the GPX, escaped, not in the file system.
        let gpx = try GPXImporter.read(contentsOf: out.appendingPathComponent("route-1.gpx"))
        #expect(gpx.routes.first?.metadata.name == "../../escaped")
    }

    @Test func aFileInPlaceOfTheDirectoryIsRefused() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"))
        defer { try? store.close() }
        let file = dir.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        #expect(throws: RouteLogError.self) { try RouteExporter.exportAll(from: store, to: file, format: .csv) }
    }
}
