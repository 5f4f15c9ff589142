import Foundation
import Testing
import RouteLog

/// `routelog import` with FIT and TCX files: read by content, `--ignore-crc`, the report.
@Suite struct RoutelogImportFormatsTests {
    static let shared = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
    static let available: Bool = {
        let found = FileManager.default.fileExists(atPath: shared.appendingPathComponent("fit/SOURCES.md").path)
        if !found { print("note: \(shared.path) is absent: the CLI tests of real FIT and TCX files are skipped") }
        return found
    }()
    static func fit(_ name: String) -> String { shared.appendingPathComponent("fit/\(name)").path }
    static func tcx(_ name: String) -> String { shared.appendingPathComponent("tcx/\(name)").path }

    @Test func helpSaysWhatIsReadFromEachFormat() throws {
        let help = try CLI.run(["import", "--help"])
        #expect(help.status == 0)
        for words in ["GPX, TCX and FIT", "first bytes", "--ignore-crc", "Trackpoints without a Position", "timer",
                      "power is dropped", "byte offset"] {
            #expect(help.stdout.contains(words), "import --help says \(words)")
        }
    }

    @Test(.enabled(if: available, "needs ../shared/data/fit and tcx"))
    func filesOfEveryFormatImportAndABadCRCIsRefusedUnlessIgnored() throws {
        let dir = ScratchDirectory()
        let store = dir.path("s.routelog")
        // A FIT file under a GPX name: the content decides.
        let disguised = dir.path("walk.gpx")
        try FileManager.default.copyItem(atPath: Self.fit("tormoder__sdk-activity.fit"), toPath: disguised.path)
        let result = try CLI.run(["import", store.path, disguised.path, Self.fit("tormoder__corrupt-filecrc.fit"),
                                  Self.tcx("tcxparser__test.tcx"), "--create"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("walk.gpx: 1 route, 14 points (ids 1)\n  sport: running (run)\n"))
        #expect(result.stdout.contains("tcxparser__test.tcx: 1 route, 383 points (ids 2)\n  sport: Running (run)\n"
            + "  1 point(s) without a position skipped\n"))
        #expect(result.stderrLines.count == 1)
        let line = try #require(result.stderrLines.first)
        #expect(line.hasPrefix("routelog: Bad FIT CRC at byte 769: the file CRC is 0xB1D5 but the bytes give 0xA1D5"))
        #expect(line.contains("tormoder__corrupt-filecrc.fit at offset 769)") && line.contains("--ignore-crc"))
        // The file differs from sdk-activity.fit only in its CRC: the same activity.
        let again = try CLI.run(["import", store.path, Self.fit("tormoder__corrupt-filecrc.fit"), "--ignore-crc"])
        #expect(again.status == 0 && again.stdout.contains("route 1 is already in the store as route 1: not imported again"))
        let forced = try CLI.run(["import", store.path, Self.fit("tormoder__corrupt-filecrc.fit"), "--ignore-crc",
                                  "--allow-duplicates", "--json"])
        #expect(forced.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(forced.stdout.utf8)) as? [String: Any])
        let file = try #require((json["files"] as? [[String: Any]])?.first)
        #expect(file["format"] as? String == "fit" && file["points"] as? Int == 14 && file["routes"] as? [Int] == [3])
        #expect(file["sports"] as? [String] == ["running"])
        #expect((file["notes"] as? [String])?.contains { $0.hasPrefix("imported despite a bad CRC: the file CRC") } == true)
        let reader = try RouteStore(readOnlyAt: store)
        #expect(try reader.summaries().map(\.pointCount).sorted() == [14, 14, 383])
    }

    @Test func aFileOfNoKnownFormatIsNamedAsSuch() throws {
        let dir = ScratchDirectory()
        let text = dir.path("notes.fit")
        try Data("not a route".utf8).write(to: text)
        let result = try CLI.run(["import", dir.path("s.routelog").path, text.path, "--create"])
        #expect(result.status == 1)
        #expect(result.stderrLines.first?.hasPrefix("routelog: Not a GPX, TCX or FIT file") == true)
    }
}
