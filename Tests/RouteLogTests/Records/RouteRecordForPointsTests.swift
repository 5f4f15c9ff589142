import Foundation
import Testing
@testable import RouteLog

/// A load reads a RoutePut for its points with the index's metadata in place of the
/// stored one (``RouteRecord/init(payload:metadata:)``): the stored metadata is checked
/// as a whole read checks it, but not decoded.
@Suite struct RouteRecordForPointsTests {
    /// The payload of a walk's RoutePut with `change` applied to its stored metadata.
    static func payload(_ change: (inout StoredMetadata) -> Void = { _ in }) throws -> (RouteRecord, [UInt8]) {
        var record = try EncodedRoute(Fixtures.sampleWalk(seed: 7, points: 300)).record
        record.id = RouteID(42)
        change(&record.metadata)
        return (record, record.payload())
    }

    @Test func theIndexsMetadataStandsInAndTheRestReadsAsAWholeRead() throws {
        let (record, bytes) = try Self.payload()
        var index = record.metadata
        index.name = "the index's name"
        let read = try RouteRecord(payload: bytes[...], metadata: index)
        let whole = try RouteRecord(payload: bytes[...])
        #expect(read.metadata == index && whole.metadata == record.metadata)
        #expect(read.id == whole.id)
        #expect(read.shape == whole.shape)
        #expect(read.splits == whole.splits)
        #expect(read.segmentStarts == whole.segmentStarts)
        #expect(read.pointBlock == whole.pointBlock)
        #expect(try read.route().points == whole.route().points)
    }

    @Test func storedFieldsThatBreakTheirRulesAreRefusedByBothReads() throws {
        // An empty preview: a rule of the field's value (a preview has a point), not of
        // the layout. A load that stepped over the stored fields would serve the route
        // from the index's metadata and say nothing of a record that makes no sense.
        let (_, bytes) = try Self.payload { $0.derived.preview = RoutePreview(encoded: [], count: 0, tolerance: 0) }
        #expect(throws: ByteReader.Malformed.self) { try RouteRecord(payload: bytes[...]) }
        #expect(throws: ByteReader.Malformed.self) { try RouteRecord(payload: bytes[...], metadata: StoredMetadata(RouteMetadata())) }
    }

    @Test func aBrokenLayoutIsRefusedByBothReads() throws {
        let (_, bytes) = try Self.payload { $0.name = "walk" }
        // Every cut inside the metadata and the layout after it: each is refused, by
        // both reads alike (the cut payload then ends inside them or reads a point
        // block that is not one, which the read for points must not take as its own).
        let start = 8 + FormatConstants.routeShapeSize
        for cut in start..<min(bytes.count, start + 80) {
            let head = bytes[..<cut]
            #expect(throws: ByteReader.Malformed.self, "cut at \(cut)") { try RouteRecord(payload: head) }
            #expect(throws: ByteReader.Malformed.self, "cut at \(cut)") {
                try RouteRecord(payload: head, metadata: StoredMetadata(RouteMetadata())).route()
            }
        }
    }
}
