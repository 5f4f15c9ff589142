import Foundation
import Testing
@testable import RouteLog

/// Stores written before the derived fields (format version 1, and version 2 without
/// them) still open: their routes read, with stats and preview unknown (nil), and they
/// take part in queries through their bounding boxes.
@Suite struct DerivedFieldsCompatibilityTests {
    static let walk = Fixtures.sampleWalk(seed: 7, points: 900)

    /// A store whose one route (id 1) was written without derived fields, with files of
    /// format `version`; without an index file when `withIndex` is false (it is rebuilt).
    static func oldStore(_ dir: TemporaryDirectory, version: UInt16, withIndex: Bool) throws -> URL {
        let url = try ForgedRouteStore.make(dir, route: walk, version: version, withIndex: withIndex) { record in
            record.metadata.derived = DerivedFields()
            if version == 1 { record.metadata.uuid = nil }  // version 1 had no extension at all
            let payload = record.payload()
            // Version 1 frames hold the payload unescaped: the same bytes when there is nothing to escape.
            #expect(RecordFrame.encode(type: .routePut, payload: payload).count == FormatConstants.recordHeaderSize + payload.count)
        }
        if version == 1 {
            let manifestURL = url.appendingPathComponent(FormatConstants.manifestName)
            let manifest = [UInt8](try Data(contentsOf: manifestURL))
            try Data(FileHeader(kind: .manifest, fileNumber: 0, version: 1).encoded() + manifest[FormatConstants.fileHeaderSize...])
                .write(to: manifestURL)
        }
        return url
    }

    @Test(arguments: [(UInt16(1), true), (1, false), (2, true), (2, false)])
    func anOldStoreOpensWithUnknownStats(_ version: UInt16, _ withIndex: Bool) throws {
        let dir = TemporaryDirectory()
        let url = try Self.oldStore(dir, version: version, withIndex: withIndex)
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        let old = try store.summary(RouteID(1))
        #expect(old.stats == nil)
        #expect(old.preview == nil)
        #expect(old.pointCount == Self.walk.points.count)
        #expect(try store.route(RouteID(1)).points.count == Self.walk.points.count)
        // An edit keeps them unknown (nothing is made up); a new save has them.
        #expect(try store.edit(RouteID(1), RouteEdit(shift: 60, name: "old")).stats == nil)
        let id = try store.save(Self.walk)
        #expect(try store.summary(id).stats != nil)
        #expect(try store.verify().problems.isEmpty)
        try store.close()
        let reopened = try RouteStore(at: url)
        #expect(try reopened.summary(RouteID(1)).stats == nil)
        #expect(try reopened.summary(RouteID(1)).name == "old")
        #expect(try reopened.summary(id).stats == RouteStats.compute(Self.walk.points).quantizedForTest)
        try reopened.close()
    }

    @Test func aReaderKeepsDerivedFieldsItWrote() throws {
        // Round trip of the stored metadata: every derived field reads back as written.
        let record = try EncodedRoute(Self.walk).record
        var w = ByteWriter(capacity: 1024)
        record.metadata.write(to: &w)
        var r = ByteReader(w.bytes[...])
        let read = try StoredMetadata(from: &r)
        #expect(read == record.metadata)
        #expect(read.derived.cells != nil && read.derived.preview != nil && read.derived.stats != nil)
        #expect(read.unknownFields.isEmpty)
    }
}

extension RouteStats {
    /// These stats as the store keeps them (rounded to the stored units).
    var quantizedForTest: RouteStats {
        var r = ByteReader(DerivedFields.encode(self)[...])
        return try! DerivedFields.decodeStats(&r)
    }
}
