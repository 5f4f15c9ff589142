import Foundation
import Testing
@testable import RouteLog

/// The old app's route object, archived the way the app did (keys as in the app).
final class LegacyRouteObject: NSObject, NSCoding {
    var locations: [LegacyLocationObject]
    var kmLocations: [LegacyLocationObject] = []
    var kmTimes: [Date] = []
    var totalDistance: Double
    var calories: Double

    init(locations: [LegacyLocationObject], totalDistance: Double, calories: Double) {
        self.locations = locations
        self.totalDistance = totalDistance
        self.calories = calories
    }

    init?(coder: NSCoder) { nil }

    func encode(with coder: NSCoder) {
        coder.encode(NSMutableArray(array: locations), forKey: "routeCoordinates")
        coder.encode(NSMutableArray(array: kmLocations), forKey: "kmCoordinates")
        coder.encode(NSMutableArray(array: kmTimes.map { NSDate(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) }),
                     forKey: "kmTimes")
        coder.encode(NSMutableArray(), forKey: "mileCoordinates")
        coder.encode(NSMutableArray(), forKey: "mileTimes")
        coder.encode(NSNumber(value: totalDistance), forKey: "totalDistance")
        coder.encode(NSNumber(value: calories), forKey: "calories")
        coder.encode(NSString(string: "00:10:00"), forKey: "timeTaken")
        coder.encode(NSDate(timeIntervalSinceReferenceDate: locations.first?.timestamp.timeIntervalSinceReferenceDate ?? 0),
                     forKey: "date")
    }
}

/// A stand-in for CLLocation with CoreLocation's coding keys.
final class LegacyLocationObject: NSObject, NSCoding {
    let point: TrackPoint
    init(_ point: TrackPoint) { self.point = point }
    init?(coder: NSCoder) { nil }
    var timestamp: Date { point.timestamp }

    func encode(with coder: NSCoder) {
        coder.encode(point.latitude, forKey: "kCLLocationCodingKeyCoordinateLatitude")
        coder.encode(point.longitude, forKey: "kCLLocationCodingKeyCoordinateLongitude")
        coder.encode(point.altitude ?? 0, forKey: "kCLLocationCodingKeyAltitude")
        coder.encode(point.horizontalAccuracy ?? 5, forKey: "kCLLocationCodingKeyHorizontalAccuracy")
        coder.encode(point.verticalAccuracy ?? 3, forKey: "kCLLocationCodingKeyVerticalAccuracy")
        coder.encode(point.speed ?? -1, forKey: "kCLLocationCodingKeySpeed")
        coder.encode(point.course ?? -1, forKey: "kCLLocationCodingKeyCourse")
        // This archive carries the timestamp as an NSDate object; the Python-made one as
        // a bare CFAbsoluteTime, as CLLocation does. The reader takes both.
        coder.encode(NSDate(timeIntervalSinceReferenceDate: point.timestamp.timeIntervalSinceReferenceDate),
                     forKey: "kCLLocationCodingKeyTimestamp")
    }
}

enum LegacyArchiveFactory {
    /// Archives `routes` with Foundation's NSKeyedArchiver, then renames the classes to
    /// the app's ("Route", "CLLocation"): swift-corelibs-foundation ignores
    /// `setClassName(_:for:)`, so the names are rewritten in the property list.
    static func archive(_ routes: [LegacyRouteObject]) throws -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(NSMutableArray(array: routes), forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        var plist = try #require(try PropertyListSerialization.propertyList(from: archiver.encodedData, format: nil) as? [String: Any])
        var objects = try #require(plist["$objects"] as? [Any])
        let renames = [String(reflecting: LegacyRouteObject.self): "Route",
                       String(reflecting: LegacyLocationObject.self): "CLLocation"]
        for i in objects.indices {
            guard var entry = objects[i] as? [String: Any], let name = entry["$classname"] as? String,
                  let newName = renames[name] else { continue }
            entry["$classname"] = newName
            entry["$classes"] = [newName, "NSObject"]
            objects[i] = entry
        }
        plist["$objects"] = objects
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    static func walk(count: Int, start: TimeInterval) -> [TrackPoint] {
        (0..<count).map { i in
            TrackPoint(latitude: 51.5 + Double(i) * 0.0001, longitude: -0.12, timestamp: Date(timeIntervalSince1970: start + Double(i)),
                       altitude: 20 + Double(i % 3), horizontalAccuracy: 4, verticalAccuracy: 6, speed: 1.5, course: 0)
        }
    }
}

@Suite struct KeyedArchiveMigrationTests {
    static let pythonFixture = InterchangeFixtures.packageRoot.appendingPathComponent("Tests/Fixtures/legacy-archive.plist")

    func withStore(_ body: (RouteStore) throws -> Void) throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"))
        defer { try? store.close() }
        try body(store)
    }

