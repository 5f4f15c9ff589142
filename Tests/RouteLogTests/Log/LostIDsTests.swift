import Testing
@testable import RouteLog

/// The manifest's note of ids that may have lost a record to damage (format-spec.md,
/// "Manifest", tag 2): ranges kept ascending and apart, at most 256, read back as
/// written, and anything else refused as manifest damage.
@Suite struct LostIDsTests {
    static func ids(_ ranges: [ClosedRange<UInt64>]) -> LostIDs {
        var ids = LostIDs()
        for range in ranges { ids.insert(range) }
        return ids
    }

    @Test func rangesThatMeetOrTouchBecomeOne() {
        var ids = Self.ids([10...12, 20...20, 14...15])
        #expect(ids.ranges == [10...12, 14...15, 20...20])
        let joined = ids.insert(13...13)
        #expect(joined && ids.ranges == [10...15, 20...20])
        let again = ids.insert(11...14)
        #expect(!again, "noted already")
        let wider = ids.insert(5...25)
        #expect(wider)
        #expect(ids.ranges == [5...25])
        #expect(ids.contains(5) && ids.contains(25) && !ids.contains(4) && !ids.contains(26))
        #expect(LostIDs([7, 3, 4, 9]).ranges == [3...4, 7...7, 9...9])
    }

    @Test func pastTheLimitTheNearestRangesJoinAndNoIdIsLeftOut() {
        let single = (0..<300).map { UInt64($0) * 10 + 1 }
        var ids = LostIDs(single)
        #expect(ids.ranges.count == LostIDs.maximumRanges)
        #expect(single.allSatisfy(ids.contains))
        ids.insert(2_000_000...2_000_000)
        #expect(ids.ranges.count == LostIDs.maximumRanges && ids.contains(2_000_000))
    }

    @Test func theNoteIsReadBackAsWrittenAndAnEmptyOneIsANote() throws {
        for lost in [LostIDs(), Self.ids([1...1, 3...9, 1 << 62...1 << 62])] {
            var manifest = ManifestWriter.empty
            manifest.settings.lostIDs = lost
            let decoded = try Manifest.decode(manifest.encoded(), path: "MANIFEST")
            #expect(decoded.settings.lostIDs == lost)
        }
        #expect(try Manifest.decode(ManifestWriter.empty.encoded(), path: "MANIFEST").settings.lostIDs == nil)
    }

    @Test(arguments: [
        [UInt8](repeating: 1, count: 15),                        // no whole range
        Self.bytes([(5, 4)]),                                     // last before first
        Self.bytes([(0, 4)]),                                     // id 0
        Self.bytes([(1, (1 << 62) + 1)]),                         // past 2^62
        Self.bytes([(5, 9), (1, 2)]),                             // out of order
        Self.bytes([(1, 4), (5, 9)]),                             // touching
    ])
    func aNoteBreakingTheRulesIsManifestDamage(value: [UInt8]) {
        var manifest = ManifestWriter.empty
        manifest.settings.unknown = [(tag: 2, value: value)]
        #expect(throws: RouteLogError.self) { try Manifest.decode(manifest.encoded(), path: "MANIFEST") }
    }

    @Test func aNoteGivenTwiceIsManifestDamage() {
        var manifest = ManifestWriter.empty
        manifest.settings.unknown = [(tag: 2, value: Self.bytes([(1, 1)])), (tag: 2, value: [])]
        #expect(throws: RouteLogError.self) { try Manifest.decode(manifest.encoded(), path: "MANIFEST") }
    }

    static func bytes(_ ranges: [(UInt64, UInt64)]) -> [UInt8] {
        var w = ByteWriter(capacity: 16 * ranges.count)
        for (first, last) in ranges { w.u64(first); w.u64(last) }
        return w.bytes
    }

    /// Not a setting an app chooses: `==` and updateSettings leave it alone.
    @Test func settingsCompareAndChangeWithoutIt() throws {
        var noted = StoreSettings()
        noted.lostIDs = LostIDs([4])
        #expect(noted == StoreSettings())
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        try store.withWriter { w in _ = try w.noteLostIDs(LostIDs([4])) }
        try store.updateSettings { $0.privacyZones = [] }
        try store.updateSettings { $0.privacyZones = [try PrivacyZone(center: Coordinate(latitude: 1, longitude: 2), radius: 50)] }
        try store.close()
        let manifest = try #require(try Manifest.read(in: dir.store().path, fileSystem: PosixFileSystem.shared))
        #expect(manifest.settings.lostIDs == LostIDs([4]) && manifest.settings.privacyZones.count == 1)
    }
}
