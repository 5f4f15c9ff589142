import Foundation
import Testing
@testable import RouteLog

/// Attacks on the packed row of ``RouteTable``: locations past what the row's packed
/// word holds (segment 2^24, offset 2^40, a negative offset), kept beside the row, go
/// through every change a table makes (a far row replaced by a near one and back, with
/// and without an edit or a recording; the last row moved into a removed one's hole;
/// a new route from an index record; the metadata repacked; a copy changed), and
/// metadata at the largest size a row counts. After each, every read agrees with a
/// plain dictionary, and the table keeps beside its rows exactly what their routes need.
@Suite struct RouteTableFarRowTests {
    /// Locations at and past the packed word's edges: the last that fits, and one past
    /// each limit (``RouteTableTests`` draws them at random; here each is named).
    static let locations: [RecordLocation] = [
        RecordLocation(segment: 3, offset: 120, length: 40),
        RecordLocation(segment: 1 << 24 - 1, offset: 1 << 40 - 1, length: 64 << 20),
        RecordLocation(segment: 1 << 24 + 1, offset: 120, length: 40),
        RecordLocation(segment: 2, offset: 1 << 40 + 5, length: 40),
        RecordLocation(segment: .max, offset: 1 << 62 - 1, length: 16),
        RecordLocation(segment: 0, offset: 0, length: 16),
        RecordLocation(segment: 4, offset: -1, length: 16),  // no reader makes one; far all the same
        RecordLocation(segment: 3, offset: 120, length: 1 << 27),  // longer than the packed length holds
    ]

    static func isFar(_ location: RecordLocation) -> Bool {
        location.segment >= 1 << 24 || location.offset < 0 || location.offset >= 1 << 40
            || location.length < 0 || location.length >= 1 << 27
    }

    /// True when `route`'s location or shape is past what a row packs: the table keeps
    /// both beside the row.
    static func isWide(_ route: IndexedRoute) -> Bool {
        let shape = route.shape
        return isFar(route.location) || shape.pointCount >= 1 << 21 || shape.durationMs < 0 || shape.durationMs >= 1 << 37
            || shape.firstMs < 0 || shape.firstMs >= 1 << 43
    }

    /// What a route keeps beside its row: an edit, a recording, a wide location or shape.
    static func needsExtras(_ route: IndexedRoute) -> Bool {
        route.editLocation != nil || route.recorded != nil || isWide(route)
    }

    /// A route at `location`: with `extras` 1 an edit, 2 a recording's records, 3 both.
    static func route(_ g: inout SeededGenerator, at location: RecordLocation, extras: Int, notes: Int = 0) -> IndexedRoute {
        var route = RouteTableTests.route(&g, notes: notes)
        route.location = location
        route.editLocation = extras & 1 != 0 ? RecordLocation(segment: 1 << 24 + 7, offset: 1 << 41, length: 50) : nil
        route.recorded = extras & 2 != 0
            ? IndexedRecording(start: RecordLocation(segment: 2, offset: 20, length: 30), startedMs: 5, metadata: route.metadata,
                               chunks: [RecordedChunk(location: location, firstPoint: 0, pointCount: 3)])
            : nil
        return route
    }

