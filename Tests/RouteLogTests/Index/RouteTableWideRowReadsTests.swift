import Foundation
import Testing
@testable import RouteLog

/// Wide rows (a location or shape past what a row packs: ``RouteTable/Row``) read
/// through every path of the table that ``RouteTableTests/expectSame`` does not walk:
/// the point count of every row, the row walk queries use (shape and start), one
/// route's shape and start, a totals ledger filled from the rows, and summaries made
/// in order, serially and on every core. Each path is checked with shapes at and past
/// every packed limit, after the last row is moved into a hole, after the metadata is
/// repacked, and in a copy of the table made before it changed.
@Suite struct RouteTableWideRowReadsTests {
    /// Shapes and lengths at and past every packed limit: (first time, duration, point
    /// count, record length, segment, offset); nil keeps the plain route's value.
    static let edges: [(first: Int64?, duration: Int64?, points: UInt32?, length: Int?, segment: UInt32?, offset: Int64?)] = [
        (nil, nil, nil, nil, nil, nil),
        (nil, nil, 1 << 21 - 1, nil, nil, nil),
        (nil, nil, 1 << 21, nil, nil, nil),
        (nil, nil, .max, nil, nil, nil),
        (nil, 1 << 37 - 1, nil, nil, nil, nil),
        (nil, 1 << 37, nil, nil, nil, nil),
        (nil, FormatConstants.latestTimestampMs, nil, nil, nil, nil),
        (0, nil, nil, nil, nil, nil),
        (FormatConstants.latestTimestampMs, 0, nil, nil, nil, nil),
        (1 << 43 - 1, 0, nil, nil, nil, nil),
        (1 << 43, 0, nil, nil, nil, nil),
        (nil, nil, nil, 1 << 27 - 1, nil, nil),
        (nil, nil, nil, 1 << 27, nil, nil),
        (nil, nil, nil, nil, 1 << 24 - 1, 1 << 40 - 1),
        (nil, nil, nil, nil, 1 << 24, nil),
        (nil, nil, nil, nil, nil, 1 << 40),
        // Every packed field at its largest at once, and every one past it.
        (1 << 43 - 1, 1 << 37 - 1, 1 << 21 - 1, 1 << 27 - 1, 1 << 24 - 1, 1 << 40 - 1),
        (1 << 43, 1 << 37, 1 << 21, 1 << 27, 1 << 24, 1 << 40),
    ]

    /// A route of `g` with edge `edge` applied, and a time shift of zero or not.
    static func route(_ g: inout SeededGenerator, edge: Int, notes: Int = 0) -> IndexedRoute {
        var route = RouteTableTests.route(&g, notes: notes)
        // A plain place and shape first (the shared helper makes some wide by chance).
        route.location = RecordLocation(segment: UInt32(g.next() % 50 + 1), offset: Int64(g.next() % 100_000) + 64, length: 300)
        route.shape.firstMs = 1_767_225_600_000 + Int64(g.next() % 1_000_000_000)
        route.shape.durationMs = Int64(g.next() % 10_000_000)
        route.shape.pointCount = UInt32(g.next() % 5000) + 1
        let e = edges[edge % edges.count]
        if let v = e.first { route.shape.firstMs = v }
        if let v = e.duration { route.shape.durationMs = v }
        if let v = e.points { route.shape.pointCount = v }
        if let v = e.length { route.location.length = v }
        if let v = e.segment { route.location.segment = v }
        if let v = e.offset { route.location.offset = v }
        // A box and ends no other route has, so that a row read as another's shows.
        let n = Int32(edge % edges.count + 1)
        route.shape.south = -n * 1000; route.shape.north = n * 1000 + 7
        route.shape.west = -n * 2000; route.shape.east = n * 2000 + 9
        route.shape.startLat = n * 11; route.shape.startLon = -n * 13
        route.shape.endLat = n * 17; route.shape.endLon = -n * 19
        route.shape.distance = Double(n) * 1234.5
        return route
    }

    static func start(_ route: IndexedRoute) -> Int64 { route.shape.firstMs + route.metadata.shiftMs }

