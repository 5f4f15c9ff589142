import Foundation
import Testing
@testable import RouteLog

/// Settings live in the manifest: they survive reopening, compaction and a reader's
/// refresh; settings a newer version wrote are kept through rewrites; a damaged setting
/// is manifest damage; store-based exports apply the kept privacy zones by default.
@Suite struct StoreSettingsTests {
    static let home = try! PrivacyZone(center: Coordinate(latitude: 47, longitude: 8), radius: 55)

    /// 20 points 10 m apart going north from `home`'s centre.
    static func walkFromHome() -> Route {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        return Route(points: (0..<20).map {
            TrackPoint(latitude: 47 + Double($0) * 0.00009, longitude: 8, timestamp: start + Double($0))
        })
    }

    @Test func settingsSurviveReopenCompactionAndAReadersRefresh() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 * 1024, compaction: .manual))
        #expect(try store.settings() == StoreSettings())
        for i in 0..<6 { try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 200)) }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        try store.updateSettings { $0.privacyZones = [Self.home] }
        #expect(try reader.settings().privacyZones.isEmpty)
        try reader.refresh()
        #expect(try reader.settings().privacyZones == [Self.home])
        try store.delete(RouteID(2))
        try store.compact()
        try store.close()
        let reopened = try RouteStore(at: url)
        #expect(try reopened.settings().privacyZones == [Self.home])
        try reopened.close()
        try reader.close()
    }

    @Test func tooManyZonesOrAReadOnlyHandleChangeNothing() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url)
        let many = try (0...StoreSettings.maximumPrivacyZones).map {
            try PrivacyZone(center: Coordinate(latitude: Double($0) / 10, longitude: 0), radius: 10)
        }
        #expect(throws: RouteLogError.self) { try store.updateSettings { $0.privacyZones = many } }
        #expect(try store.settings() == StoreSettings())
        try store.close()
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(throws: RouteLogError.self) { try reader.updateSettings { $0.privacyZones = [Self.home] } }
        try reader.close()
        #expect(try RouteStore(at: url, options: .init(mode: .readOnly)).settings() == StoreSettings())
    }

    /// Equal zones are kept once, in the order first given; the limit counts distinct zones.
    @Test func theSameZoneTwiceIsKeptOnce() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let away = try PrivacyZone(center: Coordinate(latitude: 46, longitude: 8), radius: 55)
        let again = try PrivacyZone(center: Coordinate(latitude: 47.0, longitude: 8.0), radius: 55.0)
        try store.updateSettings { $0.privacyZones = [Self.home, away, again, Self.home] }
        #expect(try store.settings().privacyZones == [Self.home, away])
        try store.updateSettings { $0.privacyZones.append(Self.home) }
        #expect(try store.settings().privacyZones == [Self.home, away])
        let distinct = try (0..<StoreSettings.maximumPrivacyZones).map {
            try PrivacyZone(center: Coordinate(latitude: Double($0) / 10, longitude: 0), radius: 10)
        }
        try store.updateSettings { $0.privacyZones = distinct + distinct }
        #expect(try store.settings().privacyZones == distinct)
        try store.close()
        #expect(try RouteStore(at: dir.store(), options: .init(mode: .readOnly)).settings().privacyZones == distinct)
    }

    @Test func aSettingOfANewerVersionIsKeptThroughRewrites() throws {
        var settings = StoreSettings(privacyZones: [Self.home])
        settings.unknown = [(tag: 200, value: [1, 2, 3])]
        var manifest = ManifestWriter.empty
        manifest.settings = settings
        let decoded = try Manifest.decode(manifest.encoded(), path: "MANIFEST")
        #expect(decoded.settings == settings && decoded.settings.unknown.count == 1)

        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let path = url.appendingPathComponent(FormatConstants.manifestName).path
        var stored = try Manifest.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        stored.settings.unknown = [(tag: 200, value: [9, 9])]
        try Data(stored.encoded()).write(to: URL(fileURLWithPath: path))
        let store = try RouteStore(at: url)
        try store.updateSettings { $0.privacyZones = [Self.home] }
        try store.close()
        let after = try Manifest.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        #expect(after.settings.privacyZones == [Self.home])
        #expect(after.settings.unknown.map(\.tag) == [200] && after.settings.unknown.first?.value == [9, 9])
    }

    @Test func aSettingRunningPastTheRecordIsManifestDamage() throws {
        var manifest = ManifestWriter.empty
        manifest.settings.unknown = [(tag: 7, value: [1, 2, 3, 4])]
        var bytes = manifest.encoded()
        // Re-frame the payload with the setting's length claiming 100 bytes.
        let payloadStart = FormatConstants.fileHeaderSize + FormatConstants.recordHeaderSize
        var payload = Array(bytes[payloadStart...])
        let lengthAt = payload.count - 4 - 4
        payload[lengthAt] = 100
        bytes = Array(bytes[..<FormatConstants.fileHeaderSize]) + RecordFrame.encode(type: .manifestState, payload: payload)
        #expect {
            try Manifest.decode(bytes, path: "MANIFEST")
        } throws: { error in
            (error as? RouteLogError)?.code == .corrupted && "\(error)".contains("setting 7")
        }
        // A zone out of range is damage too.
        var zone = ManifestWriter.empty
        zone.settings.unknown = [(tag: 1, value: [UInt8](repeating: 0xFF, count: 24))]
        #expect(throws: RouteLogError.self) { try Manifest.decode(zone.encoded(), path: "MANIFEST") }
    }

    @Test func storeExportsApplyTheKeptZonesUnlessToldNotTo() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        defer { try? store.close() }
        let id = try store.save(Self.walkFromHome())
        try store.updateSettings { $0.privacyZones = [Self.home] }
        let trimmed = try RouteExporter.data(for: id, in: store, format: .csv)
        let whole = try RouteExporter.data(for: id, in: store, format: .csv, storedZones: false)
        let lines = { (data: Data) in String(decoding: data, as: UTF8.self).split(separator: "\n").count }
        #expect(lines(whole) == 21)
        #expect(lines(trimmed) < lines(whole) && lines(trimmed) >= 11, "\(lines(trimmed)) lines")
        let out = dir.url.appendingPathComponent("gpx")
        let files = try RouteExporter.exportAll(from: store, to: out, format: .csv)
        #expect(try Data(contentsOf: files[0]) == trimmed)
    }

    @Test func aBackupKeepsTheSettingsFromAWriterAndFromAReader() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url)
        try store.save(Self.walkFromHome())
        try store.updateSettings { $0.privacyZones = [Self.home] }
        let fromWriter = dir.store("writer-backup.routelog")
        try store.backup(to: fromWriter)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        let fromReader = dir.store("reader-backup.routelog")
        try reader.backup(to: fromReader)
        for copy in [fromWriter, fromReader] {
            let opened = try RouteStore(at: copy, options: .init(mode: .readOnly))
            #expect(try opened.settings().privacyZones == [Self.home], "\(copy.lastPathComponent)")
            try opened.close()
        }
        try reader.close()
        try store.close()
    }
}
