import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// The keyed archive costs time linear in its points and splits and memory bounded by
/// the import limits: splits are matched through a sorted time index (its comparisons
/// counted), counts are checked before anything is built, and a forged property list
/// is refused by its own lengths, not believed.
@Suite struct KeyedArchiveLimitsTests {
    static func walk(_ count: Int, times: (Int) -> Double) -> [TrackPoint] {
        (0..<count).map { TrackPoint(latitude: 10 + Double($0) * 1e-5, longitude: 20, timestamp: Date(timeIntervalSince1970: times($0))) }
    }

    /// The point a full scan picks: nearest to the millisecond, the earliest of equals.
    static func scan(_ points: [TrackPoint], _ date: Date) -> Int {
        let query = NearestTimeIndex.milliseconds(date)
        var best = 0, bestGap = Int64.max
        for (i, p) in points.enumerated() {
            let gap = abs(NearestTimeIndex.milliseconds(p.timestamp) - query)
            if gap < bestGap { (best, bestGap) = (i, gap) }
        }
        return best
    }

    @Test func theIndexPicksWhatAFullScanPicks() {
        var generator = SeededGenerator(state: 11)
        // Out of order, repeated times, queries before, between, on and after them.
        let points = Self.walk(1000) { _ in 1_600_000_000 + Double(Int.random(in: 0..<700, using: &generator)) * 0.5 }
        var index = NearestTimeIndex(points)
        var queries = (0..<1000).map { _ in Date(timeIntervalSince1970: 1_599_999_990 + Double.random(in: 0..<370, using: &generator)) }
        queries += queries.sorted { $0 < $1 }
        for query in queries {
            #expect(index.nearest(to: query) == Self.scan(points, query), "\(query.timeIntervalSince1970)")
        }
    }

    @Test func matchingSplitsTakesStepsLinearInPointsAndSplits() {
        func steps(points n: Int, splits m: Int) -> Int {
            let points = Self.walk(n) { 1_600_000_000 + Double($0) }
            var index = NearestTimeIndex(points)
            for s in 0..<m { _ = index.nearest(to: Date(timeIntervalSince1970: 1_600_000_000 + Double(s) * Double(n) / Double(m))) }
            return index.steps
        }
        let small = steps(points: 100_000, splits: 10_000), large = steps(points: 200_000, splits: 20_000)
        // A scan of every point for every split would take n x m = 1e9 and 4e9 steps.
        #expect(small <= 2 * (100_000 + 10_000), "\(small) steps")
        #expect(Double(large) / Double(small) < 2.05, "\(small) then \(large) steps")
    }

