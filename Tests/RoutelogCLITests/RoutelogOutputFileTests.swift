import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Files the CLI writes on request (`render -o`, `chart -o`, `export`) never go through a symbolic
/// link and never replace or block on a FIFO or a device: such a path is refused with
/// exit 1 naming it, and what is there (and what a link points at) is left as it was.
/// A regular file is replaced whole; `-o -` writes to stdout.
@Suite struct RoutelogOutputFileTests {
    static let victimText = "a file outside the export that must not change\n"

    /// What is at `path` now, without following a link.
    static func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// A FIFO, a link to a victim file and, when the tests run as root, a device node
    /// (the null device's numbers), each at a path of `dir` named `name` + a suffix.
    static func plantHazards(in dir: ScratchDirectory, named name: (String) -> String) throws -> [(path: String, kind: mode_t)] {
        var planted: [(String, mode_t)] = []
        let fifo = dir.path(name("fifo")).path
        #expect(mkfifo(fifo, 0o600) == 0)
        planted.append((fifo, S_IFIFO))
        let victim = dir.path("victim.txt")
        try Data(victimText.utf8).write(to: victim)
        let link = dir.path(name("link")).path
        #expect(symlink(victim.path, link) == 0)
        planted.append((link, S_IFLNK))
        if getuid() == 0 {
            let device = dir.path(name("device")).path
            if mknod(device, S_IFCHR | 0o600, 0x103) == 0 { planted.append((device, S_IFCHR)) }
        }
        return planted
    }

    @Test func renderRefusesALinkAFIFOAndADevice() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let planted = try Self.plantHazards(in: dir) { "out-\($0).svg" }
        for (path, kind) in planted {
            let result = try CLI.run(["render", store.path, "1", "-o", path])
            #expect(result.status == 1, "\(path): \(result.stderr)")
            #expect(result.stderr.contains("does not follow, write into or replace it") && result.stderr.contains(path), "\(result.stderr)")
            #expect(result.stderr.contains("'-o -'"), "the message says how to write into it on purpose")
            #expect(Self.kind(path) == kind, "\(path) is still what it was")
        }
        #expect(try String(contentsOf: dir.path("victim.txt"), encoding: .utf8) == Self.victimText)
    }

    @Test func chartRefusesALinkAndAFIFO() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let planted = try Self.plantHazards(in: dir) { "chart-\($0).svg" }
        for (path, kind) in planted {
            let result = try CLI.run(["chart", store.path, "--by", "month", "-o", path])
            #expect(result.status == 1 && result.stderr.contains("does not follow, write into or replace it"), "\(path): \(result.stderr)")
            #expect(Self.kind(path) == kind, "\(path) is still what it was")
        }
        #expect(try String(contentsOf: dir.path("victim.txt"), encoding: .utf8) == Self.victimText)
        let written = try CLI.run(["chart", store.path, "--by", "month", "-o", dir.path("chart.svg").path])
        #expect(written.status == 0 && Self.kind(dir.path("chart.svg").path) == S_IFREG, "\(written.stderr)")
    }

    @Test func renderReplacesARegularFileAndWritesStdoutOnRequest() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let output = dir.path("route.svg")
        try Data("old".utf8).write(to: output)
        let written = try CLI.run(["render", store.path, "1", "-o", output.path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix("<svg") || String(contentsOf: output, encoding: .utf8).hasPrefix("<?xml"))
        let stdout = try CLI.run(["render", store.path, "1", "-o", "-"])
        #expect(stdout.status == 0 && stdout.stdout.contains("<svg"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).allSatisfy { !$0.contains("routelog-tmp") },
                "no temporary file is left behind")
    }

    @Test func exportRefusesPlantedNamesAndWritesTheOthers() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let out = dir.path("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let victim = dir.path("victim.txt")
        try Data(Self.victimText.utf8).write(to: victim)
        let link = out.appendingPathComponent("route-1.gpx").path
        #expect(symlink(victim.path, link) == 0)
        let linked = try CLI.run(["export", store.path, out.path])
        #expect(linked.status == 1 && linked.stderr.contains("symbolic link"), "\(linked.stderr)")
        #expect(Self.kind(link) == S_IFLNK)
        #expect(try String(contentsOf: victim, encoding: .utf8) == Self.victimText)

        try FileManager.default.removeItem(atPath: link)
        let fifo = out.appendingPathComponent("route-2.gpx").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let piped = try CLI.run(["export", store.path, out.path])
        #expect(piped.status == 1 && piped.stderr.contains("FIFO"), "a FIFO is refused, not opened: \(piped.stderr)")
        #expect(Self.kind(fifo) == S_IFIFO)

        try FileManager.default.removeItem(atPath: fifo)
        let clean = try CLI.run(["export", store.path, out.path])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(Self.kind(out.appendingPathComponent("route-2.gpx").path) == S_IFREG)
    }
}
