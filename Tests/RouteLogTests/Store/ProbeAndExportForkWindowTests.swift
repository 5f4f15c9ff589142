import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// The two other descriptors RouteLog flocks a directory by: the probe of
/// `RouteStore.writerProcess(at:)` (the store's directory, locked and let go at once)
/// and an export's lock on its directory (held for the whole export). Each is opened
/// with fork() held off and registered with fork_release.c, as a writer's are
/// (LockForkWindowTests): another thread forks right inside the stretch, and the child
/// says whether it still has the descriptor. So does a fork as the probe lets go.
@Suite struct ProbeAndExportForkWindowTests {
    @Test func aChildForkedWhileTheWriterProbeOpensTheStoreKeepsNothing() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let forker = LockForkWindowTests.Forker()
        // The probe lets go of its descriptor microseconds after the open's stretch, and
        // the fork waiting for that stretch runs as it ends: each close waits 5 ms, so
        // the fork lands as the probe stops watching and closes the descriptor, which
        // must be one stretch too (StoreLock.closeWatched).
        let fs = LockForkWindowTests.ForkingOnOpen(forker: forker, pauseBeforeClose: 5_000)
        fs.arm { [path = url.path] opened, flags in opened == path && flags & O_DIRECTORY != 0 }
        #expect(StoreLock.holder(in: url.path, fileSystem: fs) == nil)
        let statuses = forker.reap()
        #expect(statuses == [0], "a child forked while the probe opened the store kept its descriptor: \(statuses)")
        // Nothing holds the store: a writer opens it.
        try RouteStore(at: url).close()
    }

    @Test func aChildForkedWhileAnExportLockIsOpenedKeepsNothing() throws {
        let dir = TemporaryDirectory()
        let out = dir.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let forker = LockForkWindowTests.Forker()
        let fs = LockForkWindowTests.ForkingOnOpen(forker: forker)
        fs.arm { [path = out.path] opened, flags in opened == path && flags & O_DIRECTORY != 0 }
        var held: ExportDirectoryLock? = try ExportDirectoryLock(out, fileSystem: fs)
        let statuses = forker.reap()
        #expect(statuses == [0], "a child forked while the export lock was opened kept its descriptor: \(statuses)")
        withExtendedLifetime(held) {}
        held = nil
        // Let go: the next export takes it without a wait.
        var waited = false
        _ = try ExportDirectoryLock(out, waiting: { waited = true })
        #expect(!waited)
    }
}
