import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Symbolic links and FIFOs planted where a store keeps its files, and the victims the
/// links point at (files outside the store whose bytes must never change).
struct PlantedFiles {
    enum Kind: String, CaseIterable, Sendable { case symlink, fifo }

    let dir: TemporaryDirectory
    let store: URL
    private(set) var victims: [(url: URL, bytes: Data)] = []

    init(_ dir: TemporaryDirectory, store: URL) {
        self.dir = dir
        self.store = store
    }

    /// Plants `kind` at `name` in the store (whatever was there is removed first). A link
    /// points at a new victim file holding `victimBytes` (by default, the bytes that were
    /// there, so that following the link would look like a working store).
    mutating func plant(_ kind: Kind, at name: String, victimBytes: Data? = nil) throws {
        let path = store.appendingPathComponent(name).path
        let old = FileManager.default.contents(atPath: path)
        try? FileManager.default.removeItem(atPath: path)
        switch kind {
        case .symlink:
            let victim = dir.url.appendingPathComponent("victim-\(victims.count)-\(name)")
            let bytes = victimBytes ?? old ?? Data("victim \(name)\n".utf8)
            try bytes.write(to: victim)
            victims.append((victim, bytes))
            #expect(symlink(victim.path, path) == 0)
        case .fifo:
            #expect(mkfifo(path, 0o600) == 0)
        }
    }

    /// Every victim still holds exactly its bytes.
    func expectVictimsUnchanged(_ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (url, bytes) in victims {
            #expect(FileManager.default.contents(atPath: url.path) == bytes, "\(note): \(url.lastPathComponent) changed",
                    sourceLocation: sourceLocation)
        }
    }

    /// What is at `name` in the store, without following a link (nil: nothing).
    func type(of name: String) -> mode_t? {
        var info = stat()
        return lstat(store.appendingPathComponent(name).path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// Names at the store's top level that are not regular files (lost/ aside).
    func irregularNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.path).filter { name in
            name != LostAndFound.directoryName && type(of: name) != S_IFREG
        }
    }
}

/// Runs `body` on another thread and gives up waiting after `seconds`: a store that
/// blocks opening a FIFO fails the test instead of hanging the run.
func withinTime<T: Sendable>(_ seconds: Double = 30, _ body: @escaping @Sendable () throws -> T) -> Result<T, any Error>? {
    let done = DispatchSemaphore(value: 0)
    let box = StateLock<Result<T, any Error>?>(nil)
    Thread.detachNewThread {
        let result = Result { try body() }
        box.withLock { $0 = result }
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return box.withLock { $0 }
}
