import Foundation
import Testing
@testable import RouteLog

/// The Parquet writer's encoders byte for byte, against examples worked from the
/// specifications (Thrift's compact protocol, Parquet's Encodings.md, LZ4's block format).
@Suite struct ParquetEncodingBytesTests {
    // MARK: Thrift compact protocol

    @Test func thriftFieldsCarryTheirIdDistanceAndType() {
        var w = ThriftCompactWriter()
        w.i32(1, 1)          // delta 1, type 5; zigzag(1) = 2
        w.i32(2, -1)         // zigzag(-1) = 1
        w.i64(5, 300)        // delta 3, type 6; zigzag(300) = 600 = 0xD8 0x04
        w.bool(6, true)      // the value is the type: 1
        w.bool(7, false)     // 2
        w.i16(8, 3)          // type 4
        w.string(9, "ab")    // type 8, length, bytes
        w.i32(30, 0)         // a jump of 21: type alone, then the id as a zigzag varint (60)
        w.stop()
        #expect(w.bytes == [0x15, 0x02, 0x15, 0x01, 0x36, 0xD8, 0x04, 0x11, 0x12, 0x14, 0x06,
                            0x18, 0x02, 0x61, 0x62, 0x05, 0x3C, 0x00, 0x00])
    }

    @Test func thriftStructsListsAndDoubles() {
        var w = ThriftCompactWriter()
        w.structure(1) { $0.i32(1, 7) }           // nested ids count from 0 again
        w.i32(2, 1)                               // and the outer one resumes from 1
        w.list(3, i32: [1, 2, 3])                 // size 3, element type 5
        w.list(4, strings: Array(repeating: "", count: 15))  // 15 or more: 0xF8 then the size
        w.double(5, 1.0)                          // 8 bytes, little endian
        w.list(6, structs: 1) { e, _ in e.i64(1, 1) }
        w.stop()
        let expected: [UInt8] = [0x1C, 0x15, 0x0E, 0x00, 0x15, 0x02, 0x19, 0x35, 0x02, 0x04, 0x06,
                                 0x19, 0xF8, 0x0F] + Array(repeating: 0x00, count: 15)
            + [0x17, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x19, 0x1C, 0x16, 0x02, 0x00, 0x00]
        #expect(w.bytes == expected)
    }

    @Test func aTimestampLogicalTypeIsAUnionOfStructs() {
        var w = ThriftCompactWriter()
        ParquetLogicalType.timestampMillisUTC.write(&w)
        w.stop()
        // TIMESTAMP (8) { isAdjustedToUTC (1) = true, unit (2) { MILLIS (1) {} } }
        #expect(w.bytes == [0x8C, 0x11, 0x1C, 0x1C, 0x00, 0x00, 0x00, 0x00])
    }

    // MARK: DELTA_BINARY_PACKED

    @Test func deltaEncodingOfARunOfConsecutiveValues() {
        // Encodings.md, example 1, with the block of 128 values in 4 miniblocks the
        // writer uses: deltas all 1, so the minimum is 1 and every width 0.
        #expect(DeltaBinaryPacked.encode([1, 2, 3, 4, 5] as [Int64]) == [0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0])
    }

    @Test func deltaEncodingOfFallingThenRisingValues() {
        // Encodings.md, example 2: deltas -2 -2 -2 1 1 1 1, minimum -2 (zigzag 3), the
        // rebased 0 0 0 3 3 3 3 in 2 bits each, the miniblock padded to 32 values.
        let bytes = DeltaBinaryPacked.encode([7, 5, 3, 1, 2, 3, 4, 5] as [Int32])
        #expect(bytes == [0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00, 0xC0, 0x3F, 0, 0, 0, 0, 0, 0])
    }

    @Test func deltaEncodingOfOneValueIsTheHeaderAlone() {
        #expect(DeltaBinaryPacked.encode([42] as [Int64]) == [0x80, 0x01, 0x04, 0x01, 0x54])
        #expect(DeltaBinaryPacked.encode([] as [Int64]) == [0x80, 0x01, 0x04, 0x00, 0x00])
    }

    @Test func int32DeltasWrapInThirtyTwoBits() {
        // -2^31 to 2^31-1 is a delta of 2^32-1: it wraps to -1 in 32 bits, so the
        // miniblock needs 0 bits, not 33.
        let bytes = DeltaBinaryPacked.encode([Int32.min, Int32.max] as [Int32])
        #expect(bytes == [0x80, 0x01, 0x04, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x01, 0, 0, 0, 0])
    }

    // MARK: RLE / bit-packing hybrid

    @Test func bitPackingFollowsTheSpecificationsExample() {
        // Encodings.md: 0...7 at width 3 pack to 10001000 11000110 11111010.
        var out: [UInt8] = []
        [0, 1, 2, 3, 4, 5, 6, 7].map(UInt8.init).withUnsafeBufferPointer { RLEHybrid.encode($0, width: 3, into: &out) }
        #expect(out == [0x03, 0x88, 0xC6, 0xFA])
    }

    @Test func definitionLevelsAreRunsOrPackedGroupsAfterTheirLength() {
        var runs: [UInt8] = []
        RLEHybrid.appendDefinitionLevels([UInt8](repeating: 1, count: 100), to: &runs)
        #expect(runs == [3, 0, 0, 0, 0xC8, 0x01, 0x01])  // a run of 100 ones
        var mixed: [UInt8] = []
        RLEHybrid.appendDefinitionLevels([1, 0, 1, 1, 0, 0, 0, 1], to: &mixed)
        #expect(mixed == [2, 0, 0, 0, 0x03, 0x8D])  // one group of 8, least significant bit first
        var both: [UInt8] = []
        RLEHybrid.appendDefinitionLevels([1, 0, 1] + [UInt8](repeating: 0, count: 13) + [1], to: &both)
        // 8 packed (1,0,1,0,0,0,0,0), a run of 8 zeros, then 1 value packed and padded.
        #expect(both == [6, 0, 0, 0, 0x03, 0x05, 0x10, 0x00, 0x03, 0x01])
    }

    // MARK: LZ4_RAW pages

    @Test(arguments: [0, 1, 14, 15, 16, 269, 270, 300, 5000])
    func aLiteralBlockDecodesToItsBytes(_ count: Int) throws {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
        let block = PageCompression.literalBlock(bytes)
        if count == 0 {
            #expect(block == [0x00])
        } else {
            #expect(LZ4Block.decompress(block[...], rawLength: count) == bytes)
        }
        // Through the codec: the store's LZ4 door, or the literal block when LZ4 cannot shrink.
        let page = PageCompression.compress(bytes, codec: .lz4Raw)
        if count > 0 { #expect(LZ4Block.decompress(page[...], rawLength: count) == bytes) }
    }

    // MARK: Statistics and layout

    @Test func statisticsMergeInTheColumnsOrder() {
        func stats(_ min: [UInt8], _ max: [UInt8], nulls: Int64) -> ParquetStatistics {
            ParquetStatistics(min: min, max: max, nullCount: nulls)
        }
        let a = stats(Int32(-5).plainBytes, Int32(3).plainBytes, nulls: 1)
        let b = stats(Int32(-7).plainBytes, Int32(-1).plainBytes, nulls: 2)
        let merged = ParquetStatistics.merge(a, b, type: .int32)
        #expect(merged?.min == Int32(-7).plainBytes && merged?.max == Int32(3).plainBytes && merged?.nullCount == 3)
        // Bytewise, unsigned: "é" (0xC3 0xA9) sorts after "z".
        let s = ParquetStatistics.merge(stats(Array("a".utf8), Array("z".utf8), nulls: 0),
                                        stats(Array("é".utf8), Array("é".utf8), nulls: 0), type: .byteArray)
        #expect(s?.min == Array("a".utf8) && s?.max == Array("é".utf8))
        // Zero bounds: -0.0 stays the minimum, +0.0 the maximum.
        let z = ParquetStatistics.merge(stats((-0.0).plainBytes, 0.0.plainBytes, nulls: 0),
                                        stats(0.0.plainBytes, 0.0.plainBytes, nulls: 0), type: .double)
        #expect(z?.min == (-0.0).plainBytes && z?.max == 0.0.plainBytes)
        #expect(ParquetStatistics.merge(a, nil, type: .int32) == nil, "an unknown null count stays unknown")
    }

    @Test func batchesHoldAPageOfPointsOrAThousandRoutes() {
        func summary(_ id: UInt64, _ points: Int) -> RouteSummary {
            let c = Coordinate(latitude: 0, longitude: 0)
            return RouteSummary(id: RouteID(id), startDate: Date(timeIntervalSince1970: 0), duration: 0, distance: 0,
                                calories: 0, pointCount: points, boundingBox: BoundingBox(southWest: c, northEast: c),
                                startCoordinate: c, endCoordinate: c, name: nil)
        }
        let big = (1...5).map { summary($0, 30_000) }
        #expect(ExportPipeline.batches(big) == [0..<3, 3..<5])
        let small = (1...2_500).map { summary(UInt64($0), 1) }
        #expect(ExportPipeline.batches(small) == [0..<1_024, 1_024..<2_048, 2_048..<2_500])
        #expect(ExportPipeline.batches([]) == [])
    }

    @Test func monthsAreNamedInUTC() {
        #expect(ParquetExporter.month(of: Date(timeIntervalSince1970: 1_767_225_599)) == "2025-12")  // 23:59:59 UTC
        #expect(ParquetExporter.month(of: Date(timeIntervalSince1970: 1_767_225_600)) == "2026-01")
        #expect(ParquetExporter.month(of: Date(timeIntervalSince1970: 0)) == "1970-01")
    }
}
