import Foundation
@_spi(Benchmarks) import RouteLog

/// Bytes a point of the point block, version 1 against version 2: the real tracks'
/// four basic fields against the xz reference, route by route, and every stored column
/// of the generated walks.
struct BlockSizes {
    struct TrackRow {
        var file: String
        var fixture: Bool
        var points: Int
        var v1: Int, v2: Int
        var reference: Int?
        var decodeRate: Double
        var ratio: Double? { reference.map { Double(v2) / Double($0) } }
    }

    var tracks: [TrackRow] = []
    var walks: [(v1: Int, v2: Int, points: Int)] = []
    static let ratioGoal = 1.15, walkGoal = 5.5

    static func measure(tracks: [(GPXTracks.Track, fixture: Bool)], walks: [Route], reference: Bool) throws -> BlockSizes {
        var sizes = BlockSizes()
        for (track, fixture) in tracks {
            let basic = track.route.points.map {
                TrackPoint(latitude: $0.latitude, longitude: $0.longitude, timestamp: $0.timestamp, altitude: $0.altitude)
            }
            let v2 = CodecBenchmarkHooks.pointBlock(basic, version: 2)
            let decode = Stopwatch.median(repeats: 20) { _ = try? RouteCodec.points(decoding: v2) }
            sizes.tracks.append(TrackRow(
                file: track.file, fixture: fixture, points: basic.count,
                v1: CodecBenchmarkHooks.pointBlock(basic, version: 1).count, v2: v2.count,
                reference: reference ? try XZReference.bytes(of: basic) : nil, decodeRate: Double(basic.count) / decode))
        }
        sizes.walks = walks.map { walk in
            (CodecBenchmarkHooks.pointBlock(walk.points, version: 1).count,
             CodecBenchmarkHooks.pointBlock(walk.points, version: 2).count, walk.points.count)
        }
        return sizes
    }

    /// The worst ratio over the fixture tracks, and whether every one is within the goal.
    var trackGoal: (worst: Double, met: Bool)? {
        let ratios = tracks.filter(\.fixture).compactMap(\.ratio)
        guard let worst = ratios.max() else { return nil }
        return (worst, worst <= Self.ratioGoal)
    }

    var walkBytesPerPoint: (mean: Double, worst: Double) {
        let values = walks.map { Double($0.v2) / Double($0.points) }
        return (values.reduce(0, +) / Double(max(1, values.count)), values.max() ?? .nan)
    }

    static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    func report() -> [String] {
        func perPoint(_ bytes: Int, _ points: Int) -> String { Format.decimal(Double(bytes) / Double(points), 2) }
        var lines = ["Point-block bytes a point, real tracks (latitude, longitude, time, elevation), against the xz reference "
                     + "(\(XZReference.command.joined(separator: " ")) of each column's varints of 1st or 2nd differences):",
                     "  track                                       points     v1     v2  xz ref  v2/ref  goal <= \(Self.ratioGoal)x  v2 decode"]
        for row in tracks {
            let name = (row.file + (row.fixture ? "" : " (shared only)")).padding(toLength: 42, withPad: " ", startingAt: 0)
            let ref = row.reference.map { perPoint($0, row.points) } ?? "-"
            let ratio = row.ratio.map { Format.decimal($0, 3) } ?? "-"
            let met = row.ratio.map { $0 <= Self.ratioGoal ? "met" : "not met" } ?? "no xz"
            lines.append("  \(name) \(Self.right(String(row.points), 7)) \(Self.right(perPoint(row.v1, row.points), 6)) "
                         + "\(Self.right(perPoint(row.v2, row.points), 6)) \(Self.right(ref, 7)) "
                         + "\(Self.right(ratio, 7))  \(met.padding(toLength: 13, withPad: " ", startingAt: 0)) "
                         + "\(Format.decimal(row.decodeRate / 1e6, 1)) M points/s")
        }
        let v1 = walks.reduce(0) { $0 + $1.v1 }, v2 = walks.reduce(0) { $0 + $1.v2 }, points = walks.reduce(0) { $0 + $1.points }
        lines.append("Walks (\(walks.count) generated \(Format.count(walks.first?.points ?? 0))-point walks, every stored column): "
                     + "v1 \(perPoint(v1, points)), v2 \(perPoint(v2, points)) bytes a point (worst walk "
                     + "\(Format.decimal(walkBytesPerPoint.worst, 2)))")
        return lines
    }
}
