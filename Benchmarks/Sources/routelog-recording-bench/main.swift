// routelog-recording-bench [DIRECTORY]
//
// Measures live recording on the file system of DIRECTORY (default: the system's
// temporary directory): the cost of one flush of 10 and of 60 points, durable
// (fdatasync) and buffered, and the bytes on disk of a recorded 3,600-point walk
// against the same walk saved in one go, before and after compaction.
import Foundation
import RouteLog
import RouteLogSamples

let arguments = CommandLine.arguments
let base = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : NSTemporaryDirectory())
    .appendingPathComponent("routelog-recording-bench-\(getpid())", isDirectory: true)
try? FileManager.default.removeItem(at: base)
try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: base) }

var generator = WalkGenerator(seed: 2026)
let walk = generator.walk(points: 3600, start: Date(timeIntervalSince1970: 1_767_225_600))

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func f(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }

/// The cells, each padded to its width (right-aligned for a positive width).
func row(_ cells: [(Any, Int)]) -> String {
    cells.map { value, width in
        let text = "\(value)", pad = String(repeating: " ", count: max(0, abs(width) - text.count))
        return width < 0 ? text + pad : pad + text
    }.joined(separator: "  ")
}

func store(_ name: String, durability: RouteStore.Durability = .full) throws -> RouteStore {
    try RouteStore(at: base.appendingPathComponent(name), options: .init(durability: durability, compaction: .manual))
}

/// Records the walk, `batch` points per explicit flush; returns each flush's time.
func recordWalk(into store: RouteStore, batch: Int) throws -> (flushes: [Double], finish: Double, id: RouteID) {
    let recorder = try store.startRecording(flushPolicy: .manual)
    var times: [Double] = []
    var next = 0
    while next < walk.points.count {
        let end = min(next + batch, walk.points.count)
        try recorder.append(Array(walk.points[next..<end]))
        for split in walk.splits where (next..<end).contains(split.pointIndex) { try recorder.addSplit(split) }
        next = end
        if next < walk.points.count { times.append(try milliseconds { try recorder.flush() }) }
    }
    var id = RouteID(0)
    let finish = try milliseconds { id = try recorder.finish(metadata: walk.metadata) }
    return (times, finish, id)
}

print("RouteLog recording benchmark: a 3,600-point walk (1 Hz, all optional columns but heart rate and cadence)")
print("store directory: \(base.path)")
var load = [Double](repeating: 0, count: 3)
if getloadavg(&load, 3) == 3 {
    print("load average: \(load.map { f($0) }.joined(separator: ", ")) on \(ProcessInfo.processInfo.activeProcessorCount) cores (a durable flush is mostly fdatasync, which other processes' writes slow down)")
}
print("")
print("one flush (append to the buffer excluded; encode + write + sync):")
print(row([("points", 6), ("durability", -10), ("flushes", 7), ("median ms", 9), ("p90 ms", 6), ("mean ms", 7), ("finish ms", 9)]))
for batch in [10, 60] {
    for durability in [RouteStore.Durability.full, .buffered] {
        let name = "flush-\(batch)-\(durability)"
        let s = try store(name, durability: durability)
        _ = try recordWalk(into: s, batch: batch)  // warm up the file and the code paths
        let (times, finish, _) = try recordWalk(into: s, batch: batch)
        let sorted = times.sorted()
        print(row([(batch, 6), (durability, -10), (times.count, 7), (f(sorted[sorted.count / 2]), 9),
                   (f(sorted[sorted.count * 9 / 10]), 6), (f(times.reduce(0, +) / Double(times.count)), 7), (f(finish), 9)]))
        try s.close()
    }
}

print("")
print("bytes on disk (segments + index, headers included; an empty store is \(try emptyBytes()) bytes):")
print(row([("how stored", -28), ("before compaction", 17), ("after compaction", 16), ("vs saved in one go: after (before)", -34)]))
func emptyBytes() throws -> Int64 {
    let s = try store("empty")
    defer { try? s.close() }
    return try s.statistics().totalBytes
}
let saved = try store("saved")
let savedID = try saved.save(walk)
let savedBefore = try saved.statistics().totalBytes
try saved.compact()
let savedAfter = try saved.statistics().totalBytes
print(row([("saved in one go", -28), (savedBefore, 17), (savedAfter, 16)]))
let reference = try saved.route(savedID)
/// The median time of 21 loads of route `id`.
func medianRead(_ store: RouteStore, _ id: RouteID) throws -> Double {
    let times = try (0..<21).map { _ in try milliseconds { _ = try store.route(id) } }.sorted()
    return times[times.count / 2]
}
var readTimes: [(String, Double)] = [("saved in one go", try medianRead(saved, savedID))]
for batch in [10, 60] {
    let s = try store("recorded-\(batch)")
    let (_, _, id) = try recordWalk(into: s, batch: batch)
    let recorded = try s.route(id)
    precondition(recorded == reference, "the recorded route differs from the saved one")
    let before = try s.statistics().totalBytes
    readTimes.append(("recorded, flushed every \(batch), before compaction", try medianRead(s, id)))
    try s.compact()
    let after = try s.statistics().totalBytes
    let compacted = try s.route(id)
    precondition(compacted == reference, "the compacted route differs from the saved one")
    readTimes.append(("recorded, flushed every \(batch), after compaction", try medianRead(s, id)))
    let change = { (a: Int64, b: Int64) in String(format: "%+.2f%%", 100 * Double(a - b) / Double(b)) }
    print(row([("recorded, flushed every \(batch)", -28), (before, 17), (after, 16),
               ("\(change(after, savedAfter)) (\(change(before, savedBefore)))", -34)]))
    try s.close()
}
try saved.close()

print("")
print("loading the route (store.route(id), median of 21, page cache warm):")
for (name, time) in readTimes { print(row([(name, -48), (f(time, 3) + " ms", 10)])) }