    @Test func eachArchivedSplitIsMatchedToItsNearestPoint() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("splits.archive")
        try HostileInputs.archive(references: 20_000, locations: 20_000, splits: 2_000, to: url)
        let (routes, report) = try LegacyArchiveMigrator.read(data: Data(contentsOf: url), source: "splits.archive")
        let route = try #require(routes.first)
        #expect(route.points.count == 20_000 && report.splitsFromArchive == 2_000)
        // Split s was archived at 10 s x s; the points are 1 s apart.
        #expect(route.splits.filter { $0.unit == .kilometre }.map(\.pointIndex) == (0..<2_000).map { $0 * 10 })
    }

    func refusal(_ limits: ImportLimits, routes: Int, references: Int, locations: Int, splits: Int = 0) throws -> String {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("a.archive")
        try HostileInputs.archive(routes: routes, references: references, locations: locations, splits: splits, to: url)
        do {
            let (read, _) = try LegacyArchiveMigrator.read(data: Data(contentsOf: url), source: "a.archive", limits: limits)
            Issue.record("read \(read.count) routes")
            return ""
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument && error.path == "a.archive")
            return error.message
        }
    }

    @Test func everyLimitIsCheckedAgainstTheArchivesCounts() throws {
        var limits = ImportLimits()
        limits.pointsPerRoute = 500
        #expect(try refusal(limits, routes: 1, references: 1000, locations: 10).contains("has 1,000 locations, more than the 500"))
        limits = ImportLimits()
        limits.pointsPerFile = 3000
        // Five routes naming one array of 1,000 entries: 5,000 points from ten locations.
        #expect(try refusal(limits, routes: 5, references: 1000, locations: 10).contains("more than 3,000 locations"))
        limits = ImportLimits()
        limits.routesPerFile = 2
        #expect(try refusal(limits, routes: 3, references: 10, locations: 10).contains("3 route objects, more than 2"))
        limits = ImportLimits()
        limits.splitsPerRoute = 1000
        #expect(try refusal(limits, routes: 1, references: 10_000, locations: 10_000, splits: 1001).contains("more than 1,000 kilometre and mile splits"))
    }

    /// A one-object binary property list: `object`, then its offset table and trailer.
    static func plist(_ object: [UInt8], objectCount: UInt64 = 1, top: UInt64 = 0, tableAt: UInt64? = nil) -> MappedBytes {
        var bytes = Array("bplist00".utf8) + object
        let table = tableAt ?? UInt64(bytes.count)
        bytes += [8]
        func be(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + be(objectCount) + be(top) + be(table)
        return MappedBytes(copying: Data(bytes))
    }

    @Test func forgedLengthsAreRefusedNotAllocated() throws {
        // An array claiming 2^40 entries, a string claiming 2^60 bytes, a dictionary of 15+.
        for object: [UInt8] in [[0xAF, 0x13, 0, 0, 1, 0, 0, 0, 0, 0], [0x5F, 0x13, 0x10, 0, 0, 0, 0, 0, 0, 0],
                                [0xDF, 0x10, 200], [0x6F, 0x12, 0x7F, 0xFF, 0xFF, 0xFF]] {
            let list = try BinaryPropertyList(Self.plist(object), source: "forged")
            #expect(throws: RouteLogError.self, "\(object)") { try list.object(0) }
        }
        // A trailer naming 2^62 objects, an offset table past the end, a top object past the count.
        #expect(throws: RouteLogError.self) { try BinaryPropertyList(Self.plist([0x00], objectCount: 1 << 62), source: "forged") }
        #expect(throws: RouteLogError.self) { try BinaryPropertyList(Self.plist([0x00], tableAt: 1 << 40), source: "forged") }
        #expect(throws: RouteLogError.self) { try BinaryPropertyList(Self.plist([0x00], top: 5), source: "forged") }
        // A reference to an object that does not exist.
        let list = try BinaryPropertyList(Self.plist([0xA1, 0x07]), source: "forged")
        guard case .array(let references) = try list.object(0) else { Issue.record("not an array"); return }
        #expect(throws: RouteLogError.self) { try list.reference(references, 0) }
    }

    @Test func anXMLArchiveIsReadLikeItsBinaryTwinUpToItsSizeLimit() throws {
        let binary = try Data(contentsOf: KeyedArchiveMigrationTests.pythonFixture)
        let graph = try PropertyListSerialization.propertyList(from: binary, format: nil)
        let xml = try PropertyListSerialization.data(fromPropertyList: graph, format: .xml, options: 0)
        let fromXML = try LegacyArchiveMigrator.read(data: xml, source: "xml")
        let fromBinary = try LegacyArchiveMigrator.read(data: binary, source: "xml")
        #expect(fromXML.routes == fromBinary.routes && fromXML.routes.count == 3)
        let huge = Data("<?xml version=\"1.0\"?><plist>".utf8) + Data(repeating: 0x20, count: KeyedArchive.xmlArchiveBytes)
        #expect {
            try LegacyArchiveMigrator.read(data: huge, source: "huge")
        } throws: { ($0 as? RouteLogError)?.message.contains("plutil -convert binary1") == true }
    }

    /// A keyed archive of one route whose locations are all one object, referred to
    /// `references` times: its keys are the CLLocation ones, with `extraKeys` more of 250
    /// bytes each, and its values reals, or `textValues` of 250 characters.
    static func oneLocationReferredTo(_ references: Int, extraKeys: Int, textValues: Bool = false) -> Data {
        var objects: [[UInt8]] = []
        func add(_ bytes: [UInt8]) -> Int { objects.append(bytes); return objects.count - 1 }
        func be(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
        func marker(_ kind: UInt8, _ count: Int) -> [UInt8] { count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0xF, 0x13] + be(UInt64(count), 8) }
        func string(_ text: String) -> Int { add(marker(0x5, text.utf8.count) + Array(text.utf8)) }
        func real(_ value: Double) -> Int { add([0x23] + be(value.bitPattern, 8)) }
        func number(_ value: Double) -> Int { textValues ? string(String(repeating: "0", count: 240) + "\(value)") : real(value) }
        func uid(_ index: Int) -> Int { add([0x83] + be(UInt64(index), 4)) }
        func array(_ refs: [Int]) -> Int { add(marker(0xA, refs.count) + refs.flatMap { be(UInt64($0), 4) }) }
        func dictionary(_ keys: [Int], _ values: [Int]) -> Int { add(marker(0xD, keys.count) + (keys + values).flatMap { be(UInt64($0), 4) }) }
        var archived: [Int] = []
        func archive(_ object: Int) -> Int { archived.append(object); return archived.count - 1 }
        let root = add([]), elements = string("NS.objects")
        var keys = [string(LegacyRouteReader.Key.latitude), string(LegacyRouteReader.Key.longitude), string(LegacyRouteReader.Key.timestamp)]
        var values = [number(45), number(9), number(Date(timeIntervalSince1970: 1_700_000_000).timeIntervalSinceReferenceDate)]
        let zero = real(0)
        for k in 0..<extraKeys { keys.append(string("key \(k) " + String(repeating: "k", count: 240))); values.append(zero) }
        let location = uid(archive(dictionary(keys, values)))
        let locations = archive(dictionary([elements], [array(Array(repeating: location, count: references))]))
        let route = archive(dictionary([string("routeCoordinates")], [uid(locations)]))
        let routes = archive(dictionary([elements], [array([uid(route)])]))
        let top = dictionary([string("root")], [uid(routes)])
        let list = array(archived)
        objects[root] = marker(0xD, 2) + [string("$top"), string("$objects"), top, list].flatMap { be(UInt64($0), 4) }
        var bytes = Array("bplist00".utf8), offsets: [Int] = []
        for object in objects { offsets.append(bytes.count); bytes += object }
        let table = bytes.count
        bytes += offsets.flatMap { be(UInt64($0), 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4] + be(UInt64(objects.count), 8) + be(UInt64(root), 8) + be(UInt64(table), 8)
        return Data(bytes)
    }

    /// A location of 250 keys of 250 bytes, or with values of 250 characters, referred to
    /// 100,000 times (a few hundred kilobytes) asked for a key lookup or a character
    /// decoded a hundred times for each byte of the file: refused with the offset where
    /// the work ran out. One location of CLLocation's keys repeated, as an app that
    /// appended its last fix again archives it, is still read.
    @Test func anObjectReferredToFarMoreOftenThanItsBytesPayForIsRefused() throws {
        for (extraKeys, textValues) in [(250, false), (0, true)] {
            let data = Self.oneLocationReferredTo(100_000, extraKeys: extraKeys, textValues: textValues)
            #expect {
                try LegacyArchiveMigrator.read(data: data, source: "forged")
            } throws: { error in
                guard let error = error as? RouteLogError, error.code == .invalidArgument, let offset = error.offset else { return false }
                return error.message.contains("referred to more often") && offset > 8 && offset < data.count
            }
        }
        let repeated = try LegacyArchiveMigrator.read(data: Self.oneLocationReferredTo(100_000, extraKeys: 6), source: "repeated")
        #expect(repeated.routes.map(\.points.count) == [100_000])
        let still = LegacyLocationObject(LegacyArchiveFactory.walk(count: 1, start: 1_700_500_000)[0])
        let archive = try LegacyArchiveFactory.archive([LegacyRouteObject(locations: Array(repeating: still, count: 3000),
                                                                          totalDistance: 0, calories: 0)])
        #expect(try LegacyArchiveMigrator.read(data: archive, source: "still").routes.map(\.points.count) == [3000])
    }
}
