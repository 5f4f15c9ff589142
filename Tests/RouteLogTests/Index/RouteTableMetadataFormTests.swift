import Foundation
import Testing
@testable import RouteLog

/// The index keeps a route's metadata as stored less a zero time shift, a flag of its
/// in-memory form standing for it (``RouteTable/MetadataForm``). The stored bytes come
/// back exactly, both forms read as the same metadata, and no stored metadata may carry
/// the flag: a file that does is refused as damaged, never read as a zero shift.
@Suite struct RouteTableMetadataFormTests {
    static func stored(_ metadata: StoredMetadata) -> [UInt8] {
        var w = ByteWriter(capacity: 256)
        metadata.write(to: &w)
        return w.bytes
    }

    static func form(_ stored: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0xEE]  // something before, as in the table's shared array
        stored.withUnsafeBytes { RouteTable.MetadataForm.append(stored: $0, to: &bytes) }
        return Array(bytes.dropFirst())
    }

    @Test func storedBytesComeBackExactlyAndReadAsTheSameMetadata() {
        var g = SeededGenerator(state: 21)
        var zeroShifts = 0
        for _ in 0..<400 {
            let metadata = RouteTableTests.metadata(&g, notes: Int(g.next() % 3) * 50)
            let bytes = Self.stored(metadata)
            let form = Self.form(bytes)
            if metadata.shiftMs == 0 {
                zeroShifts += 1
                #expect(form.count == bytes.count - 8)
                #expect(form[0] == bytes[0] | MetadataLayout.zeroShiftLeftOut)
            } else {
                #expect(form == bytes)
            }
            #expect(Array(RouteTable.MetadataForm.stored(form[...])) == bytes)
            #expect(StoredMetadata(MetadataView(checked: form[...])) == metadata)
            #expect(MetadataView(checked: form[...]).shiftMs == metadata.shiftMs)
            form.withUnsafeBytes { #expect(RouteTable.MetadataForm.shiftMs($0, at: 0) == metadata.shiftMs) }
        }
        #expect(zeroShifts > 100 && zeroShifts < 300)
    }

    /// Every shift at the edges of what a row's start adds up: the form keeps any
    /// non-zero shift's 8 bytes, and a start read from the table is first time plus shift.
    @Test func aTableAgreesOnStartsForShiftsAtTheEdges() {
        var g = SeededGenerator(state: 22)
        var table = RouteTable()
        let latest = FormatConstants.latestTimestampMs
        let shifts: [Int64] = [0, 1, -1, 256, -256, latest, -latest, 1 << 32, Int64(Int32.min)]
        var expected: [String] = []
        for (i, shift) in shifts.enumerated() {
            var route = RouteTableTests.route(&g, notes: 0)
            route.metadata.shiftMs = shift
            let id = RouteID(UInt64(i + 1))
            table.updateValue(route, forKey: id)
            expected.append("\(id):\(route.shape.firstMs + shift)")
            #expect(table.storedMetadata(id).map(Array.init) == Self.stored(route.metadata))
            #expect(table[id]?.metadata.shiftMs == shift)
        }
        #expect(table.starts.map { "\($0.id):\($0.start)" }.sorted() == expected.sorted())
    }

    /// The flag belongs to the in-memory form only: stored metadata with it is refused,
    /// in a segment record's checks and an index run's alike.
    @Test func storedMetadataCarryingTheFlagIsRefused() throws {
        var metadata = StoredMetadata(RouteMetadata(name: "Lake loop", calories: 300))
        metadata.shiftMs = 0
        let form = Self.form(Self.stored(metadata))
        #expect(form[0] & MetadataLayout.zeroShiftLeftOut != 0)
        var r = ByteReader(form[...])
        #expect(throws: ByteReader.Malformed.self) { try MetadataView(from: &r) }
        var layoutReader = ByteReader(form[...])
        #expect(throws: ByteReader.Malformed.self) { try MetadataView(layoutOf: &layoutReader) }
        let inMemory = try form.withUnsafeBytes { raw in
            #expect(throws: ByteReader.Malformed.self) { try MetadataLayout(raw, limits: true) }
            return try MetadataLayout(raw, limits: false)
        }
        #expect(inMemory.shiftMs == 0 && inMemory.length == form.count)
        // The same metadata with the flag in every other unknown bit is refused either way.
        for bit in 4..<7 {
            var other = Self.stored(metadata)
            other[0] |= 1 << UInt8(bit)
            other.withUnsafeBytes { raw -> Void in
                #expect(throws: ByteReader.Malformed.self) { try MetadataLayout(raw, limits: false) }
            }
        }
    }

    /// A store whose routes are moved in time and back (an edit that sets the shift to
    /// zero again) and renamed: closed, its index written again from the table, it opens
    /// as it is and every start agrees with a fresh read of the segments.
    @Test func anIndexWrittenFromTheTableOpensAsItIs() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .init(compaction: .manual))
        var ids: [RouteID] = []
        for seed in 1...40 { ids.append(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 20))) }
        for (i, id) in ids.enumerated() where i % 3 != 0 {
            var edit = RouteEdit()
            edit.shift = i % 3 == 1 ? 3600 : -86_400
            _ = try writer.edit(id, edit)
            if i % 2 == 0 {
                var back = RouteEdit()
                back.shift = -(edit.shift ?? 0)  // the shift is zero again
                back.name = "Back \(i)"
                _ = try writer.edit(id, back)
            }
        }
        let before = try writer.summaries()
        try writer.close()
        try InvalidUTF8IndexTests.expectReopenedFromItsIndex(url, listing: before)
        // The segments alone give the same starts.
        #expect(try removeIndexFiles(of: url) == 1)
        let rebuilt = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try rebuilt.summaries() == before)
        try rebuilt.close()
    }
}
