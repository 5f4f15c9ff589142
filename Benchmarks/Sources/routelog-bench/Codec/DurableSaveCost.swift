import Foundation
@_spi(Benchmarks) import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// A durable save against the disk's own pace: RouteLog's durable save of a walk beside
/// a bare `pwrite` + `fdatasync` of the same record bytes to a file on the same disk,
/// one of each a round in random order (a fixed order biased this disk's figures).
///
/// A third writer, in the same rounds, writes the same bytes over space written and
/// synced before the rounds began, so that its sync has no file size or block map to
/// update: what an appending log could sync at if it laid its space out ahead (a
/// segment grown in zero-filled steps). It is measured, not a goal: RouteLog's segments
/// grow by their appends.
struct DurableSaveCost {
    var save: [Double] = []
    var bare: [Double] = []
    var prewritten: [Double] = []
    var version = 2
    static let goal = 1.3

    private enum Writer: CaseIterable { case routeLog, bare, prewritten }

    static func measure(_ walks: [Route], rounds: Int, version: Int, directory: URL) throws -> DurableSaveCost {
        CodecBenchmarkHooks.writePointBlocks(version: version)
        defer { CodecBenchmarkHooks.writePointBlocks(version: nil) }
        let frames = try walks.map { try EncodedRoute($0).frame }
        RouteLogBytes.shared.discard()
        let store = try RouteStore(at: directory.appendingPathComponent("durable.routelog"))
        defer { try? store.close() }
        let bareFile = try openFile(directory.appendingPathComponent("bare.bin").path)
        defer { close(bareFile) }
        let prewrittenFile = try openFile(directory.appendingPathComponent("prewritten.bin").path)
        defer { close(prewrittenFile) }
        // The space every round will write over, written and synced now.
        let total = (0..<(rounds + 5)).reduce(0) { $0 + frames[$1 % walks.count].count }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        while filled < total {
            let n = min(zeros.count, total - filled)
            guard pwrite(prewrittenFile, zeros, n, off_t(filled)) == n else { throw BenchError("pwrite: errno \(errno)") }
            filled += n
        }
        try FileIO.sync(prewrittenFile)
        var offset: off_t = 0
        var cost = DurableSaveCost()
        cost.version = version
        var random = SystemRandomNumberGenerator()
        for round in 0..<(rounds + 5) {
            let i = round % walks.count
            var timings: [Writer: Double] = [:]
            for writer in Writer.allCases.shuffled(using: &random) {
                let start = Stopwatch.now()
                switch writer {
                case .routeLog: _ = try store.save(walks[i])
                case .bare: try write(frames[i], to: bareFile, at: offset)
                case .prewritten: try write(frames[i], to: prewrittenFile, at: offset)
                }
                timings[writer] = Double(Stopwatch.now() - start) / 1e9
            }
            offset += off_t(frames[i].count)
            guard round >= 5 else { continue }
            cost.save.append(timings[.routeLog]!)
            cost.bare.append(timings[.bare]!)
            cost.prewritten.append(timings[.prewritten]!)
        }
        return cost
    }

    private static func openFile(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw BenchError("open \(path): errno \(errno)") }
        return fd
    }

    private static func write(_ frame: [UInt8], to fd: Int32, at offset: off_t) throws {
        try frame.withUnsafeBytes { bytes in
            guard pwrite(fd, bytes.baseAddress, bytes.count, offset) == bytes.count else {
                throw BenchError("pwrite: errno \(errno)")
            }
        }
        try FileIO.dataSync(fd)
    }

    var ratio: Double { Percentiles(save).value(at: 50) / Percentiles(bare).value(at: 50) }

    func report() -> [String] {
        let s = Percentiles(save), b = Percentiles(bare), p = Percentiles(prewritten)
        return ["Durable save (v\(version) blocks) against pwrite + fdatasync of the same record bytes, \(save.count) rounds "
                + "in random order: p50 \(Format.seconds(s.value(at: 50))) vs \(Format.seconds(b.value(at: 50))) = "
                + "\(Format.decimal(ratio, 2))x (p90 \(Format.seconds(s.value(at: 90))) vs \(Format.seconds(b.value(at: 90))))",
                "  the same bytes over space written and synced ahead (no size or block map to sync; not how RouteLog writes): "
                + "p50 \(Format.seconds(p.value(at: 50))), \(Format.decimal(b.value(at: 50) / p.value(at: 50), 2))x faster than appending; "
                + "RouteLog's durable save is \(Format.decimal(s.value(at: 50) / p.value(at: 50), 2))x it"]
    }
}
