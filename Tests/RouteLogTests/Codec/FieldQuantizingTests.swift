import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// A save's first pass reads its points a field at a time (``routelog_quantize_fields``
/// through ``TrackPointLayout``). It gives exactly what reading them point by point
/// gives: the same stored integers, presence bitmaps, bounding box, measures and the
/// same error for a bad point. The vector path and the portable one give the same
/// integers and summaries for every value, including those past 2^51, NaNs, infinities,
/// negative zero, and the absent pattern where a value is required.
@Suite struct FieldQuantizingTests {
    struct Gathered: Equatable {
        var lat: [Int64], lon: [Int64], time: [Int64]
        var optional: [String]
        var box: [Int64]
        var statistics: RouteStatistics?
    }

    static func gather(_ route: Route, layout: TrackPointLayout?, validating: Bool = true) -> Result<Gathered, RouteLogError> {
        do {
            let c = try PointColumns(route.points, validating: validating, measuring: route.segmentStarts, layout: layout)
            return .success(Gathered(
                lat: Array(c.latitudes.buffer), lon: Array(c.longitudes.buffer), time: Array(c.times.buffer),
                optional: c.optional.map { "\($0.tag) \(Array($0.values.buffer)) \($0.bitmap.map { "\($0)" } ?? "all")" },
                box: [c.south, c.north, c.west, c.east], statistics: c.statistics))
        } catch let error as RouteLogError {
            return .failure(error)
        } catch {
            Issue.record("unexpected error \(error)")
            return .failure(RouteLogError(.io, "\(error)"))
        }
    }

    static func expectSame(_ route: Route, _ label: String) {
        let fast = gather(route, layout: TrackPointLayout.current), slow = gather(route, layout: nil)
        switch (fast, slow) {
        case let (.success(a), .success(b)): #expect(a == b, "\(label)")
        case let (.failure(a), .failure(b)): #expect(a.message == b.message, "\(label)")
        default: Issue.record("\(label): one path threw, the other did not: \(fast) against \(slow)")
        }
        // Without validating, the columns of valid and invalid points alike.
        if case let .success(a) = gather(route, layout: TrackPointLayout.current, validating: false),
           case let .success(b) = gather(route, layout: nil, validating: false) {
            #expect(a == b, "\(label), not validating")
        }
    }

    @Test func thisPlatformReadsPointsAFieldAtATime() throws {
        let layout = try #require(TrackPointLayout.current)
        #expect(layout.stride == MemoryLayout<TrackPoint>.stride / 8)
        #expect(Set([layout.latitude, layout.longitude, layout.time] + layout.optional).count == 10)
    }

    @Test func walksAndRandomRoutesGiveTheSameColumns() {
        for seed in 1...4 { Self.expectSame(Fixtures.sampleWalk(seed: UInt64(seed), points: [3600, 1, 257, 1023][seed - 1]), "walk \(seed)") }
        var routes = RandomRoutes(seed: 0xF1E1D)
        for i in 0..<150 { Self.expectSame(routes.next(), "random route \(i)") }
    }