    /// Every read of `table` agrees with `reference`, the ones ``RouteTableTests/expectSame``
    /// skips included (edit locations, the location walk, recordings, the first id by
    /// location), and only routes that need them have extras.
    static func expectSame(_ table: RouteTable, _ reference: [RouteID: IndexedRoute],
                           sourceLocation: SourceLocation = #_sourceLocation) {
        RouteTableTests.expectSame(table, reference)
        for (id, route) in reference {
            let both = table.locations(id)
            #expect(both?.location == route.location, "route \(id)", sourceLocation: sourceLocation)
            #expect(both?.edit == route.editLocation, "route \(id)", sourceLocation: sourceLocation)
            #expect(table.storedMetadata(id).map { StoredMetadata(MetadataView(checked: $0)) } == route.metadata,
                    sourceLocation: sourceLocation)
            let found = table.firstID { $0 == route.location }
            #expect(found.flatMap { reference[$0]?.location } == route.location, sourceLocation: sourceLocation)
        }
        var walked: [String] = []
        table.forEachLocation { location, edit, recorded in walked.append("\(location) \(String(describing: edit)) \(recorded != nil)") }
        let expected = reference.values.map { "\($0.location) \(String(describing: $0.editLocation)) \($0.recorded != nil)" }
        #expect(walked.sorted() == expected.sorted(), sourceLocation: sourceLocation)
        #expect(Set(table.recordedRoutes.map(\.id)) == Set(reference.filter { $0.value.recorded != nil }.keys),
                sourceLocation: sourceLocation)
        #expect(table.extrasCount == reference.values.filter(needsExtras).count, "extras left beside no row",
                sourceLocation: sourceLocation)
    }

    /// Every location replaced by every other, each side with no extras, an edit, a
    /// recording or both: a far row that becomes near (and loses its edit) drops what
    /// it kept beside it, a near one that becomes far gains it, and the edit or
    /// recording stays readable through both.
    @Test func everyReplacementOfAFarOrNearRowKeepsItsExtrasRight() {
        var g = SeededGenerator(state: 11)
        for from in Self.locations {
            for to in Self.locations {
                for fromExtras in 0..<4 {
                    for toExtras in 0..<4 {
                        var table = RouteTable()
                        var reference: [RouteID: IndexedRoute] = [:]
                        // Neighbours on both sides, so a wrong row or extras entry shows.
                        for (i, id) in [RouteID(1), RouteID(3)].enumerated() {
                            let neighbour = Self.route(&g, at: Self.locations[(i * 3 + 2) % Self.locations.count], extras: i)
                            table.updateValue(neighbour, forKey: id)
                            reference[id] = neighbour
                        }
                        let first = Self.route(&g, at: from, extras: fromExtras)
                        #expect(table.updateValue(first, forKey: RouteID(2)) == nil)
                        reference[RouteID(2)] = first
                        Self.expectSame(table, reference)
                        let second = Self.route(&g, at: to, extras: toExtras)
                        #expect(table.updateValue(second, forKey: RouteID(2)) == first)
                        reference[RouteID(2)] = second
                        Self.expectSame(table, reference)
                        // And back again.
                        #expect(table.updateValue(first, forKey: RouteID(2)) == second)
                        reference[RouteID(2)] = first
                        Self.expectSame(table, reference)
                        #expect(table.removeValue(forKey: RouteID(2)) == first)
                        reference[RouteID(2)] = nil
                        Self.expectSame(table, reference)
                    }
                }
            }
        }
    }

    /// Removing a route moves the last row into its hole: a far last row keeps its
    /// location (kept by id beside the row), and the removed route's extras go.
    @Test func theLastRowMovedIntoAHoleKeepsItsFarLocation() {
        var g = SeededGenerator(state: 12)
        for (i, removedLocation) in Self.locations.enumerated() {
            for lastLocation in Self.locations {
                var table = RouteTable()
                var reference: [RouteID: IndexedRoute] = [:]
                for id in 1...5 {
                    let location = id == 2 ? removedLocation : id == 5 ? lastLocation : Self.locations[(id + i) % Self.locations.count]
                    let route = Self.route(&g, at: location, extras: id % 4)
                    table.updateValue(route, forKey: RouteID(UInt64(id)))
                    reference[RouteID(UInt64(id))] = route
                }
                #expect(table.removeValue(forKey: RouteID(2)) == reference.removeValue(forKey: RouteID(2)))
                Self.expectSame(table, reference)
                // The moved row changed again, then removed: nothing of it is left.
                let moved = Self.route(&g, at: removedLocation, extras: 0)
                #expect(table.updateValue(moved, forKey: RouteID(5)) == reference.updateValue(moved, forKey: RouteID(5)))
                Self.expectSame(table, reference)
                #expect(table.removeValue(forKey: RouteID(5)) == reference.removeValue(forKey: RouteID(5)))
                Self.expectSame(table, reference)
            }
        }
    }

    /// Routes from index records (``RouteTable/insertIfNew``, an open's path) at far
    /// locations: read back at those locations; a second insert of a far id changes
    /// nothing; an edit and a replacement by a near route afterwards work as for any.
    @Test func aNewFarRouteFromAnIndexRecordWorksLikeAnyOther() throws {
        var g = SeededGenerator(state: 13)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        for (i, location) in Self.locations.enumerated() {
            let id = RouteID(UInt64(i + 1))
            var route = Self.route(&g, at: location, extras: 0)
            var w = ByteWriter(capacity: 256)
            route.metadata.write(to: &w)
            #expect(w.bytes.withUnsafeBytes { table.insertIfNew(id, location: location, shape: route.shape, encodedMetadata: $0) })
            // What the bytes read back as (an unknown field's order may differ).
            route.metadata = StoredMetadata(MetadataView(checked: w.bytes[...]))
            reference[id] = route
            let again = Self.route(&g, at: Self.locations[0], extras: 0)
            #expect(!w.bytes.withUnsafeBytes { table.insertIfNew(id, location: again.location, shape: again.shape, encodedMetadata: $0) })
        }
        Self.expectSame(table, reference)
        for (id, route) in reference.sorted(by: { $0.key < $1.key }) {
            var edited = route
            edited.edited(RouteTableTests.metadata(&g, notes: 5), at: RecordLocation(segment: 9, offset: 1 << 45, length: 30))
            table.updateValue(edited, forKey: id)
            reference[id] = edited
            Self.expectSame(table, reference)
        }
        for id in reference.keys.sorted() where id.rawValue % 2 == 0 {
            let near = Self.route(&g, at: Self.locations[0], extras: 0)
            #expect(table.updateValue(near, forKey: id) == reference.updateValue(near, forKey: id))
        }
        Self.expectSame(table, reference)
        for id in reference.keys.sorted() where id.rawValue % 3 == 0 {
            #expect(table.removeValue(forKey: id) == reference.removeValue(forKey: id))
        }
        Self.expectSame(table, reference)
    }

    /// Replacements with large notes pile up dead metadata until the table repacks it
    /// (every row's start rewritten in place): far rows keep their location and their
    /// flags, and every route its metadata.
    @Test func repackingTheMetadataKeepsFarRowsWhole() {
        var g = SeededGenerator(state: 14)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        for round in 0..<40 {
            for i in 0..<Self.locations.count {
                let id = RouteID(UInt64(i + 1))
                let route = Self.route(&g, at: Self.locations[(i + round) % Self.locations.count], extras: (i + round) % 4, notes: 4000)
                table.updateValue(route, forKey: id)
                reference[id] = route
            }
            Self.expectSame(table, reference)
        }
    }

    /// A copy of a table (a snapshot for a reader, verify or compaction) keeps its far
    /// locations and extras while the original's change: far made near, near made far,
    /// removed, repacked.
    @Test func aSnapshotKeepsItsFarRowsWhileTheTableChanges() {
        var g = SeededGenerator(state: 15)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        for (i, location) in Self.locations.enumerated() {
            let route = Self.route(&g, at: location, extras: i % 4, notes: 2000)
            table.updateValue(route, forKey: RouteID(UInt64(i + 1)))
            reference[RouteID(UInt64(i + 1))] = route
        }
        let snapshot = table, snapshotReference = reference
        for (i, id) in reference.keys.sorted().enumerated() {
            switch i % 3 {
            case 0: reference[id] = nil; table.removeValue(forKey: id)
            default:
                let route = Self.route(&g, at: Self.locations[(i + 2) % Self.locations.count], extras: 3 - i % 4, notes: 4000)
                table.updateValue(route, forKey: id)
                reference[id] = route
            }
        }
        Self.expectSame(table, reference)
        Self.expectSame(snapshot, snapshotReference)
    }

    // MARK: Metadata at the row's limit

    /// The largest metadata every rule of the format accepts (a 1 KiB name, a custom
    /// activity, 4 KiB of notes, 32 tags, 32 values of 1 KiB, an unknown field filling
    /// the 64 KiB extension), every text of it invalid UTF-8.
    static func largestInvalidUTF8Metadata() -> [UInt8] {
        typealias Flag = FormatConstants.MetadataFlag
        typealias Field = FormatConstants.MetadataField
        let invalid: (Int) -> [UInt8] = { [UInt8](repeating: 0xFF, count: $0) }
        var fields = ByteWriter(capacity: FormatConstants.maxExtensionBytes)
        func field(_ tag: UInt64, _ value: [UInt8]) {
            fields.varint(tag)
            fields.varint(value.count)
            fields.append(contentsOf: value)
        }
        field(Field.activity.rawValue, [FormatConstants.ActivityCode.custom.rawValue] + invalid(FormatConstants.maxActivityNameBytes))
        field(Field.notes.rawValue, invalid(FormatConstants.maxNotesBytes))
        for _ in 0..<FormatConstants.maxTags { field(Field.tag.rawValue, invalid(FormatConstants.maxTagBytes)) }
        for i in 0..<FormatConstants.maxValues {
            // Keys distinct once decoded: a letter, then invalid bytes.
            let key = [UInt8(0x41 + i)] + invalid(FormatConstants.maxValueKeyBytes - 1)
            field(Field.value.rawValue, [UInt8(key.count)] + key + invalid(FormatConstants.maxValueBytes))
        }
        // An unknown field (kept as bytes) fills the extension to its limit.
        let left = FormatConstants.maxExtensionBytes - fields.count - 4
        field(99, [UInt8](repeating: 0x20, count: left))
        var w = ByteWriter(capacity: fields.count + 2000)
        w.u8(Flag.name | Flag.calories | Flag.distance | Flag.extensionFields)
        w.i64(FormatConstants.latestTimestampMs)
        w.f64(1e300)
        w.f64(1e300)
        w.u16(UInt16(FormatConstants.maxNameBytes))
        w.append(contentsOf: invalid(FormatConstants.maxNameBytes))
        w.varint(fields.count)
        w.append(contentsOf: fields.bytes)
        return w.bytes
    }

    /// Metadata a full check accepts, decoded, edited and encoded again (unedited, it
    /// writes back its stored bytes: ``LossyMetadataIndexTests``), grows: every invalid
    /// byte becomes a three-byte replacement character. The largest such is still far
    /// under the 2^20 bytes a row counts, so no store a reader accepts stops the process
    /// on the row's precondition; and the table stores it whole, at a far location too.
    @Test func theLargestMetadataGrownByInvalidUTF8FitsARow() throws {
        let stored = Self.largestInvalidUTF8Metadata()
        var r = ByteReader(stored[...])
        var metadata = try StoredMetadata(from: &r)  // every rule checked
        #expect(r.isAtEnd)
        metadata.calories = 1  // an edit: the values are encoded again
        var w = ByteWriter(capacity: stored.count * 3)
        metadata.write(to: &w)
        #expect(w.bytes.count > stored.count * 2, "the test's metadata should grow when encoded again")
        #expect(w.bytes.count < (1 << 20) / 4, "re-encoded metadata of \(w.bytes.count) bytes comes near the row's 2^20")
        var g = SeededGenerator(state: 16)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        for (i, location) in Self.locations.enumerated() {
            var route = Self.route(&g, at: location, extras: i % 4)
            route.metadata = metadata
            table.updateValue(route, forKey: RouteID(UInt64(i + 1)))
            reference[RouteID(UInt64(i + 1))] = route
        }
        Self.expectSame(table, reference)
    }

    /// A run's metadata is checked for its layout only: a name and a 64 KiB extension
    /// of invalid UTF-8, as one notes field (each byte grows to three, the most any
    /// byte grows) or as 21,845 one-byte tags (past the 32 a full check allows), grow
    /// most when decoded and encoded again; still under a quarter of a row's 2^20 bytes.
    @Test(arguments: [false, true]) func theLargestLayoutOnlyMetadataGrownByInvalidUTF8FitsARow(asTags: Bool) throws {
        typealias Flag = FormatConstants.MetadataFlag
        let notes = UInt8(FormatConstants.MetadataField.notes.rawValue), tag = UInt8(FormatConstants.MetadataField.tag.rawValue)
        var fields = ByteWriter(capacity: FormatConstants.maxExtensionBytes)
        if asTags {
            while fields.count + 3 <= FormatConstants.maxExtensionBytes { fields.append(contentsOf: [tag, 1, 0xFF]) }
        } else {
            let length = FormatConstants.maxExtensionBytes - 4  // tag 1 byte, length 3
            fields.u8(notes)
            fields.varint(length)
            fields.append(contentsOf: [UInt8](repeating: 0xFF, count: length))
        }
        var w = ByteWriter(capacity: fields.count + 2000)
        w.u8(Flag.name | Flag.extensionFields)
        w.i64(0)
        w.u16(UInt16(FormatConstants.maxNameBytes))
        w.append(contentsOf: [UInt8](repeating: 0xC3, count: FormatConstants.maxNameBytes))  // lead bytes without their tails
        w.varint(fields.count)
        w.append(contentsOf: fields.bytes)
        try #require(fields.count == FormatConstants.maxExtensionBytes || asTags)
        var r = ByteReader(w.bytes[...])
        var metadata = StoredMetadata(try MetadataView(layoutOf: &r))
        metadata.calories = 1  // an edit: the values are encoded again
        var again = ByteWriter(capacity: w.bytes.count * 3)
        metadata.write(to: &again)
        #expect(again.bytes.count > w.bytes.count * (asTags ? 3 : 5) / 2)
        #expect(again.bytes.count < (1 << 20) / 4, "re-encoded metadata of \(again.bytes.count) bytes comes near the row's 2^20")
        var table = RouteTable()
        var g = SeededGenerator(state: 17)
        var route = Self.route(&g, at: Self.locations[3], extras: 3)
        route.metadata = metadata
        table.updateValue(route, forKey: RouteID(1))
        Self.expectSame(table, [RouteID(1): route])
    }

    /// Metadata of 2^20 − 1 bytes, the most a row counts, beside both flag bits (an edit
    /// and a far location): the count does not run into the flags, nor the flags into
    /// the count, through a replacement, a removal's move and a repack.
    @Test func aMetadataCountAtTheRowsLimitKeepsItsFlags() throws {
        var g = SeededGenerator(state: 18)
        var route = Self.route(&g, at: Self.locations[2], extras: 1)
        var metadata = StoredMetadata(RouteMetadata(name: "x"))
        // Flags, shift, name (2 + 1), extension count (3 bytes) and one unknown field
        // whose tag and length take 1 and 3 bytes.
        let header = 1 + 8 + 3 + 3 + 1 + 3
        var field = ByteWriter(capacity: 1 << 20)
        field.varint(99)
        field.varint((1 << 20) - 1 - header)
        field.append(contentsOf: [UInt8](repeating: 7, count: (1 << 20) - 1 - header))
        metadata.unknownFields = field.bytes
        var w = ByteWriter(capacity: 1 << 20)
        metadata.write(to: &w)
        try #require(w.bytes.count == (1 << 20) - 1)
        route.metadata = metadata
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        for id in 1...3 {
            table.updateValue(route, forKey: RouteID(UInt64(id)))
            reference[RouteID(UInt64(id))] = route
        }
        Self.expectSame(table, reference)
        #expect(table.removeValue(forKey: RouteID(1)) == reference.removeValue(forKey: RouteID(1)))
        // Small replacements leave most bytes dead: the table repacks.
        for id in 2...3 {
            let small = Self.route(&g, at: Self.locations[id], extras: 2)
            table.updateValue(small, forKey: RouteID(UInt64(id)))
            reference[RouteID(UInt64(id))] = small
            Self.expectSame(table, reference)
        }
        table.updateValue(route, forKey: RouteID(3))
        reference[RouteID(3)] = route
        Self.expectSame(table, reference)
    }
}
