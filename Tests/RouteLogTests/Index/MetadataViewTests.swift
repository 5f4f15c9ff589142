import Foundation
import Testing
@testable import RouteLog

/// The metadata view checks what decoding checked, allocating nothing: derived fields
/// checked without being kept are refused exactly when reading them is, on every
/// truncation and bit flip of real values; whatever a view accepts decodes, encodes and
/// reads back the same; a summary made from the fields a listing decodes equals one
/// made from all of them.
@Suite struct MetadataViewTests {
    /// The stored metadata of a saved walk (stats, cells and preview included).
    static func savedMetadata(seed: UInt64) throws -> StoredMetadata {
        var route = Fixtures.sampleWalk(seed: seed, points: 600)
        route.metadata = RouteMetadata(name: "Morning walk", calories: 120, activity: .custom("nordic"), notes: "windy",
                                       tags: ["a", "b"], values: ["shoes": "red"], uuid: UUID())
        return try EncodedRoute(route).record.metadata
    }

    static func encoded(_ metadata: StoredMetadata) -> [UInt8] {
        var w = ByteWriter(capacity: 512)
        metadata.write(to: &w)
        return w.bytes
    }

    /// Every cut of `bytes` short of its end, and every single bit flipped.
    static func damaged(_ bytes: [UInt8]) -> [[UInt8]] {
        var variants: [[UInt8]] = (0..<bytes.count).map { Array(bytes.prefix($0)) }
        for i in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[i] ^= UInt8(1 << bit)
                variants.append(flipped)
            }
        }
        return variants
    }

    @Test func derivedFieldsAreCheckedExactlyAsTheyAreRead() throws {
        let metadata = try Self.savedMetadata(seed: 3)
        var values: [(FormatConstants.MetadataField, [UInt8])] = []
        metadata.derived.write { values.append(($0, $1)) }
        #expect(values.count == 3)
        for (tag, value) in values {
            for bytes in Self.damaged(value) + [value] {
                var read = DerivedFields()
                let readError = (try? read.read(tag, bytes[...])) == nil
                let checkError = (try? DerivedFields.check(tag, bytes[...])) == nil
                #expect(readError == checkError, "\(tag) \(bytes)")
            }
        }
    }

    @Test func whateverAViewAcceptsReadsBackTheSame() throws {
        let bytes = Self.encoded(try Self.savedMetadata(seed: 5))
        var accepted = 0
        let variants = Self.damaged(bytes)
        for variant in variants {
            var r = ByteReader(variant)
            guard let view = try? MetadataView(from: &r) else { continue }
            accepted += 1
            let metadata = StoredMetadata(view)
            var again = ByteReader(Self.encoded(metadata))
            #expect(try StoredMetadata(from: &again) == metadata)
            // A view of checked bytes reads them the same without checking again.
            #expect(StoredMetadata(MetadataView(checked: variant[0..<r.position])) == metadata)
        }
        // Flips inside names, notes and numbers are still metadata: the test saw some.
        #expect(accepted > 50)
        #expect(accepted < variants.count)
    }

    @Test func aListingsSummaryEqualsTheWholeMetadatasSummary() throws {
        for seed in UInt64(1)...5 {
            let metadata = try Self.savedMetadata(seed: seed)
            let bytes = Self.encoded(metadata)
            let shape = RouteShape(points: Fixtures.sampleWalk(seed: seed, points: 10).points, segmentStarts: [])
            let summaryOnly = StoredMetadata(MetadataView(checked: bytes[...]), summaryOnly: true)
            #expect(shape.summary(id: RouteID(seed), metadata: summaryOnly) == shape.summary(id: RouteID(seed), metadata: metadata))
            #expect(summaryOnly.notes == nil && summaryOnly.values.isEmpty && summaryOnly.derived.cells == nil)
        }
    }

    @Test func anIndexPutReadsAsItsEventDoes() throws {
        let metadata = try Self.savedMetadata(seed: 8)
        let shape = RouteShape(points: Fixtures.sampleWalk(seed: 8, points: 10).points, segmentStarts: [])
        let location = RecordLocation(segment: 3, offset: 4096, length: 900)
        let record = LogEvent.put(RouteID(42), shape, metadata, location).indexRecord()
        let put = try LogEvent.indexedPut(payload: record.payload[...])
        #expect(put.id == RouteID(42) && put.location == location && put.shape == shape)
        #expect(StoredMetadata(put.metadata) == metadata)
        #expect(Array(put.encodedMetadata) == Self.encoded(metadata))
        // Trailing bytes are refused as the event's reading refuses them.
        #expect(throws: ByteReader.Malformed.self) { try LogEvent.indexedPut(payload: (record.payload + [0])[...]) }
        #expect(throws: ByteReader.Malformed.self) { try LogEvent.fromIndex(type: record.type.rawValue, payload: (record.payload + [0])[...]) }
    }
}