    /// Every field of some points given a hostile value, one at a time and together.
    @Test func hostileValuesGiveTheSameColumnsOrTheSameError() {
        let hostile: [Double] = [.nan, .infinity, -.infinity, -0.0, 0.5, -0.5, .leastNonzeroMagnitude, 1e300, -1e300,
                                 4.6e18, -4.6e18, 4.6e11, 2.25e15, -2.25e15, 90, -90, 90.0000001, 180, -180.00000001,
                                 1e7, -1e7, 1e7 + 1, 1e6, 1e6 + 0.1, Double(bitPattern: TrackPoint.absentBitPattern),
                                 0.00000005, -0.00000005, 0.0005, -0.0005, 978_307_200, -978_307_200, -978_307_200.001]
        var g = SeededGenerator(state: 0xBAD)
        let walk = Fixtures.sampleWalk(seed: 7, points: 37)
        let setters: [(inout TrackPoint, Double) -> Void] = [
            { $0.latitude = $1 }, { $0.longitude = $1 }, { $0.timestamp = Date(timeIntervalSince1970: $1) },
            { $0.timestamp = Date(timeIntervalSinceReferenceDate: $1) },
            { $0.rawAltitude = $1 }, { $0.rawHorizontalAccuracy = $1 }, { $0.rawVerticalAccuracy = $1 },
            { $0.rawSpeed = $1 }, { $0.rawCourse = $1 }, { $0.rawHeartRate = $1 }, { $0.rawCadence = $1 },
        ]
        for (f, set) in setters.enumerated() {
            for value in hostile {
                for index in [0, 3, 36] {
                    var route = walk
                    set(&route.points[index], value)
                    Self.expectSame(route, "field \(f) = \(value) at point \(index)")
                }
            }
        }
        for round in 0..<300 {
            var route = walk
            for _ in 0..<Int.random(in: 1...6, using: &g) {
                let set = setters[Int.random(in: 0..<setters.count, using: &g)]
                set(&route.points[Int.random(in: 0..<route.points.count, using: &g)],
                    hostile[Int.random(in: 0..<hostile.count, using: &g)])
            }
            Self.expectSame(route, "round \(round)")
        }
    }

    /// The kernel alone: both paths, every count around the four-point loop and the
    /// chunk of points, every value of the hostile list in every lane.
    @Test func bothPathsGiveTheSameIntegersAndSummaries() {
        var g = SeededGenerator(state: 0x5EED)
        let special: [Double] = [.nan, .infinity, -.infinity, -0.0, 0, 0.49999999999999994, -0.49999999999999994, 0.5, -0.5,
                                 1.5, -1.5, 2.25e15, -2.25e15, 2.2517998136852485e15, 4.6e18, -4.6e18, 4.7e18, -1e300,
                                 Double(bitPattern: TrackPoint.absentBitPattern), .leastNonzeroMagnitude, 123456.789,
                                 // Scaled to either side of 2^51, where the exact conversion ends.
                                 225_179_981.3, 225_179_981.5, 300_000_000.7, -300_000_000.3, 449_999_999.9,
                                 2_250_000_000_000.7, 3_000_000_000_000.7, -3_000_000_000_000.3]
        // Points of three doubles, each field read where it lies, and of ten (a
        // TrackPoint's), whose fields the wide path first lays side by side a chunk at a time.
        for stride in [3, 10] {
            for (count, runs) in (Array(0...13) + [255, 256, 257, 600]).flatMap({ [($0, false), ($0, true)] }) {
                var points = [Double](repeating: 0, count: max(1, count * stride))
                for i in 0..<points.count {
                    points[i] = Bool.random(using: &g) ? special[Int.random(in: 0..<special.count, using: &g)]
                        : Double.random(in: -1e5...1e5, using: &g)
                }
                // The optional field absent in runs of 1 to 12 points, or everywhere (the wide
                // path takes a chunk of 256 points none of which has it without arithmetic);
                // and, for 600 points, whole chunks: the first absent, the second absent but
                // for a value one bit from the absent pattern, the third present.
                if runs && count == 600 {
                    let nearlyAbsent = Double(bitPattern: TrackPoint.absentBitPattern ^ 1)
                    for j in 0..<512 { points[j * stride + 1] = Double(bitPattern: TrackPoint.absentBitPattern) }
                    points[(256 + Int.random(in: 0..<256, using: &g)) * stride + 1] = nearlyAbsent
                } else if runs {
                    let everywhere = count % 2 == 1
                    var i = 0, absent = true
                    while i < count {
                        let run = Int.random(in: 1...12, using: &g)
                        for j in i..<min(count, i + run) where absent || everywhere {
                            points[j * stride + 1] = Double(bitPattern: TrackPoint.absentBitPattern)
                        }
                        (i, absent) = (i + run, !absent)
                    }
                }
                var outputs: [[Int64]] = [], raws: [[Double]] = [], results: [[routelog_field_summary]] = []
                for wide in [true, false] {
                    var first = [Int64](repeating: 99, count: count + 1), second = first
                    var raw = [Double](repeating: 99, count: count + 1)
                    var summaries = [routelog_field_summary](repeating: routelog_field_summary(), count: 2)
                    first.withUnsafeMutableBufferPointer { v0 in
                        second.withUnsafeMutableBufferPointer { v1 in
                            raw.withUnsafeMutableBufferPointer { r in
                                let specs = [
                                    routelog_field_spec(field: 1, optional: 1, offset: 0, scale: 1e7, low: -90, high: 90, values: v0.baseAddress, raw: r.baseAddress),
                                    routelog_field_spec(field: 2, optional: 0, offset: 978_307_200, scale: 1000, low: -978_307_200, high: .infinity,
                                                        values: v1.baseAddress, raw: nil),
                                ]
                                if wide {
                                    routelog_quantize_fields(points, count, stride, specs, 2, TrackPoint.absentBitPattern, &summaries)
                                } else {
                                    routelog_quantize_fields_portable(points, count, stride, specs, 2, TrackPoint.absentBitPattern, &summaries)
                                }
                            }
                        }
                    }
                    let values = [first, second]
                    // Nothing written past the points.
                    #expect(values[0][count] == 99 && values[1][count] == 99 && raw[count] == 99)
                    outputs.append(values[0] + values[1])
                    raws.append(raw)
                    results.append(summaries)
                }
                #expect(outputs[0] == outputs[1], "count \(count), runs \(runs)")
                #expect(raws[0].map(\.bitPattern) == raws[1].map(\.bitPattern), "count \(count), runs \(runs)")
                for k in 0..<2 {
                    let a = results[0][k], b = results[1][k]
                    #expect(a.min == b.min && a.max == b.max && a.absent == b.absent && a.in_range == b.in_range, "count \(count), field \(k)")
                }
                // And each integer is routelog_scaled's, absent values 0.
                for i in 0..<count {
                    let x = points[i * stride + 1]
                    let expected = x.bitPattern == TrackPoint.absentBitPattern ? 0 : routelog_scaled(x, 1e7)
                    #expect(outputs[1][i] == expected, "count \(count), point \(i): \(x)")
                    // The required field takes the absent pattern as the NaN it is.
                    let t = points[i * stride + 2]
                    #expect(outputs[1][count + 1 + i] == routelog_scaled(t + 978_307_200, 1000), "count \(count), point \(i): \(t)")
                }
            }
        }
    }