    /// Every aggregate read of `table` agrees with `reference`.
    static func expectAggregates(_ table: RouteTable, _ reference: [RouteID: IndexedRoute],
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        // The point count of every route (the sum would overflow nothing: at most a few
        // UInt32.max on a 64-bit Int).
        #expect(table.pointCount == reference.values.reduce(0) { $0 + Int($1.shape.pointCount) },
                "points", sourceLocation: sourceLocation)
        // The row walk: each id once, with its shape and start.
        var walked: [RouteID: (RouteShape, Int64)] = [:]
        table.forEachRow { id, shape, start in
            #expect(walked[id] == nil, "route \(id) walked twice", sourceLocation: sourceLocation)
            walked[id] = (shape, start)
        }
        #expect(walked.count == reference.count, sourceLocation: sourceLocation)
        for (id, route) in reference {
            #expect(walked[id]?.0 == route.shape, "walked shape of \(id)", sourceLocation: sourceLocation)
            #expect(walked[id]?.1 == start(route), "walked start of \(id)", sourceLocation: sourceLocation)
            let one = table.shapeAndStart(id)
            #expect(one?.shape == route.shape, "shape of \(id)", sourceLocation: sourceLocation)
            #expect(one?.startMs == start(route), "start of \(id)", sourceLocation: sourceLocation)
        }
        // A ledger filled from the rows (metadata's top read, no field decoded) holds
        // what one filled from the decoded routes does, route by route in one order.
        let order = table.starts.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        var fromRows = TotalsLedger(zone: TimeZone(identifier: "UTC")!)
        var fromRoutes = TotalsLedger(zone: TimeZone(identifier: "UTC")!)
        for key in order {
            table.addTotals(row: key.row, to: &fromRows)
            fromRoutes.add(key.id, reference[key.id]!)
        }
        #expect(fromRows.days.mapValues(\.totals) == fromRoutes.days.mapValues(\.totals), "totals", sourceLocation: sourceLocation)
        #expect(fromRows.all == fromRoutes.all, sourceLocation: sourceLocation)
        // Summaries in the order asked, one at a time and in a list.
        let expected = order.map { reference[$0.id]!.summary($0.id) }
        #expect(table.summaries(rows: order.map(\.row)) == expected, "summaries", sourceLocation: sourceLocation)
        #expect(order.map { table.summary(row: $0.row) } == expected, sourceLocation: sourceLocation)
        #expect(order.map { table.summary($0.id) } == expected, sourceLocation: sourceLocation)
    }

    @Test func everyAggregateReadsWideRowsAtEveryEdge() {
        var g = SeededGenerator(state: 81)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        for round in 0..<3 {
            for edge in Self.edges.indices {
                let id = RouteID(UInt64(round * Self.edges.count + edge + 1))
                let route = Self.route(&g, edge: edge)
                table.updateValue(route, forKey: id)
                reference[id] = route
            }
        }
        RouteTableFarRowTests.expectSame(table, reference)
        Self.expectAggregates(table, reference)
    }

    /// The same through an open's path: each route given as an index record's bytes.
    @Test func routesFromIndexRecordsReadTheSame() {
        var g = SeededGenerator(state: 82)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        for edge in Self.edges.indices {
            let id = RouteID(UInt64(edge + 1))
            var route = Self.route(&g, edge: edge)
            route.editLocation = nil
            route.recorded = nil
            var w = ByteWriter(capacity: 256)
            route.metadata.write(to: &w)
            #expect(w.bytes.withUnsafeBytes { table.insertIfNew(id, location: route.location, shape: route.shape, encodedMetadata: $0) })
            route.metadata = StoredMetadata(MetadataView(checked: w.bytes[...]))
            reference[id] = route
        }
        RouteTableFarRowTests.expectSame(table, reference)
        Self.expectAggregates(table, reference)
    }

    /// A wide route that came in through an open's path (no edit, no recording: only its
    /// location and shape beside the row), then replaced by one that fits and has
    /// nothing beside its row, or by one with an edit, or removed: nothing of the wide
    /// route stays beside the rows.
    @Test func aWideRowFromAnIndexRecordLeavesNothingBesideTheRowsOnceReplaced() {
        var g = SeededGenerator(state: 86)
        let wideEdges = Self.edges.indices.filter { edge in
            var probe = SeededGenerator(state: 1)
            let route = Self.route(&probe, edge: edge)
            return RouteTableFarRowTests.isWide(route)
        }
        #expect(wideEdges.count == 9)
        for edge in wideEdges {
            for replacement in 0..<3 {
                var table = RouteTable()
                var reference: [RouteID: IndexedRoute] = [:]
                var route = Self.route(&g, edge: edge)
                route.editLocation = nil
                route.recorded = nil
                var w = ByteWriter(capacity: 256)
                route.metadata.write(to: &w)
                #expect(w.bytes.withUnsafeBytes { table.insertIfNew(RouteID(1), location: route.location, shape: route.shape, encodedMetadata: $0) })
                route.metadata = StoredMetadata(MetadataView(checked: w.bytes[...]))
                reference[RouteID(1)] = route
                RouteTableFarRowTests.expectSame(table, reference)
                switch replacement {
                case 0:
                    var plain = Self.route(&g, edge: 0)
                    plain.editLocation = nil
                    plain.recorded = nil
                    #expect(table.updateValue(plain, forKey: RouteID(1)) == reference.updateValue(plain, forKey: RouteID(1)))
                case 1:
                    var edited = route
                    edited.edited(RouteTableTests.metadata(&g, notes: 0), at: RecordLocation(segment: 3, offset: 500, length: 60))
                    #expect(table.updateValue(edited, forKey: RouteID(1)) == reference.updateValue(edited, forKey: RouteID(1)))
                default:
                    #expect(table.removeValue(forKey: RouteID(1)) == reference.removeValue(forKey: RouteID(1)))
                }
                RouteTableFarRowTests.expectSame(table, reference)
                Self.expectAggregates(table, reference)
            }
        }
    }

    /// Removing routes moves the last row into each hole; a removed wide route's shape
    /// must not stay behind for the row that takes its place, whichever edge either has.
    @Test func removalsMoveRowsOfEveryEdgeIntoHoles() {
        var g = SeededGenerator(state: 83)
        for removed in Self.edges.indices {
            for last in Self.edges.indices {
                var table = RouteTable()
                var reference: [RouteID: IndexedRoute] = [:]
                for i in 0..<4 {
                    let edge = i == 1 ? removed : i == 3 ? last : (removed + last + i) % Self.edges.count
                    let route = Self.route(&g, edge: edge)
                    table.updateValue(route, forKey: RouteID(UInt64(i + 1)))
                    reference[RouteID(UInt64(i + 1))] = route
                }
                #expect(table.removeValue(forKey: RouteID(2)) == reference.removeValue(forKey: RouteID(2)))
                Self.expectAggregates(table, reference)
            }
        }
    }

    /// Seeded churn of every edge with large notes (so that the metadata is repacked
    /// now and then), checked after each round; and a copy of the table taken midway
    /// still reads as the routes were then while the original keeps changing.
    @Test func churnAndCopiesKeepEveryAggregateRight() {
        var g = SeededGenerator(state: 84)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        var copy: (table: RouteTable, reference: [RouteID: IndexedRoute])?
        for step in 0..<1200 {
            let id = RouteID(g.next() % 60 + 1)
            let notes = g.next() % 4 == 0 ? 3000 : 0
            switch g.next() % 5 {
            case 0, 1, 2:
                let route = Self.route(&g, edge: Int(g.next() % UInt64(Self.edges.count)), notes: notes)
                #expect(table.updateValue(route, forKey: id) == reference.updateValue(route, forKey: id))
            case 3:
                #expect(table.removeValue(forKey: id) == reference.removeValue(forKey: id))
            default:
                RouteTableTests.editAlike(id, &table, &reference, &g, notes: notes)
            }
            if step == 600 { copy = (table, reference) }
            if step % 200 == 199 { Self.expectAggregates(table, reference) }
        }
        Self.expectAggregates(table, reference)
        if let copy {
            RouteTableFarRowTests.expectSame(copy.table, copy.reference)
            Self.expectAggregates(copy.table, copy.reference)
        }
    }

    /// Summaries made on every core (a list long enough for two workers at least): each
    /// worker reads wide rows' shapes from beside the rows, and its own copy of the
    /// metadata in the table's form.
    @Test func summariesOnEveryCoreReadWideRows() {
        var g = SeededGenerator(state: 85)
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]
        let count = RouteTable.summariesPerWorker * 2 + 100
        for i in 0..<count {
            // Every third route wide, the others at an edge that fits or plain.
            let edge = i % 3 == 0 ? [2, 3, 5, 6, 10, 12, 14, 15, 17][i / 3 % 9] : [0, 1, 4, 7, 8, 9, 11, 13, 16][i / 3 % 9]
            var route = Self.route(&g, edge: edge)
            route.recorded = nil
            let id = RouteID(UInt64(i + 1))
            table.updateValue(route, forKey: id)
            reference[id] = route
        }
        let order = table.starts.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        let summaries = table.summaries(rows: order.map(\.row))
        #expect(summaries.count == count)
        var wrong = 0
        for (key, summary) in zip(order, summaries) where summary != reference[key.id]!.summary(key.id) { wrong += 1 }
        #expect(wrong == 0)
        #expect(table.pointCount == reference.values.reduce(0) { $0 + Int($1.shape.pointCount) })
    }
}
