import Foundation
@_spi(Benchmarks) import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// A durable save against the disk's own pace: RouteLog's durable save of a walk beside
/// a bare `pwrite` + `fdatasync` of the same record bytes to a file on the same disk,
/// one of each a round in random order (a fixed order biased this disk's figures).
struct DurableSaveCost {
    var save: [Double] = []
    var bare: [Double] = []
    var version = 2
    static let goal = 1.3

    static func measure(_ walks: [Route], rounds: Int, version: Int, directory: URL) throws -> DurableSaveCost {
        CodecBenchmarkHooks.writePointBlocks(version: version)
        defer { CodecBenchmarkHooks.writePointBlocks(version: nil) }
        let frames = try walks.map { try EncodedRoute($0).frame }
        RouteLogBytes.shared.discard()
        let store = try RouteStore(at: directory.appendingPathComponent("durable.routelog"))
        defer { try? store.close() }
        let path = directory.appendingPathComponent("bare.bin").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw BenchError("open \(path): errno \(errno)") }
        defer { close(fd) }
        var offset: off_t = 0
        var cost = DurableSaveCost()
        cost.version = version
        var random = SystemRandomNumberGenerator()
        for round in 0..<(rounds + 5) {
            let i = round % walks.count
            var timings: (save: Double, bare: Double) = (0, 0)
            for saveFirst in [Bool.random(using: &random)] {
                for step in (saveFirst ? [true, false] : [false, true]) {
                    let start = Stopwatch.now()
                    if step {
                        _ = try store.save(walks[i])
                        timings.save = Double(Stopwatch.now() - start) / 1e9
                    } else {
                        try frames[i].withUnsafeBytes { bytes in
                            guard pwrite(fd, bytes.baseAddress, bytes.count, offset) == bytes.count else {
                                throw BenchError("pwrite: errno \(errno)")
                            }
                        }
                        try FileIO.dataSync(fd)
                        offset += off_t(frames[i].count)
                        timings.bare = Double(Stopwatch.now() - start) / 1e9
                    }
                }
            }
            guard round >= 5 else { continue }
            cost.save.append(timings.save)
            cost.bare.append(timings.bare)
        }
        return cost
    }

    var ratio: Double { Percentiles(save).value(at: 50) / Percentiles(bare).value(at: 50) }

    func report() -> [String] {
        let s = Percentiles(save), b = Percentiles(bare)
        return ["Durable save (v\(version) blocks) against pwrite + fdatasync of the same record bytes, \(save.count) rounds "
                + "in random order: p50 \(Format.seconds(s.value(at: 50))) vs \(Format.seconds(b.value(at: 50))) = "
                + "\(Format.decimal(ratio, 2))x (p90 \(Format.seconds(s.value(at: 90))) vs \(Format.seconds(b.value(at: 90))))"]
    }
}
