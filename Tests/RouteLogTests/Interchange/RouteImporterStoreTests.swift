import Foundation
import Testing
@testable import RouteLog

/// Importing files of every format into a store: one report type, all or nothing per file.
@Suite struct RouteImporterStoreTests {
    @Test func aMixOfFormatsImportsAndEveryBadFileLeavesTheStoreAsItWas() throws {
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store())
        defer { try? store.close() }
        let files = directory.url.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        func write(_ name: String, _ bytes: [UInt8]) throws -> URL {
            let url = files.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url
        }
        let good = try write("a-good.fit", FITForge.walk(5).file())
        let badCRC = try write("b-bad-crc.fit", FITForge.walk(5).file(fileCRC: .wrong))
        let cut = try write("c-cut.fit", Array(FITForge.walk(5).file().dropLast(7)))
        let tcx = try write("d-ride.tcx", TCXImportStructureTests.tcx("<Activities><Activity Sport=\"Biking\"><Lap><Track>"
            + TCXImportStructureTests.point(0) + TCXImportStructureTests.point(1, 47.30001) + "</Track></Lap></Activity></Activities>"))
        let badTCX = try write("e-bad.tcx", TCXImportStructureTests.tcx("<Activities><Activity><Lap><Track>"
            + TCXImportStructureTests.point(0) + TCXImportStructureTests.point(1, 95) + "</Track></Lap></Activity></Activities>"))
        let gpx = InterchangeFixtures.gpx("gpxgo__visnjan.gpx")
        let outcomes = RouteImporter.importFiles([good, badCRC, cut, tcx, badTCX, gpx], into: store)
        let reports = outcomes.map { try? $0.result.get() }
        #expect(reports.map { $0?.format } == [.fit, nil, nil, .tcx, nil, .gpx])
        #expect(reports.map { $0?.routeIDs.count } == [1, nil, nil, 1, nil, 1])
        #expect(try store.summaries().map(\.pointCount).sorted() == [2, 5, 413])
        for outcome in outcomes {
            if case .failure(let error) = outcome.result {
                #expect(error.code == .invalidArgument && error.path == outcome.file.path)
            }
        }
        // A refused file changes no byte of the store.
        let before = directorySnapshot(directory.store())
        for url in [badCRC, cut, badTCX] {
            #expect(throws: RouteLogError.self) { try RouteImporter.importFile(url, into: store) }
        }
        #expect(directorySnapshot(directory.store()) == before)
        // The directory, by content: the four route files of any kind, bad ones refused again.
        let again = RouteImporter.importDirectory(files, into: store)
        #expect(again.map(\.file.lastPathComponent) == ["a-good.fit", "b-bad-crc.fit", "c-cut.fit", "d-ride.tcx", "e-bad.tcx"])
        var allowing = RouteImportOptions()
        allowing.importsDespiteBadCRC = true
        // b-bad-crc.fit is a-good.fit's activity with a damaged CRC: a duplicate.
        #expect(try RouteImporter.importFile(badCRC, into: store, options: allowing).duplicates.count == 1)
        allowing.allowsDuplicates = true
        let forced = try RouteImporter.importFile(badCRC, into: store, options: allowing)
        #expect(forced.routeIDs.count == 1 && forced.ignoredCRCMismatches.count == 1)
    }

    @Test func aRouteTheStoreWouldRefuseFailsTheWholeFile() throws {
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store())
        defer { try? store.close() }
        let long = String(repeating: "x", count: 2000)
        let url = directory.url.appendingPathComponent("long-name.tcx")
        try Data(TCXImportStructureTests.tcx("<Courses><Course><Name>\(long)</Name><Track>" + TCXImportStructureTests.point(0)
            + "</Track></Course><Course><Name>ok</Name><Track>" + TCXImportStructureTests.point(1) + "</Track></Course></Courses>"))
            .write(to: url)
        let error = try #require(throwsError { try TCXImporter.importFile(url, into: store) })
        #expect(error.message.hasPrefix("route 1 of the file cannot be stored") && error.message.contains("name"))
        #expect(try store.summaries().isEmpty)
    }

    @Test func theOldGPXNamesStillWork() throws {
        var options = GPXImportOptions()
        options.breaksJumps = false
        let result: GPXImport = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx("gpxgo__visnjan.gpx"), options: options)
        let report: GPXImportReport = result.report
        #expect(report.format == .gpx && report.sports.isEmpty && report.notes == ["2 waypoint(s) skipped (RouteLog stores paths, not places)"])
    }
}
