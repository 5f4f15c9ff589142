import Foundation
import Testing
@testable import RouteLog

/// Buffered saves are answered before they are synced: ``RouteStore/close()`` is what
/// makes them durable, and it throws when it cannot. A sync of them that failed
/// earlier without anyone hearing of it (the one every 1,024 held index records, which
/// `StoreWriter.append` makes with `try?`, or a background compaction's or index
/// rewrite's) must not let close() return as if they were durable.
@Suite struct BufferedSyncFailureTests {
    static let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 1 << 20, compaction: .manual).withoutQuietSync()

    static func route(_ i: Int) -> Route { Fixtures.sampleWalk(seed: UInt64(i), points: 3) }

    /// A closed store of 3 routes.
    static func template(_ dir: TemporaryDirectory) throws -> URL {
        let url = dir.store("template.routelog")
        let store = try RouteStore(at: url, options: options)
        for i in 0..<3 { try store.save(route(i)) }
        try store.close()
        return url
    }

    /// How many calls of `kind` opening a copy of `template` makes.
    static func callsAtOpen(_ kind: InterceptingFileSystem.Kind, _ template: URL, _ dir: TemporaryDirectory) throws -> Int {
        let copy = dir.store("count.routelog")
        try FileManager.default.copyItem(at: template, to: copy)
        let fs = InterceptingFileSystem()
        let store = try RouteStore(at: copy, options: options, fileSystem: fs)
        let n = fs.count(kind)
        try store.close()
        return n
    }

    /// The segment sync that the 1,024th held index record brings fails (EIO): every
    /// save is answered, as buffered saves are; close() must not then return normally,
    /// as if they were durable.
    @Test func close_reports_a_failed_sync_of_the_held_saves() throws {
        let dir = TemporaryDirectory()
        let template = try Self.template(dir)
        let opened = try Self.callsAtOpen(.syncData, template, dir)
        let url = dir.store()
        try FileManager.default.copyItem(at: template, to: url)
        let fs = InterceptingFileSystem(fault: .init(.kind(.syncData, opened + 1), errno: EIO))
        let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
        for i in 0..<IndexFile.syncInterval { try store.save(Self.route(100 + i)) }
        #expect(fs.failures.map(\.kind) == [.syncData], "the sync at the 1,024th save failed")
        #expect(throws: RouteLogError.self, "close() after the buffered saves' sync failed") { try store.close() }
    }

    /// The same, through a background compaction's sync of buffered saves (its error
    /// only goes to statistics()).
    @Test func close_reports_a_failed_sync_of_a_background_compaction() throws {
        let dir = TemporaryDirectory()
        let template = try Self.template(dir)
        let opened = try Self.callsAtOpen(.syncData, template, dir)
        let url = dir.store()
        try FileManager.default.copyItem(at: template, to: url)
        let fs = InterceptingFileSystem(fault: .init(.kind(.syncData, opened + 1), errno: EIO))
        let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
        for i in 0..<5 { try store.save(Self.route(100 + i)) }
        // What the scheduler runs in the background, its error dropped.
        _ = try? BackgroundIndexRewrite(store: store).run(evenIfFew: true)
        #expect(fs.failures.map(\.kind) == [.syncData])
        #expect(throws: RouteLogError.self, "close() after the buffered saves' sync failed") { try store.close() }
    }

    /// A settings change whose manifest switch is uncertain (the rename failed) stops
    /// the writer; close() must still sync the buffered saves made before it (the
    /// segment is fine), or say it did not.
    @Test func close_syncs_buffered_saves_after_an_uncertain_settings_change() throws {
        let dir = TemporaryDirectory()
        let template = try Self.template(dir)
        let opened = try Self.callsAtOpen(.rename, template, dir)
        let url = dir.store()
        try FileManager.default.copyItem(at: template, to: url)
        let fs = InterceptingFileSystem(fault: .init(.kind(.rename, opened + 1), errno: EIO))
        let trace = try fs.trace(url)
        let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
        for i in 0..<5 { try store.save(Self.route(100 + i)) }
        #expect(throws: RouteLogError.self) { try store.updateSettings { $0.privacyZones = [try PrivacyZone(center: Coordinate(latitude: 45, longitude: 9), radius: 200)] } }
        var closed = true
        do { try store.close() } catch { closed = false }
        guard closed else { return }  // close() said the saves may not be durable
        // close() returned normally: the 5 saves must be on disk (synced).
        let model = CrashStateModel(trace)
        let crashed = dir.store("crashed.routelog")
        try materialize(model.filesSyncedOnly(at: model.operations.count), at: crashed)
        let reopened = try RouteStore(at: crashed, options: .init(compaction: .manual))
        defer { try? reopened.close() }
        #expect(try reopened.count == 8, "close() returned, yet a power loss loses the buffered saves")
    }
}
