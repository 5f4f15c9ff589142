import Foundation
import Testing
@testable import RouteLog

/// Metadata of invalid UTF-8 (a file from elsewhere) in the records an index keeps
/// decoded: a deleted route's put (its tombstone), a recording in progress, a discarded
/// recording. Decoded, each invalid byte becomes a three-byte replacement character, so
/// an index written from the decoded values could outgrow the format's limits and be
/// found damaged at every open. Written from the stored bytes, it opens as it is, open
/// after open, and the store reads the same.
@Suite struct LossyMetadataIndexTests {
    enum Case: String, CaseIterable {
        /// Route 1 edited to the largest invalid metadata, then deleted.
        case deletedRoute
        /// Recording 2 started with the largest invalid metadata, still open.
        case recordingInProgress
        /// Recording 2 started so, then discarded.
        case discardedRecording
    }

    /// A store of one route whose segment then holds `kind`'s records; no index.
    static func store(_ kind: Case, in dir: TemporaryDirectory) throws -> URL {
        let url = try ForgedRouteStore.make(dir, route: Fixtures.sampleWalk(seed: 5, points: 30), withIndex: false) { _ in }
        let segmentURL = url.appendingPathComponent(FormatConstants.segmentName(1))
        let invalid = RouteTableFarRowTests.largestInvalidUTF8Metadata()
        var records: [UInt8] = []
        switch kind {
        case .deletedRoute:
            var edit = ByteWriter(capacity: 70_000)
            edit.u64(1)
            edit.append(contentsOf: invalid)
            records += RecordFrame.encode(type: .metadataEdit, payload: edit.bytes)
            records += RecordFrame.encode(type: .routeDelete, payload: RouteDeleteRecord(id: RouteID(1)).payload())
        case .recordingInProgress, .discardedRecording:
            var start = ByteWriter(capacity: 70_000)
            start.u64(2)
            start.i64(1_700_000_000_000)
            start.append(contentsOf: invalid)
            records += RecordFrame.encode(type: .recordingStart, payload: start.bytes)
            if kind == .discardedRecording {
                var discard = ByteWriter(capacity: 8)
                discard.u64(2)
                records += RecordFrame.encode(type: .recordingDiscard, payload: discard.bytes)
            }
        }
        try Data([UInt8](try Data(contentsOf: segmentURL)) + records).write(to: segmentURL)
        return url
    }

    @Test(arguments: Case.allCases)
    func anIndexWrittenFromDecodedInvalidUTF8OpensAsItIs(_ kind: Case) throws {
        let dir = TemporaryDirectory()
        let url = try Self.store(kind, in: dir)
        for round in 0..<3 {
            let writer = try RouteStore(at: url, options: RouteStore.Options(compaction: .manual))
            // Only the first open finds no index, and makes one.
            #expect(InvalidUTF8IndexTests.indexState(writer) == (round == 0, false), "\(kind) round \(round)")
            #expect(try writer.count == (kind == .deletedRoute ? 0 : 1))
            try writer.close()
            let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
            #expect(InvalidUTF8IndexTests.indexState(reader) == (false, false), "\(kind) round \(round)")
            #expect(try reader.verify().problems.isEmpty, "\(kind) round \(round)")
            try reader.close()
        }
    }

    /// Compaction with every segment rewritten: the records it writes again from the
    /// index's decoded events keep the stored bytes too.
    @Test(arguments: Case.allCases)
    func aCompactedStoreOpensAsItIs(_ kind: Case) throws {
        let dir = TemporaryDirectory()
        let url = try Self.store(kind, in: dir)
        try InvalidUTF8IndexTests.compactEverySegment(url)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(InvalidUTF8IndexTests.indexState(reader) == (false, false), "\(kind)")
        #expect(try reader.verify().problems.isEmpty, "\(kind)")
        #expect(try reader.count == (kind == .deletedRoute ? 0 : 1))
        try reader.close()
    }

    /// The values decoded from invalid text write back the bytes they came from, and
    /// once changed, the values themselves.
    @Test func decodedInvalidTextWritesItsStoredBytesUntilChanged() throws {
        let invalid = RouteTableFarRowTests.largestInvalidUTF8Metadata()
        var r = ByteReader(invalid[...])
        var metadata = try StoredMetadata(from: &r)
        var w = ByteWriter(capacity: 70_000)
        metadata.write(to: &w)
        #expect(w.bytes == invalid)
        metadata.calories = 12
        var changed = ByteWriter(capacity: 200_000)
        metadata.write(to: &changed)
        #expect(changed.bytes != invalid)
        #expect(changed.bytes.count > invalid.count)  // the replacement characters
        // Past the format's limits now (a writer's check refuses to store it), but the
        // same values.
        var again = ByteReader(changed.bytes[...])
        #expect(throws: ByteReader.Malformed.self) { try StoredMetadata(from: &again) }
        #expect(StoredMetadata(MetadataView(checked: changed.bytes[...])) == metadata)
        // Valid text keeps no bytes beside its values: equal values, equal bytes.
        let valid = StoredMetadata(RouteMetadata(name: "Ridge", calories: 5))
        var v = ByteWriter(capacity: 64)
        valid.write(to: &v)
        var back = ByteReader(v.bytes[...])
        #expect(try StoredMetadata(from: &back) == valid)
    }
}
