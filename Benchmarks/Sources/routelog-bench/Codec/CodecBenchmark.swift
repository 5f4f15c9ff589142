import Foundation
@_spi(Benchmarks) import RouteLog

/// `routelog-bench --codec`: what a save and a load cost the CPU, how small the point
/// block is against a strong general-purpose reference (xz), and a durable save against
/// the disk's own pace; each against the issue's goals, printed as met / not met.
/// Nothing here asserts: it reports.
enum CodecBenchmark {
    /// "129 µs a load (wall), 0.1 page faults a load".
    static func perOperation(_ seconds: Double, _ loop: (count: Int, faults: Int), _ what: String) -> String {
        let n = Double(max(1, loop.count))
        return "\(Format.seconds(seconds / n)) a \(what) (wall), \(Format.decimal(Double(loop.faults) / n, 1)) page faults a \(what)"
    }

    static func run(_ options: BenchOptions) throws {
        let directory = options.stores.appendingPathComponent("codec")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if !options.keepStores { try? FileManager.default.removeItem(at: directory) } }
        let walks = SaveCost.walks(count: 8, points: options.pointsPerRoute)
        if let seconds = options.codecLoadLoopSeconds {
            let loads = try LoadCost.loop(walks, seconds: seconds, directory: directory)
            print("\(loads.count) loads of \(options.pointsPerRoute)-point walks (v2 blocks) in \(Format.decimal(seconds, 0)) s: "
                  + Self.perOperation(seconds, loads, "load"))
            return
        }
        if let seconds = options.codecSaveLoopSeconds {
            let saved = options.codecLoopGPXFields ? SaveCost.gpxFields(walks) : walks
            let saves = try SaveCost.loop(saved, seconds: seconds, version: options.codecLoopVersion, directory: directory)
            print("\(saves.count) buffered saves (v\(options.codecLoopVersion) blocks) of \(options.pointsPerRoute)-point walks"
                  + (options.codecLoopGPXFields ? " (a GPX file's fields only)" : "")
                  + " in \(Format.decimal(seconds, 0)) s: " + Self.perOperation(seconds, saves, "save"))
            return
        }
        print("RouteLog codec benchmark: routelog-bench \(CommandLine.arguments.dropFirst().joined(separator: " "))")
        print(TableReport.machine(MachineInfo.current(dataDirectory: directory)))
        var goals: [(String, String, Bool?)] = []

        let tracks = trackSet(options)
        let hasXZ = XZReference.available
        if !hasXZ { print("note: the xz command is missing (apt-get install xz-utils; `make bench-codec` does it): no reference") }
        let sizes = try BlockSizes.measure(tracks: tracks, walks: walks, reference: hasXZ)
        print(""); sizes.report().forEach { print($0) }
        if let (worst, met) = sizes.trackGoal {
            goals.append(("v2 within \(BlockSizes.ratioGoal)x of the xz reference on every fixture track",
                          "worst \(Format.decimal(worst, 3))x", met))
        } else {
            goals.append(("v2 within \(BlockSizes.ratioGoal)x of the xz reference on every fixture track", "not measured", nil))
        }
        let walk = sizes.walkBytesPerPoint
        goals.append(("walks, every stored column, at most \(BlockSizes.walkGoal) bytes a point",
                      "v2 worst walk \(Format.decimal(walk.worst, 2)) (mean \(Format.decimal(walk.mean, 2)))", walk.worst <= BlockSizes.walkGoal))

        let save = try SaveCost.measure(walks, saves: options.quick ? 100 : 400, directory: directory)
        print(""); save.report().forEach { print($0) }
        let wholeV2 = SaveCost.median(save.versions[2]!.whole)
        goals.append(("save CPU of a 3,600-point walk at most 120 µs (v2, buffered, everything included)",
                      Format.seconds(wholeV2),
                      wholeV2 <= 120e-6))

        let load = try LoadCost.measure(walks, rounds: options.quick ? 100 : 400, directory: directory)
        print(""); load.report().forEach { print($0) }
        let loadV2 = load.goalLoad
        goals.append(("load a 3,600-point walk at most 60 µs (v2: read, check, decode, build [TrackPoint]; single or back to back, the slower)",
                      Format.seconds(loadV2), loadV2 <= 60e-6))
        goals.append(("decode at least 60 million points a second (v2 block to [TrackPoint])",
                      "\(Format.decimal(load.decodeRate(2) / 1e6, 1)) million", load.decodeRate(2) >= 60e6))

        let floor = PointTypeFloor.measure(walks, rounds: options.quick ? 100 : 400)
        print(""); floor.report(loadGoal: 60e-6).forEach { print($0) }

        let durable = try DurableSaveCost.measure(walks, rounds: options.quick ? 60 : 200, version: 2, directory: directory)
        print(""); durable.report().forEach { print($0) }
        goals.append(("durable save p50 at most \(DurableSaveCost.goal)x a bare pwrite + fdatasync of the same bytes",
                      "\(Format.decimal(durable.ratio, 2))x", durable.ratio <= DurableSaveCost.goal))

        print("\nProcessor pace at the end: \(ProcessorPace.describe()) (the figures above are in µs of this run's pace)")
        print("\nGoals (this run):")
        for (goal, measured, met) in goals {
            print("  [\(met.map { $0 ? "met" : "not met" } ?? "not measured")] \(goal): \(measured)")
        }
    }

    /// The fixture tracks (the goal's), then the shared folder's others, both read with
    /// the bench's GPX loader; `--gpx DIR` replaces the shared folder.
    static func trackSet(_ options: BenchOptions) -> [(GPXTracks.Track, fixture: Bool)] {
        let fixtures = GPXTracks.load(from: URL(fileURLWithPath: "Tests/Fixtures/gpx"))
        let names = Set(fixtures.map(\.file))
        let others = options.gpxDirectory.map { GPXTracks.load(from: $0) }?.filter { !names.contains($0.file) } ?? []
        return fixtures.map { ($0, true) } + others.map { ($0, false) }
    }
}