    @Test func appleStyleBinaryArchiveMigratesWithItsSplitsAndMetadata() throws {
        try withStore { store in
            let report = try LegacyArchiveMigrator.migrate(Self.pythonFixture, into: store)
            #expect(report.routesFound == 4)
            #expect(report.routesMigrated == 2)
            #expect(report.pointsMigrated == 299 + 1500)
            #expect(report.pointsSkipped == 2, "one in route 1 and one in its repeat, route 4")
            #expect(report.routesAlreadyPresent == 1)
            #expect(report.skippedRoutes == ["route 3: no locations"])
            #expect(report.splitsFromArchive == 3)
            let first = try store.route(report.routeIDs[0])
            #expect(first.metadata.distance == 1234.5 && first.metadata.calories == 87)
            #expect(ISO8601Time.format(first.points[0].timestamp) == "2015-06-01T07:00:00.000Z")
            let p = first.points[0]
            #expect(p.latitude == 47.3769 && p.longitude == 8.5417 && p.altitude == 420)
            #expect(p.horizontalAccuracy == 5 && p.verticalAccuracy == 3 && p.speed == 1.4 && p.course == 45)
            #expect(!first.points.contains { $0.latitude == -180 || $0.longitude == -180 })
            let second = try store.route(report.routeIDs[1])
            #expect(second.metadata.calories == 143.5 && second.metadata.distance == 2500)
            #expect(ISO8601Time.format(second.points[0].timestamp) == "2015-06-04T07:00:00.250Z")
            let km = second.splits.filter { $0.unit == .kilometre }
            #expect(km.count == 2)
            for split in second.splits {
                // The archived split time is the time of the point it is matched to.
                #expect(abs(second.points[split.pointIndex].timestamp.timeIntervalSince(second.points[0].timestamp)
                    - split.elapsedTime) < 0.002)
            }
            #expect(try store.summary(report.routeIDs[1]).distance == 2500, "the app's distance wins")
        }
    }

    @Test func runningTheMigrationTwiceAddsNothing() throws {
        try withStore { store in
            let first = try LegacyArchiveMigrator.migrate(Self.pythonFixture, into: store)
            let before = try store.summaries()
            let second = try LegacyArchiveMigrator.migrate(Self.pythonFixture, into: store)
            #expect(first.routesMigrated == 2)
            #expect(second.routesMigrated == 0 && second.routeIDs.isEmpty)
            #expect(second.routesAlreadyPresent == 3)
            #expect(try store.summaries() == before)
        }
    }

    @Test func foundationMadeArchiveMigratesEveryPointAtStorePrecision() throws {
        let walkA = LegacyArchiveFactory.walk(count: 200, start: 1_500_000_000.123)
        let walkB = LegacyArchiveFactory.walk(count: 1200, start: 1_500_086_400)
        let a = LegacyRouteObject(locations: walkA.map(LegacyLocationObject.init), totalDistance: 2222, calories: 55)
        let b = LegacyRouteObject(locations: walkB.map(LegacyLocationObject.init), totalDistance: 13_000, calories: 90)
        b.kmLocations = [b.locations[900]]
        b.kmTimes = [walkB[900].timestamp]
        let data = try LegacyArchiveFactory.archive([a, b])
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let names = (plist["$objects"] as? [Any] ?? []).compactMap { ($0 as? [String: Any])?["$classname"] as? String }
        #expect(names.contains("CLLocation") && names.contains("Route"))
        try withStore { store in
            let report = try LegacyArchiveMigrator.migrate(data: data, source: "app.archive", into: store)
            #expect(report.routesMigrated == 2 && report.pointsMigrated == 1400 && report.pointsSkipped == 0)
            let routeA = try store.route(report.routeIDs[0])
            let routeB = try store.route(report.routeIDs[1])
            #expect(routeA.points == walkA.map(RouteCodec.quantize))
            #expect(routeB.points == walkB.map(RouteCodec.quantize))
            #expect(routeB.splits.filter { $0.unit == .kilometre } == [Split(unit: .kilometre, pointIndex: 900, elapsedTime: 900)])
            // No mile splits archived: computed from the points instead.
            #expect(routeB.splits.filter { $0.unit == .mile }.count == Int(RouteMetrics.distance(of: routeB.points) / 1609.344))
            #expect(routeA.metadata.calories == 55)
        }
    }

    @Test func oneRouteTheStoreRefusesMeansNothingIsMigrated() throws {
        var bad = LegacyArchiveFactory.walk(count: 10, start: 1_600_000_000)
        bad[4].altitude = 1e9  // beyond the store's limit
        let good = LegacyRouteObject(locations: LegacyArchiveFactory.walk(count: 50, start: 1_500_000_000).map(LegacyLocationObject.init),
                                     totalDistance: 1, calories: 1)
        let refused = LegacyRouteObject(locations: bad.map(LegacyLocationObject.init), totalDistance: 1, calories: 1)
        let data = try LegacyArchiveFactory.archive([good, refused])
        try withStore { store in
            do {
                _ = try LegacyArchiveMigrator.migrate(data: data, source: "app.archive", into: store)
                Issue.record("an archive with an absurd altitude migrated")
            } catch let error as RouteLogError {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains("route 2") && error.message.contains("point 4"))
            }
            let summaries = try store.summaries()
            #expect(summaries.isEmpty)
        }
    }

    @Test func filesThatAreNotKeyedArchivesAreRefused() throws {
        let notPlist = Data("definitely not a plist".utf8)
        let plainPlist = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0)
        try withStore { store in
            for data in [notPlist, plainPlist] {
                #expect {
                    try LegacyArchiveMigrator.migrate(data: data, source: "x", into: store)
                } throws: { ($0 as? RouteLogError)?.code == .invalidArgument }
            }
            #expect(throws: RouteLogError.self) {
                try LegacyArchiveMigrator.migrate(URL(fileURLWithPath: "/nonexistent/archive"), into: store)
            }
            let summaries = try store.summaries()
            #expect(summaries.isEmpty)
        }
    }
}
