import Foundation
import Testing
@testable import RouteLog

/// The packed route table against a plain dictionary of the same routes: every lookup,
/// listing and summary agrees after thousands of seeded inserts, replacements (with
/// and without an edit or a recording), removals, and the repacking of its metadata
/// bytes; locations and shapes past what a row packs among them, and time shifts of
/// zero (which the table keeps as a flag) beside others.
@Suite struct RouteTableTests {
    @Test func aRowTakes80Bytes() {
        #expect(RouteTable.rowStride == 80)
    }

    /// Metadata with every kind of field, sized by `notes` (large notes make dead bytes
    /// pile up fast enough to repack).
    /// Gives route `id` new metadata and an edit's location in `reference` and `table`
    /// alike; nothing when the reference does not hold it.
    static func editAlike(_ id: RouteID, _ table: inout RouteTable, _ reference: inout [RouteID: IndexedRoute],
                          _ g: inout SeededGenerator, notes: Int) {
        guard var route = reference[id] else { return }
        route.edited(metadata(&g, notes: notes), at: RecordLocation(segment: 3, offset: 77, length: 40))
        table.updateValue(route, forKey: id)
        reference[id] = route
    }

    static func metadata(_ g: inout SeededGenerator, notes: Int) -> StoredMetadata {
        var m = StoredMetadata(RouteMetadata(name: Bool.random(using: &g) ? "Route \(g.next() % 1000) é" : nil,
                                             calories: Bool.random(using: &g) ? Double(g.next() % 2000) : nil,
                                             distance: Bool.random(using: &g) ? Double(g.next() % 50_000) / 3 : nil,
                                             activity: [ActivityKind.walk, .ride, .custom("kayak"), nil][Int(g.next() % 4)],
                                             notes: notes > 0 ? String(repeating: "n", count: notes) : nil,
                                             tags: (0..<Int(g.next() % 3)).map { "tag\($0)" },
                                             values: g.next() % 2 == 0 ? ["k": "v", "key2": "value"] : [:],
                                             uuid: g.next() % 2 == 0 ? UUID() : nil),
                           shiftMs: g.next() % 2 == 0 ? 0 : Int64(g.next() % 100_000) - 50_000)
        if g.next() % 2 == 0 {
            m.derived.stats = RouteStats(movingTime: Double(g.next() % 1000), maxSpeed: 3.5)
            let latitudes: [Int64] = [100_000_000, 101_000_000], longitudes: [Int64] = [200_000_000, 200_500_000]
            m.derived.cells = latitudes.withUnsafeBufferPointer { lat in
                longitudes.withUnsafeBufferPointer { GridCells(latitudes: lat, longitudes: $0) }
            }
            m.derived.preview = RoutePreview(coordinates: [Coordinate(latitude: 1, longitude: 2), Coordinate(latitude: 1.5, longitude: 2.5)],
                                             tolerance: 2)
        }
        if g.next() % 5 == 0 { m.unknownFields = [99, 2, 7, 7] }
        // What the index holds is what its bytes read back as.
        var w = ByteWriter(capacity: 256)
        m.write(to: &w)
        var r = ByteReader(w.bytes)
        return try! StoredMetadata(from: &r)
    }

    static func route(_ g: inout SeededGenerator, notes: Int) -> IndexedRoute {
        var location = RecordLocation(segment: UInt32(g.next() % 4 + 1), offset: Int64(g.next() % 1_000_000) + 20,
                                      length: Int(g.next() % 5000) + 16)
        // Now and then a location past what a row packs (segment 2^24, offset 2^40),
        // or right at its edge: the table keeps those beside the row.
        switch g.next() % 16 {
        case 0: location.segment = 1 << 24 + UInt32(g.next() % 3)
        case 1: location.offset = 1 << 40 + Int64(g.next() % 3)
        case 2: location.segment = 1 << 24 - 1; location.offset = 1 << 40 - 1
        case 3: location.segment = .max; location.offset = 1 << 62 - 1
        default: break
        }
        var shape = RouteShape(points: Fixtures.sampleWalk(seed: g.next() % 50 + 1, points: 3).points, segmentStarts: [])
        // Now and then a shape or length past what a row packs (2^21 points, 2^37 ms,
        // a first time of 2^43 ms, a record of 2^27 bytes), or right at its edge.
        switch g.next() % 16 {
        case 0: shape.pointCount = 1 << 21 + UInt32(g.next() % 3)
        case 1: shape.durationMs = 1 << 37 + Int64(g.next() % 3)
        case 2: shape.firstMs = 1 << 43 - Int64(g.next() % 2); shape.durationMs = 0
        case 3: location.length = 1 << 27 + Int(g.next() % 3)
        case 4: shape.pointCount = 1 << 21 - 1; shape.durationMs = 1 << 37 - 1; location.length = 1 << 27 - 1
        case 5: shape.pointCount = .max; shape.distance = .greatestFiniteMagnitude
        default: break
        }
        let metadata = metadata(&g, notes: notes)
        var route = IndexedRoute(shape: shape, metadata: metadata, location: location)
        switch g.next() % 6 {
        case 0: route.editLocation = RecordLocation(segment: 2, offset: Int64(g.next() % 9999) + 20, length: 100)
        case 1: route.recorded = IndexedRecording(start: location, startedMs: 5, metadata: metadata,
                                                  chunks: [RecordedChunk(location: location, firstPoint: 0, pointCount: 3)])
        default: break
        }
        return route
    }

