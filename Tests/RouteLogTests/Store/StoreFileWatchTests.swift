import Foundation
import Testing
@testable import RouteLog

/// The watches themselves, on a plain directory: each wakes its handle for a file
/// growing and for a file replaced by rename (how the manifest is switched), and stops.
@Suite(.timeLimit(.minutes(3))) struct StoreFileWatchTests {
    static var kinds: [StoreFileWatchKind] { [.platform, .polling] }

    @Test(arguments: kinds) func aWatchWakesForGrowthAndRenameAndStops(kind: StoreFileWatchKind) async throws {
        let dir = TemporaryDirectory()
        let calls = StateLock(0)
        let segment = dir.url.appendingPathComponent("seg-000001.rlseg")
        try Data([1, 2, 3]).write(to: segment)
        let watch = kind.start(directory: dir.url.path, identity: DirectoryIdentity(of: dir.url.path),
                               onChange: { calls.withLock { $0 += 1 } }, onGone: {})
        try await Task.sleep(nanoseconds: 150_000_000)  // the poller's first look
        let before = calls.withLock { $0 }
        let handle = try FileHandle(forWritingTo: segment)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([4, 5]))
        try handle.close()
        try await waitFor { calls.withLock { $0 } > before }
        let afterGrowth = calls.withLock { $0 }
        let staged = dir.url.appendingPathComponent("MANIFEST.tmp")
        try Data("new".utf8).write(to: staged)
        #expect(rename(staged.path, dir.url.appendingPathComponent("MANIFEST").path) == 0)
        try await waitFor { calls.withLock { $0 } > afterGrowth }
        watch.stop()
        // A call that began before stop() returned may still end: a second is long
        // enough for it on a busy machine, and a later change must then add none.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let stopped = calls.withLock { $0 }
        try Data([9]).write(to: segment)
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(calls.withLock { $0 } == stopped, "a stopped watch called again")
    }

    /// The watched directory deleted, renamed, or renamed and replaced by a new one at
    /// the same path: the watch says it is gone, once, and calls no more.
    @Test(arguments: kinds) func aWatchSaysWhenItsDirectoryGoes(kind: StoreFileWatchKind) async throws {
        let parent = TemporaryDirectory()
        for removal in ["deleted", "moved", "replaced", "gone before the watch"] {
            let watched = parent.url.appendingPathComponent(removal.filter(\.isLetter))
            try FileManager.default.createDirectory(at: watched, withIntermediateDirectories: false)
            let identity = DirectoryIdentity(of: watched.path)
            #expect(identity != nil)
            let gone = StateLock(0)
            if removal == "gone before the watch" { try FileManager.default.removeItem(at: watched) }
            let watch = kind.start(directory: watched.path, identity: identity, onChange: {}, onGone: { gone.withLock { $0 += 1 } })
            defer { watch.stop() }
            switch removal {
            case "deleted": try FileManager.default.removeItem(at: watched)
            case "moved": #expect(rename(watched.path, watched.path + "-moved") == 0)
            case "replaced":
                #expect(rename(watched.path, watched.path + "-moved") == 0)
                try FileManager.default.createDirectory(at: watched, withIntermediateDirectories: false)
            default: break
            }
            try await waitFor { gone.withLock { $0 } > 0 }
            try await Task.sleep(nanoseconds: 300_000_000)
            #expect(gone.withLock { $0 } == 1, "\(removal)")
        }
    }

    #if os(Linux)
    /// On Linux the platform watch is inotify, not the fallback.
    @Test func linuxWatchesWithInotify() throws {
        let dir = TemporaryDirectory()
        let watch = StoreFileWatchKind.platform.start(directory: dir.url.path, identity: nil, onChange: {}, onGone: {})
        defer { watch.stop() }
        #expect(watch is InotifyStoreWatch)
        #expect(InotifyStoreWatch(directory: dir.url.appendingPathComponent("missing").path, identity: nil, onChange: {}, onGone: {}) == nil)
    }
    #endif

    private func waitFor(_ condition: @Sendable () -> Bool) async throws {
        while !condition() { try await Task.sleep(nanoseconds: 2_000_000) }
    }
}
