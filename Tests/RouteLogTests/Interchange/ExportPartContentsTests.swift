import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// `_routelog_export.json`, the list of the routes a part's tables hold: written as
/// ranges, read back the same, and anything else at its name (forged, huge, a link, a
/// FIFO) read as "unknown", which keeps the earlier tables, never as a list that would
/// let them go.
@Suite struct ExportPartContentsTests {
    @Test func idsRoundTripAsRanges() throws {
        let dir = TemporaryDirectory()
        let ids = [1, 2, 3, 7, 9, 10, UInt64.max - 1, UInt64.max].map { RouteID($0) }
        let routes = Dictionary(uniqueKeysWithValues: ids.map { ($0, UUID()) })
        try ExportPartContents(routes: routes).write(into: ExportFolder(opening: dir.url))
        let text = try String(contentsOf: dir.url.appendingPathComponent(ExportPartContents.fileName), encoding: .utf8)
        let digest = ExportPartContents.digest(routes.map { ($0.key, $0.value) })
        let hex = String(digest, radix: 16)
        #expect(text == "{\"routeIDs\":[[1,3],[7,7],[9,10],[\(UInt64.max - 1),\(UInt64.max)]],\"digest\":\"\(String(repeating: "0", count: 16 - hex.count) + hex)\"}\n")
        let read = try #require(ExportPartContents.read(in: dir.url))
        #expect(read.digest == digest)
        #expect(read.areWritten(in: routes))
        var other = routes
        other[RouteID(7)] = UUID()  // another store's route 7
        #expect(!read.areWritten(in: other))
        other = routes
        other[RouteID(7)] = nil  // route 7 not written
        #expect(!read.areWritten(in: other))
        #expect(read.ids(atMost: 100) == Set(ids))
        #expect(read.containsAny(of: [RouteID(8), RouteID(10)]))
        #expect(!read.containsAny(of: [RouteID(4), RouteID(8), RouteID(11), RouteID(0)]))
    }

    @Test(arguments: [
        "", "{}", "[]", "{\"routeIDs\":[[3,1]]}", "{\"routeIDs\":[[1,2],[2,3]]}", "{\"routeIDs\":[[5,6],[1,2]]}",
        "{\"routeIDs\":[[1]]}", "{\"routeIDs\":[[1,2,3]]}", "{\"routeIDs\":[[-1,2]]}", "{\"routeIDs\":[[1.5,2]]}",
        "{\"routeIDs\":[[1,18446744073709551616]]}", "{\"routeIDs\":\"1-2\"}", "not json",
        "{\"routeIDs\":[[01,2]]}", "{\"routeIDs\":[[1,1]],\"pad\":[]}", "{\"routeIDs\":[[1,1],]}", "{\"routeIDs\":[[1,1]]} x",
        "{\"routeIDs\":[[1e3,2000]]}", "{\"routeids\":[[1,1]]}", "{\"routeIDs\":[[1,1]],\"digest\":\"0123\"}",
        "{\"routeIDs\":[[1,1]],\"digest\":\"0123456789ABCDEF\"}", "{\"routeIDs\":[[1,1]],\"digest\":12}",
    ])
    func aFileThisDoesNotWriteIsUnknown(text: String) throws {
        let dir = TemporaryDirectory()
        try Data(text.utf8).write(to: dir.url.appendingPathComponent(ExportPartContents.fileName))
        #expect(ExportPartContents.read(in: dir.url) == nil)
    }

    @Test func spacesBetweenTokensAreRead() throws {
        let dir = TemporaryDirectory()
        try Data(" {\n \"routeIDs\" : [ [ 1 , 2 ] ,\t[4,4] ] }\n".utf8).write(to: dir.url.appendingPathComponent(ExportPartContents.fileName))
        #expect(ExportPartContents.read(in: dir.url)?.ranges == [1...2, 4...4])
        #expect(ExportPartContents.read(in: dir.url)?.digest == nil)
        try Data("{\"routeIDs\":[[5,5]] , \"digest\" : \"00000000000000ff\" }".utf8).write(to: dir.url.appendingPathComponent(ExportPartContents.fileName))
        #expect(ExportPartContents.read(in: dir.url)?.digest == 255)
        try Data("{\"routeIDs\":[]}".utf8).write(to: dir.url.appendingPathComponent(ExportPartContents.fileName))
        #expect(ExportPartContents.read(in: dir.url)?.ranges == [])
    }

    /// A forged range of every id costs nothing: it is kept as one range.
    @Test func aRangeOfEveryIdIsOneRange() throws {
        let dir = TemporaryDirectory()
        try Data("{\"routeIDs\":[[0,\(UInt64.max)]]}".utf8).write(to: dir.url.appendingPathComponent(ExportPartContents.fileName))
        let read = try #require(ExportPartContents.read(in: dir.url))
        #expect(read.ranges.count == 1)
        #expect(read.containsAny(of: [RouteID(123_456_789)]))
        #expect(read.ids(atMost: 1_000_000) == nil)
    }

    @Test func aLinkFifoOrDirectoryAtItsNameIsUnknown() throws {
        let dir = TemporaryDirectory()
        let elsewhere = dir.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try ExportPartContents(routes: [RouteID(1): UUID()]).write(into: ExportFolder(opening: elsewhere))
        let link = dir.url.appendingPathComponent("link"), fifo = dir.url.appendingPathComponent("fifo"),
            folder = dir.url.appendingPathComponent("folder")
        for part in [link, fifo, folder] { try FileManager.default.createDirectory(at: part, withIntermediateDirectories: true) }
        try FileManager.default.createSymbolicLink(atPath: link.appendingPathComponent(ExportPartContents.fileName).path,
                                                   withDestinationPath: elsewhere.appendingPathComponent(ExportPartContents.fileName).path)
        #expect(mkfifo(fifo.appendingPathComponent(ExportPartContents.fileName).path, 0o644) == 0)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(ExportPartContents.fileName), withIntermediateDirectories: true)
        for part in [link, fifo, folder] { #expect(ExportPartContents.read(in: part) == nil, "\(part.lastPathComponent)") }
    }
}
