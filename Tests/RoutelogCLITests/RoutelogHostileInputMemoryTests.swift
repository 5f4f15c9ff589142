import Foundation
import Testing
import RouteLogSamples

/// The inputs that once took gigabytes: each generated here (streamed to a temporary
/// file, never stored), given to the built `routelog` in a process of its own, and that
/// process's peak resident memory read from the kernel (wait4; see MeasuredRun for why
/// through a small Python parent). Refused inputs must be
/// refused with the limit named and stay under 100 MiB; time is only printed.
///
/// ROUTELOG_HOSTILE_INPUTS=DIR writes the inputs into DIR and keeps them (to measure
/// another build by hand); ROUTELOG_HOSTILE_EXECUTABLE=PATH runs that build instead.
@Suite(.serialized, .enabled(if: MeasuredRun.python != nil, "python3 is needed to measure routelog's own peak memory"))
struct RoutelogHostileInputMemoryTests {
    static let bound = 100.0   // MiB

    /// Where the inputs go: a kept directory, or a scratch one removed afterwards.
    final class Inputs {
        let directory: URL
        private let scratch: ScratchDirectory?

        init() {
            if let kept = ProcessInfo.processInfo.environment["ROUTELOG_HOSTILE_INPUTS"] {
                directory = URL(fileURLWithPath: kept)
                try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                scratch = nil
            } else {
                scratch = ScratchDirectory("hostile-inputs")
                directory = scratch!.url
            }
        }

        /// The input `name`, made by `make` unless a kept one is already there.
        func file(_ name: String, _ make: (URL) throws -> Void) throws -> URL {
            let url = directory.appendingPathComponent(name)
            if scratch != nil || !FileManager.default.fileExists(atPath: url.path) { try make(url) }
            return url
        }
    }

    func measure(_ arguments: [String], _ inputs: Inputs, _ label: String) throws -> MeasuredRun.Outcome {
        let outcome = try MeasuredRun.run(arguments, scratch: inputs.directory)
        print("\(label): exit \(outcome.status), peak \(String(format: "%.1f", outcome.peakMiB)) MiB, "
                  + "\(String(format: "%.1f", outcome.seconds)) s; \(outcome.stderr.prefix(300))")
        return outcome
    }

    @Test func tenMillionPointsAreRefusedAtTheMillionthInBoundedMemory() throws {
        let inputs = Inputs()
        let gpx = try inputs.file("ten-million-points.gpx") { try HostileInputs.gpx(points: 10_000_000, to: $0) }
        let store = inputs.directory.appendingPathComponent("points.routelog")
        defer { try? FileManager.default.removeItem(at: store) }
        let outcome = try measure(["import", store.path, gpx.path, "--create"], inputs, "10,000,000-point GPX")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("more than 1,000,000 points"))
        // The 1,000,001st point is on line 1,000,004 (the XML declaration, <gpx> and
        // <trk> come first): the reader stopped there, not at the end of the file.
        #expect(outcome.stderr.contains("line 1000004, column"))
        #expect(outcome.peakMiB < Self.bound, "peak \(outcome.peakMiB) MiB")
        let listed = try CLI.run(["ls", store.path])
        #expect(listed.stdout.contains("no routes"))
    }

    @Test func aMillionEmptyTracksAreCountedNotKept() throws {
        let inputs = Inputs()
        let gpx = try inputs.file("million-empty-tracks.gpx") { try HostileInputs.gpx(emptyTracks: 1_000_000, to: $0) }
        let store = inputs.directory.appendingPathComponent("empty.routelog")
        defer { try? FileManager.default.removeItem(at: store) }
        let outcome = try measure(["import", store.path, gpx.path, "--create"], inputs, "1,000,000 empty <trk/>")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.peakMiB < Self.bound, "peak \(outcome.peakMiB) MiB")
        let listed = try CLI.run(["ls", store.path])
        #expect(listed.stdout.contains("1 route"), "\(listed.stdout)")
    }

    @Test func aGigabyteNameIsRefusedAtItsFirstKilobyteInBoundedMemory() throws {
        let inputs = Inputs()
        let gpx = try inputs.file("gigabyte-name.gpx") { try HostileInputs.gpx(nameBytes: 1 << 30, to: $0) }
        let store = inputs.directory.appendingPathComponent("name.routelog")
        defer { try? FileManager.default.removeItem(at: store) }
        let outcome = try measure(["import", store.path, gpx.path, "--create"], inputs, "1 GiB <name>")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("longer than 1,024 bytes"))
        #expect(outcome.stderr.contains("line 3, column"))
        #expect(outcome.peakMiB < Self.bound, "peak \(outcome.peakMiB) MiB")
    }

    @Test func anArchiveNamingAHundredMillionPointsIsRefusedBeforeBuildingOne() throws {
        let inputs = Inputs()
        // 100 routes naming one array of 1,000,000 entries over 50,000 locations: about 9 MB.
        let archive = try inputs.file("shared-locations.archive") {
            try HostileInputs.archive(routes: 100, references: 1_000_000, locations: 50_000, splits: 0, to: $0)
        }
        let store = inputs.directory.appendingPathComponent("shared.routelog")
        defer { try? FileManager.default.removeItem(at: store) }
        let outcome = try measure(["migrate", store.path, archive.path, "--create"], inputs, "shared-location archive")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("more than 1,000,000 locations"))
        #expect(outcome.peakMiB < Self.bound, "peak \(outcome.peakMiB) MiB")
    }

    @Test func anArchiveOfManyPointsAndSplitsMigratesInBoundedMemory() throws {
        let inputs = Inputs()
        // One route of 100,000 locations and 10,000 split times: about 10 MB.
        let archive = try inputs.file("many-splits.archive") {
            try HostileInputs.archive(references: 100_000, locations: 100_000, splits: 10_000, to: $0)
        }
        let store = inputs.directory.appendingPathComponent("splits.routelog")
        defer { try? FileManager.default.removeItem(at: store) }
        let outcome = try measure(["migrate", store.path, archive.path, "--create", "--json"], inputs,
                                  "100,000 x 10,000 archive")
        #expect(outcome.status == 0)
        let report = try parseJSON(outcome.stdout)
        #expect(report["pointsMigrated"] as? Int == 100_000)
        #expect(outcome.peakMiB < Self.bound, "peak \(outcome.peakMiB) MiB")
    }

    @Test func theQuadraticArchiveOfTheIssueMigrates() throws {
        let inputs = Inputs()
        // One route of 400,000 locations and 40,000 split times (once 77.6 s of scanning).
        let archive = try inputs.file("quadratic.archive") {
            try HostileInputs.archive(references: 400_000, locations: 400_000, splits: 40_000, to: $0)
        }
        let store = inputs.directory.appendingPathComponent("quadratic.routelog")
        defer { try? FileManager.default.removeItem(at: store) }
        let outcome = try measure(["migrate", store.path, archive.path, "--create", "--json"], inputs,
                                  "400,000 x 40,000 archive")
        #expect(outcome.status == 0)
        let report = try parseJSON(outcome.stdout)
        #expect(report["pointsMigrated"] as? Int == 400_000)
        let shown = try CLI.run(["show", store.path, "1", "--json"])
        let splits = try #require(try parseJSON(shown.stdout)["splits"] as? [[String: Any]])
        #expect(splits.filter { $0["unit"] as? String == "km" }.count == 40_000)
    }
}