    static func expectSame(_ table: RouteTable, _ reference: [RouteID: IndexedRoute]) {
        #expect(table.count == reference.count)
        #expect(Set(table.ids) == Set(reference.keys))
        var seen = 0
        for (id, route) in table {
            #expect(reference[id] == route)
            seen += 1
        }
        #expect(seen == reference.count)
        for (id, route) in reference {
            #expect(table[id] == route)
            #expect(table.contains(id))
            #expect(table.shape(id) == route.shape)
            #expect(table.location(id) == route.location)
            #expect(table.summary(id) == route.summary(id))
        }
        #expect(Set(table.starts.map { "\($0.id):\($0.start)" })
                == Set(reference.map { "\($0.key):\($0.value.shape.firstMs + $0.value.metadata.shiftMs)" }))
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func agreesWithADictionaryThroughSeededChanges(_ seed: UInt64) {
        var g = SeededGenerator(state: seed)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        for step in 0..<3000 {
            let id = RouteID(g.next() % 300 + 1)
            // Large notes now and then, so that replaced metadata piles up and is repacked.
            let notes = g.next() % 8 == 0 ? 3000 : 0
            switch g.next() % 4 {
            case 0, 1:
                let route = Self.route(&g, notes: notes)
                #expect(table.updateValue(route, forKey: id) == reference.updateValue(route, forKey: id))
            case 2:
                #expect(table.removeValue(forKey: id) == reference.removeValue(forKey: id))
            default:
                Self.editAlike(id, &table, &reference, &g, notes: notes)
            }
            if step % 500 == 0 { Self.expectSame(table, reference) }
        }
        Self.expectSame(table, reference)
    }

    @Test func aNewRouteFromAnIndexRecordKeepsItsBytesAndRefusesAStoredID() throws {
        var g = SeededGenerator(state: 9)
        let route = Self.route(&g, notes: 10)
        var w = ByteWriter(capacity: 256)
        route.metadata.write(to: &w)
        var table = RouteTable()
        let inserted = w.bytes.withUnsafeBytes {
            table.insertIfNew(RouteID(5), location: route.location, shape: route.shape, encodedMetadata: $0)
        }
        #expect(inserted)
        #expect(table[RouteID(5)] == IndexedRoute(shape: route.shape, metadata: route.metadata, location: route.location))
        let other = Self.route(&g, notes: 0)
        var otherBytes = ByteWriter(capacity: 64)
        other.metadata.write(to: &otherBytes)
        let again = otherBytes.bytes.withUnsafeBytes {
            table.insertIfNew(RouteID(5), location: other.location, shape: other.shape, encodedMetadata: $0)
        }
        #expect(!again)
        #expect(table[RouteID(5)]?.metadata == route.metadata)
        #expect(table.count == 1)
    }

    @Test func removingEveryRouteLeavesAnEmptyTableThatStillWorks() {
        var g = SeededGenerator(state: 4)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        for i in 1...50 {
            let route = Self.route(&g, notes: 100)
            table.updateValue(route, forKey: RouteID(UInt64(i)))
            reference[RouteID(UInt64(i))] = route
        }
        for i in 1...50 { table.removeValue(forKey: RouteID(UInt64(i))) }
        #expect(table.isEmpty)
        #expect(table[RouteID(1)] == nil)
        let route = Self.route(&g, notes: 0)
        table.updateValue(route, forKey: RouteID(7))
        Self.expectSame(table, [RouteID(7): route])
    }
}