    /// The wide path takes the range check and a required field's extremes from the
    /// smallest and largest double its groups of four saw, which pass over NaNs and
    /// absent values. When every lane of those groups is skipped that way (an optional
    /// field absent in all of them, a required one NaN in all of them) and only the last
    /// points, which the portable loop takes, have values, both paths still agree.
    @Test func everyGroupOfFourSkippedStillGivesTheSameSummaries() {
        let absent = Double(bitPattern: TrackPoint.absentBitPattern)
        for stride in [3, 10] {
            for count in 4...11 {
                let grouped = count / 4 * 4
                for tail in [0.5, -91.0, .nan, 45.25] {
                    var points = [Double](repeating: 0, count: count * stride)
                    for i in 0..<count {
                        points[i * stride + 1] = i < grouped ? absent : tail
                        points[i * stride + 2] = i < grouped ? .nan : tail * 1_000
                    }
                    var summaries: [[routelog_field_summary]] = []
                    var outputs: [[Int64]] = []
                    for wide in [true, false] {
                        var first = [Int64](repeating: 99, count: count), second = first
                        var result = [routelog_field_summary](repeating: routelog_field_summary(), count: 2)
                        first.withUnsafeMutableBufferPointer { v0 in
                            second.withUnsafeMutableBufferPointer { v1 in
                                let specs = [
                                    routelog_field_spec(field: 1, optional: 1, offset: 0, scale: 1e7, low: -90, high: 90, values: v0.baseAddress, raw: nil),
                                    routelog_field_spec(field: 2, optional: 0, offset: 0, scale: 1000, low: -1e9, high: 1e9, values: v1.baseAddress, raw: nil),
                                ]
                                if wide {
                                    routelog_quantize_fields(points, count, stride, specs, 2, TrackPoint.absentBitPattern, &result)
                                } else {
                                    routelog_quantize_fields_portable(points, count, stride, specs, 2, TrackPoint.absentBitPattern, &result)
                                }
                            }
                        }
                        summaries.append(result)
                        outputs.append(first + second)
                    }
                    #expect(outputs[0] == outputs[1], "count \(count), tail \(tail)")
                    for k in 0..<2 {
                        let a = summaries[0][k], b = summaries[1][k]
                        #expect(a.min == b.min && a.max == b.max && a.absent == b.absent && a.in_range == b.in_range,
                                "count \(count), tail \(tail), field \(k): \(a) against \(b)")
                    }
                    // What the portable loop gives, spelled out: absent values are not
                    // checked, and NaN is out of range, stored as 0.
                    let tailInRange = tail.magnitude <= 90 || count == grouped
                    #expect((summaries[1][0].in_range != 0) == tailInRange, "count \(count), tail \(tail)")
                    #expect(summaries[1][1].in_range == 0, "a NaN in a required field is out of range")
                    #expect(summaries[1][1].min <= 0 && summaries[1][1].max >= 0, "a NaN's 0 counts in the extremes")
                }
            }
        }
    }

    /// Points of ten doubles, a field side by side a chunk at a time, check the exactness
    /// of their conversion once a chunk: within 32 bits for a field with no offset that
    /// scales within them (all of a TrackPoint's but its time), below 2^51 for another
    /// required field (the time). A NaN, an infinity, a value past 2^31 (2^51) or one out
    /// of range anywhere in the chunk, and it is converted again lane by lane; a chunk
    /// whose first value has a sign rounds its ties with a constant half, and is
    /// converted again with either sign when it has both. Valid values with hostile ones
    /// now and then (so that some chunks are taken and some are not), at the edges of 32
    /// bits, of 2^51, of the range, of the absent pattern and of rounding; values of one
    /// sign; and optional fields absent from every point but one.
    @Test func fieldsCheckedOnceAChunkGiveThePortableIntegersAndSummaries() {
        struct Field { var index: Int, optional: Int32, offset: Double, scale: Double, low: Double, high: Double }
        let fields = [
            Field(index: 0, optional: 0, offset: 0, scale: 1e7, low: -180, high: 180),
            Field(index: 3, optional: 1, offset: -0.0, scale: 100, low: -1e7, high: 1e7),
            // 2^31 - 2 at either end, the most the 32-bit conversion takes.
            Field(index: 5, optional: 0, offset: 0, scale: 0.5, low: -4_294_967_292, high: 4_294_967_292),
            Field(index: 7, optional: 1, offset: 0, scale: 1, low: 0, high: 1e6),
            // One past it, and an offset: not the 32-bit conversion, the same integers.
            Field(index: 8, optional: 0, offset: 0, scale: 0.5, low: -4_294_967_294, high: 4_294_967_294),
            Field(index: 9, optional: 1, offset: 0.25, scale: 1, low: -1e6, high: 1e6),
            // A point's time: an offset, no highest value, converted exactly below 2^51.
            Field(index: 1, optional: 0, offset: 978_307_200, scale: 1000, low: -978_307_200, high: .infinity),
        ]
        let absent = Double(bitPattern: TrackPoint.absentBitPattern)
        func hostile(_ f: Field) -> [Double] {
            let s = f.scale
            return [.nan, -.nan, .infinity, -.infinity, -0.0, 0, absent, Double(bitPattern: TrackPoint.absentBitPattern ^ 1),
                    f.low, f.high, f.low.nextDown, f.high.nextUp, f.high + 1 / s, f.low - 1 / s,
                    2_147_483_646.5 / s, 2_147_483_647 / s, 2_147_483_647.5 / s, 2_147_483_648 / s, -2_147_483_647.5 / s,
                    -2_147_483_648 / s, -2_147_483_649 / s, 4.6e18, -1e300, 0.5 / s, -0.5 / s, 2.5 / s, -2.5 / s,
                    0.49999999999999994 / s, -0.49999999999999994 / s, .leastNonzeroMagnitude,
                    0x1p51 / s - f.offset, (0x1p51 - 1) / s - f.offset, (0x1p51 - 2) / s - f.offset, -0x1p51 / s - f.offset,
                    (2 - 0x1p51) / s - f.offset]
        }
        var g = SeededGenerator(state: 0x3232)
        for round in 0..<40 {
            for count in Array(0...13) + [255, 256, 257, 600, 3600] {
                var points = [Double](repeating: 0, count: max(1, count * 10))
                // One point in this many hostile: some chunks of 256 have none.
                let rarity = [3, 50, 400, 5000][round % 4]
                // Values of both signs, or, but for the hostile ones, of one sign only (a
                // run of one sign rounds its ties with a constant half).
                let signs = (round / 2) % 3
                for i in 0..<count {
                    for f in fields {
                        var x: Double
                        let isHostile = Int.random(in: 0..<rarity, using: &g) == 0
                        if isHostile {
                            x = hostile(f).randomElement(using: &g)!
                        } else if f.optional != 0 && round % 3 == 1 && Int.random(in: 0..<4, using: &g) == 0 {
                            x = absent
                        } else if Bool.random(using: &g) {
                            // A tie or its neighbours, in range.
                            let tie = (Double(Int.random(in: -1000...1000, using: &g)) + 0.5) / f.scale
                            x = Swift.max(f.low, Swift.min(f.high, [tie, tie.nextUp, tie.nextDown].randomElement(using: &g)!))
                        } else {
                            x = Double.random(in: f.low...Swift.min(f.high, 4e9), using: &g)
                        }
                        if signs == 1 && !isHostile { x = Swift.min(f.high, x.magnitude) }
                        if signs == 2 && !isHostile { x = Swift.max(f.low, -x.magnitude) }
                        points[i * 10 + f.index] = x
                    }
                }
                // Every fifth round, an optional field absent from every point but one (a
                // chunk none of whose points but that one has it).
                if round % 5 == 4 && count > 0 {
                    for f in fields where f.optional != 0 {
                        let lone = Int.random(in: 0..<count, using: &g)
                        for i in 0..<count where i != lone { points[i * 10 + f.index] = absent }
                    }
                }
                var outputs: [[[Int64]]] = [], results: [[routelog_field_summary]] = []
                for wide in [true, false] {
                    var values = [[Int64]](repeating: [Int64](repeating: 99, count: count + 1), count: fields.count)
                    var summaries = [routelog_field_summary](repeating: routelog_field_summary(), count: fields.count)
                    let memory = values.map { v in
                        let m = UnsafeMutablePointer<Int64>.allocate(capacity: v.count)
                        m.initialize(from: v, count: v.count)
                        return m
                    }
                    defer { memory.forEach { $0.deallocate() } }
                    let specs = zip(fields, memory).map { f, m in
                        routelog_field_spec(field: f.index, optional: f.optional, offset: f.offset, scale: f.scale,
                                            low: f.low, high: f.high, values: m, raw: nil)
                    }
                    if wide {
                        routelog_quantize_fields(points, count, 10, specs, specs.count, TrackPoint.absentBitPattern, &summaries)
                    } else {
                        routelog_quantize_fields_portable(points, count, 10, specs, specs.count, TrackPoint.absentBitPattern, &summaries)
                    }
                    for k in fields.indices { values[k] = Array(UnsafeBufferPointer(start: memory[k], count: count + 1)) }
                    outputs.append(values)
                    results.append(summaries)
                }
                for k in fields.indices {
                    #expect(outputs[0][k][count] == 99, "nothing written past the points")
                    #expect(outputs[0][k] == outputs[1][k], "round \(round), count \(count), field \(k)")
                    let a = results[0][k], b = results[1][k]
                    #expect(a.min == b.min && a.max == b.max && a.absent == b.absent && a.in_range == b.in_range,
                            "round \(round), count \(count), field \(k): \(a) against \(b)")
                }
            }
        }
    }
}
