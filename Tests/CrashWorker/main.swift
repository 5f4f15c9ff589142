// The writer the kill test (Tests/RouteLogTests/KillTests.swift) runs and kills with
// SIGKILL: it saves, deletes, edits and compacts routes and records routes in chunks
// (flushed, then finished, discarded or left unfinished) in a loop with durability on,
// and tells its parent about each change on stdout, one line before ("begin ...") and
// one once it returned ("ack ..."). A test tool only: not in the package's products.
//
//     routelog-crash-worker STORE SEED FIRST-ROUTE-SEED
import Foundation
import RouteLog
import RouteLogSamples
#if canImport(Glibc)
import Glibc
#endif

/// The route for `seed`; KillTests.route(seed:) must make the same one.
func route(seed: UInt64) -> Route {
    var generator = WalkGenerator(seed: seed)
    return generator.walk(points: 20 + Int(seed % 180),
                          start: Date(timeIntervalSince1970: 1_767_225_600 + Double(seed % 5000) * 3600))
}

/// Writes a whole line to stdout at once, unbuffered, so the parent never misses an
/// acknowledgement that was made before the kill.
func tell(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; exit(3) }
        done += n
    }
}

struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let seed = UInt64(arguments[2]), var nextRouteSeed = UInt64(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: routelog-crash-worker STORE SEED FIRST-ROUTE-SEED\n".utf8))
    exit(2)
}
var rng = SplitMix(state: seed)
do {
    let store = try RouteStore(at: URL(fileURLWithPath: arguments[1]), options: .init(
        durability: .full, segmentSizeLimit: 32 * 1024,
        compaction: .automatic(minDeadFraction: 0.4, minDeadBytes: 48 * 1024)))
    var live = try store.summaries().map(\.id)
    tell("ready \(live.count)")
    // Recordings an earlier run left unfinished: some are resumed and finished, the
    // others discarded.
    for recording in try store.unfinishedRecordings() {
        if rng.below(2) == 0 || recording.points.isEmpty {
            tell("begin discard \(recording.id)")
            try store.discardRecording(recording.id)
            tell("ack discard \(recording.id)")
        } else {
            let recorder = try store.resumeRecording(recording.id, flushPolicy: .manual)
            tell("begin finish \(recording.id)")
            try recorder.finish()
            live.append(recording.id)
            tell("ack finish \(recording.id)")
        }
    }
    var editNumber = rng.next() % 1_000_000
    while true {
        let dice = rng.below(100)
        if dice < 35 || live.isEmpty {
            let s = nextRouteSeed
            nextRouteSeed += 1
            tell("begin save \(s)")
            let id = try store.save(route(seed: s))
            live.append(id)
            tell("ack save \(s) \(id)")
        } else if dice < 45 {
            // A recording: chunks of 25 points, each flushed (durable), then finished,
            // discarded, or left unfinished for the next run.
            let s = nextRouteSeed
            nextRouteSeed += 1
            tell("begin start \(s)")
            let recorder = try store.startRecording(metadata: RouteMetadata(name: "rec \(s)"), flushPolicy: .manual)
            tell("ack start \(s) \(recorder.id)")
            let points = route(seed: s).points
            let end = rng.below(5) == 0 ? points.count / 2 : points.count
            for start in stride(from: 0, to: end, by: 25) {
                let upTo = min(start + 25, end)
                try recorder.append(Array(points[start..<upTo]))
                tell("begin chunk \(recorder.id) \(upTo)")
                try recorder.flush()
                tell("ack chunk \(recorder.id) \(upTo)")
            }
            if end == points.count {
                if rng.below(8) == 0 {
                    tell("begin discard \(recorder.id)")
                    try recorder.discard()
                    tell("ack discard \(recorder.id)")
                } else {
                    tell("begin finish \(recorder.id)")
                    try recorder.finish()
                    live.append(recorder.id)
                    tell("ack finish \(recorder.id)")
                }
            }
        } else if dice < 52 {
            let seeds = [nextRouteSeed, nextRouteSeed + 1]
            nextRouteSeed += 2
            tell("begin batch \(seeds[0]) \(seeds[1])")
            let ids = try store.save(seeds.map { route(seed: $0) })
            live += ids
            tell("ack batch \(seeds[0]) \(seeds[1]) \(ids[0]) \(ids[1])")
        } else if dice < 72 {
            let id = live.remove(at: rng.below(live.count))
            tell("begin delete \(id)")
            try store.delete(id)
            tell("ack delete \(id)")
        } else if dice < 95 {
            let id = live[rng.below(live.count)]
            editNumber += 1
            tell("begin edit \(id) \(editNumber)")
            try store.edit(id, RouteEdit(name: "edit \(editNumber)", calories: Double(editNumber % 997)))
            tell("ack edit \(id) \(editNumber)")
        } else {
            tell("begin compact")
            try store.compact()
            tell("ack compact")
        }
    }
} catch {
    tell("error \(error)")
    exit(1)
}
