import Foundation
import Testing
@testable import RouteLog

/// Files of one column written by the Parquet writer and decoded by pyarrow: extreme
/// integers through DELTA_BINARY_PACKED, nulls through definition levels, strings
/// through dictionaries and PLAIN, doubles, and each chunk's statistics.
@Suite(.tags(.externalReader), .enabled(if: PythonReaders.available("pyarrow"), "needs pyarrow in .build/pyenv (make pyenv)"))
struct ParquetEncodingReaderTests {
    /// Prints column `v` of the file in argv[1], every value as text (doubles as their
    /// bit patterns), and the statistics of each row group.
    static let read = #"""
    import sys, json, struct, pyarrow.parquet as pq
    f = pq.ParquetFile(sys.argv[1])
    def text(v):
        if v is None: return None
        if isinstance(v, float): return str(struct.unpack("<q", struct.pack("<d", v))[0])
        if isinstance(v, bytes): return v.hex()
        return str(v)
    values = [text(v) for v in f.read().column("v").to_pylist()]
    stats = []
    for g in range(f.metadata.num_row_groups):
        s = f.metadata.row_group(g).column(0).statistics
        chunk = f.metadata.row_group(g).column(0)
        stats.append({"rows": f.metadata.row_group(g).num_rows, "nulls": s.null_count,
                      "dictionary": chunk.has_dictionary_page, "encodings": list(chunk.encodings),
                      "min": text(s.min) if s.has_min_max else None, "max": text(s.max) if s.has_min_max else None})
    print(json.dumps({"values": values, "stats": stats}))
    """#

    struct Read {
        var values: [String?]
        var stats: [[String: Any]]
    }

    /// Writes `groups` row groups of column `v`, filled by `fill(writer, group)`.
    func roundTrip<W: ColumnChunkWriter>(_ column: ParquetColumn, groups: Int, _ make: () -> W,
                                         _ fill: (W, Int) -> Void) throws -> Read {
        let directory = TemporaryDirectory()
        let path = directory.url.appendingPathComponent("v.parquet").path
        let file = try ParquetFileWriter(path: path, schema: ParquetSchema(fields: [.column(column)]), sortedBy: [])
        let writer = make()
        for group in 0..<groups {
            fill(writer, group)
            try file.writeRowGroup([writer])
        }
        _ = try file.complete(keyValues: [])
        try file.publish()
        let json = try #require(try ParquetFixtures.json(Self.read, [path]) as? [String: Any])
        return Read(values: (json["values"] as? [Any] ?? []).map { $0 as? String },
                    stats: json["stats"] as? [[String: Any]] ?? [])
    }

    static let int64Cases: [[Int64]] = [
        [Int64.min, Int64.max, Int64.min, 0, Int64.max, -1, 1, Int64.max, Int64.max - 1],
        [123_456_789],
        (0..<129).map { Int64($0) * 1_000 - Int64(($0 * 7919) % 1_000) },
        (0..<130).map { 1_700_000_000_000 - Int64($0) * 997 },  // falling: negative deltas
        (0..<257).map { Int64(($0 * 2_654_435_761) % 4_294_967_296) - 2_147_483_648 },
        [Int64](repeating: -5, count: 300),
    ]

    @Test(arguments: int64Cases)
    func int64ValuesSurviveDeltaEncoding(_ values: [Int64]) throws {
        // Pages of 7 values and two row groups: many blocks, pages and fragments.
        let column = ParquetColumn.required("v", .int64)
        let read = try roundTrip(column, groups: 2, { NumericColumnWriter<Int64>(column, codec: .lz4Raw, pageValues: 7) }) { w, _ in
            values.withUnsafeBufferPointer { w.append(contentsOf: $0) }
        }
        #expect(read.values == (values + values).map { String($0) })
        for stats in read.stats {
            #expect(stats["min"] as? String == String(values.min()!) && stats["max"] as? String == String(values.max()!))
            #expect(stats["nulls"] as? Int == 0)
        }
    }

    static let int32Cases: [[Int32]] = [
        [Int32.min, Int32.max, 0, Int32.min, -1, Int32.max],
        [7],
        (0..<129).map { Int32(454_642_000) + Int32($0 % 17) * 13 - Int32($0 % 5) * 31 },
        (0..<1_000).map { Int32(truncatingIfNeeded: $0 * 48_271 % 2_147_483_647) * ($0 % 2 == 0 ? 1 : -1) },
    ]

    @Test(arguments: int32Cases)
    func int32ValuesSurviveDeltaEncoding(_ values: [Int32]) throws {
        let column = ParquetColumn.required("v", .int32)
        let read = try roundTrip(column, groups: 1, { NumericColumnWriter<Int32>(column, codec: .uncompressed, pageValues: 1 << 16) }) { w, _ in
            values.withUnsafeBufferPointer { w.append(contentsOf: $0) }
        }
        #expect(read.values == values.map { String($0) })
        #expect(read.stats.first?["min"] as? String == String(values.min()!))
        #expect(read.stats.first?["max"] as? String == String(values.max()!))
    }

    static let nullPatterns: [[Bool]] = [
        [Bool](repeating: false, count: 300),  // all null
        [Bool](repeating: true, count: 300),
        (0..<301).map { $0 % 2 == 0 },
        (0..<200).map { ($0 / 7) % 2 == 0 } + (0..<200).map { ($0 / 8) % 2 == 0 } + (0..<200).map { ($0 / 9) % 2 == 1 },
        (0..<1_000).map { ($0 * 7_919) % 13 < 6 },
    ]

    @Test(arguments: nullPatterns)
    func nullsSurviveDefinitionLevels(_ present: [Bool]) throws {
        let column = ParquetColumn.optional("v", .int32)
        let values = present.enumerated().map { $1 ? Int32($0 * 3 - 500) : nil }
        // Pages of 100: page breaks fall inside runs and groups.
        let read = try roundTrip(column, groups: 1, { NumericColumnWriter<Int32>(column, codec: .lz4Raw, pageValues: 100) }) { w, _ in
            for value in values { w.append(value) }
        }
        #expect(read.values == values.map { $0.map { String($0) } })
        let stats = try #require(read.stats.first)
        #expect(stats["nulls"] as? Int == present.filter { !$0 }.count)
        #expect(stats["min"] as? String == values.compactMap { $0 }.min().map { String($0) })
    }

    @Test(arguments: [ByteArrayColumnWriter.Encoding.dictionaryWhenSmaller, .plain], [true, false])
    func stringsSurviveDictionaryAndPlainPages(_ encoding: ByteArrayColumnWriter.Encoding, _ repeated: Bool) throws {
        let column = ParquetColumn.string("v")
        // Few distinct names (a dictionary pays) or all different (it does not).
        let names = (0..<700).map { i -> String? in
            i % 5 == 3 ? nil : repeated ? ["walk", "run", "Ünïcødé ✓", "", "ride"][i % 4] : "route \(i) ✓"
        }
        let read = try roundTrip(column, groups: 2, {
            ByteArrayColumnWriter(column, codec: .lz4Raw, encoding: encoding, statisticsBounds: true, pageValues: 256)
        }) { w, _ in
            for name in names { w.append(name.map { Array($0.utf8) }) }
        }
        #expect(read.values == (names + names))
        let dictionary = encoding == .dictionaryWhenSmaller && repeated
        for stats in read.stats {
            #expect(stats["dictionary"] as? Bool == dictionary)
            #expect((stats["encodings"] as? [String])?.contains("RLE_DICTIONARY") == dictionary)
        }
        let present = names.compactMap { $0 }
        for stats in read.stats {
            #expect(stats["nulls"] as? Int == names.count - present.count)
            let byBytes = present.map { Array($0.utf8) }
            #expect(stats["min"] as? String == byBytes.min { $0.lexicographicallyPrecedes($1) }.map { String(decoding: $0, as: UTF8.self) })
            #expect(stats["max"] as? String == byBytes.max { $0.lexicographicallyPrecedes($1) }.map { String(decoding: $0, as: UTF8.self) })
        }
    }

    @Test func uuidsAndNullsSurviveFixedLengthPages() throws {
        let column = ParquetColumn.uuid("v")
        let uuids = (0..<40).map { i -> UUID? in i % 3 == 0 ? nil : UUID() }
        let read = try roundTrip(column, groups: 1, {
            ByteArrayColumnWriter(column, codec: .lz4Raw, encoding: .plain, statisticsBounds: false, pageValues: 16)
        }) { w, _ in
            for uuid in uuids { w.append(uuid.map { id in withUnsafeBytes(of: id.uuid) { Array($0) } }) }
        }
        let hex = uuids.map { $0.map { $0.uuidString.replacingOccurrences(of: "-", with: "").lowercased() } }
        // pyarrow shows a UUID column as its 16 bytes or as a UUID; either prints as hex.
        #expect(read.values.map { $0?.replacingOccurrences(of: "-", with: "").lowercased() } == hex)
    }

    @Test func doublesAndTheirBoundsFollowTheZeroAndNaNRules() throws {
        let column = ParquetColumn.optional("v", .double)
        let values: [Double?] = [-0.0, 0.0, 1.5, .nan, nil, -.infinity, 2.25]
        let read = try roundTrip(column, groups: 1, { NumericColumnWriter<Double>(column, codec: .lz4Raw, pageValues: 3) }) { w, _ in
            for value in values { w.append(value) }
        }
        func bits(_ v: Double) -> String { String(Int64(bitPattern: v.bitPattern)) }
        #expect(read.values == values.map { $0.map(bits) })
        let stats = try #require(read.stats.first)
        #expect(stats["min"] as? String == bits(-.infinity) && stats["max"] as? String == bits(2.25), "NaN is never a bound")
        #expect(stats["nulls"] as? Int == 1)
        // Only zeros: the minimum is written -0.0 and the maximum +0.0.
        let zeros = try roundTrip(column, groups: 1, { NumericColumnWriter<Double>(column, codec: .lz4Raw, pageValues: 3) }) { w, _ in
            for value in [0.0, 0.0] { w.append(value) }
        }
        #expect(zeros.stats.first?["min"] as? String == bits(-0.0) && zeros.stats.first?["max"] as? String == bits(0.0))
    }
}
