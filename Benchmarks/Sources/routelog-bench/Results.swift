import Foundation

/// Latency of a window of saves, in seconds.
struct LatencyStats: Codable, Sendable {
    var count: Int
    var p50: Double
    var p90: Double
    var p99: Double
    var mean: Double
    var max: Double

    init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let p = Percentiles(samples)
        count = p.count
        p50 = p.value(at: 50)
        p90 = p.value(at: 90)
        p99 = p.value(at: 99)
        mean = p.mean
        max = p.max
    }
}

/// Everything measured for one engine at one checkpoint.
struct CheckpointResult: Codable, Sendable {
    /// The size the store was grown to before the windows of saves (100, 1,000...).
    var checkpoint: Int
    /// Routes and points stored when the queries ran (after the windows of saves).
    var routesStored: Int
    var pointsStored: Int
    /// Seconds spent growing the store from the previous checkpoint.
    var fillSeconds: Double
    var durable: LatencyStats?
    var buffered: LatencyStats?
    /// Durable saves of the real GPX tracks.
    var gpxDurable: LatencyStats?
    /// Buffered saves of the real GPX tracks.
    var gpxBuffered: LatencyStats?
    var bytesOnDisk: Int64
    var bytesPerPoint: Double
    var openSeconds: Double?
    var listSeconds: Double?
    var weeklySeconds: Double?
    var loadSeconds: Double?
    /// Peak resident memory of the engine's process so far, bytes.
    var peakResidentBytes: Int64
}

/// One engine's run, as its child process reports it.
struct EngineReport: Codable, Sendable {
    var engine: String
    var title: String
    var checkpoints: [CheckpointResult]
    /// Resident memory of the harness before the engine started (pool, GPX tracks).
    var harnessResidentBytes: Int64
    /// Why the engine stopped before the last checkpoint, if it did.
    var stopped: String?
    var notes: [String]
    var seconds: Double
}

/// The machine and the run, for the record.
struct MachineInfo: Codable, Sendable {
    var date: String
    var host: String
    var uname: String
    var processors: Int
    var memoryBytes: UInt64
    var cpu: String
    var sqliteVersion: String
    var dataDirectory: String
    var fileSystem: String
    /// 1, 5 and 15-minute load averages when the run started and when it ended: the
    /// machine is shared, and other work makes fsync times noisy.
    var loadAtStart: String
    var loadAtEnd: String?
    /// The processor's pace when the run started and when it ended (``ProcessorPace``).
    var paceAtStart: String?
    var paceAtEnd: String?
}

/// Whether this run met one of the aims (a benchmark reports, it does not assert).
struct AimResult: Codable, Sendable {
    var aim: String
    var measured: String
    var met: Bool?
}

/// How compactly RouteLog stores one real track.
struct TrackBytes: Codable, Sendable {
    var file: String
    var points: Int
    var recordBytes: Int
    var bytesPerPoint: Double { points > 0 ? Double(recordBytes) / Double(points) : 0 }
}

/// The whole run: what `--json` writes.
struct BenchmarkResults: Codable, Sendable {
    var machine: MachineInfo
    var command: String
    var method: [String]
    var checkpoints: [Int]
    var routePoints: Int
    var gpxTracks: [String]
    /// RouteLog's record bytes per point for each real track (its RoutePut frame).
    var gpxTrackBytes: [TrackBytes]?
    var engines: [EngineReport]
    var aims: [AimResult]
    var seconds: Double
}
