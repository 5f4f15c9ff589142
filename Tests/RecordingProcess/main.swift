// routelog-test-recorder STORE SEED POINTS BATCH [--paced]
//
// A process for the recording crash tests to kill: records the sample walk of
// WalkGenerator(seed: SEED) with POINTS points into STORE (resuming the store's
// unfinished recording if there is one), BATCH points at a time, each batch flushed.
// Prints "flushing N" before each flush and "flushed N" once it returned (N: points
// in the recording), then "finished ID". With --paced, it waits before each flush for
// a line on standard input (or its end), so that the one reading the output chooses
// how far the recording gets.
import Foundation
import RouteLog
import RouteLogSamples

/// One line on standard output, written at once (unbuffered: the test reads it live).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count == 5 || (arguments.count == 6 && arguments[5] == "--paced"),
      let seed = UInt64(arguments[2]), let count = Int(arguments[3]), let batch = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: routelog-test-recorder STORE SEED POINTS BATCH [--paced]\n".utf8))
    exit(2)
}
let paced = arguments.count == 6
do {
    let store = try RouteStore(at: URL(fileURLWithPath: arguments[1]))
    var generator = WalkGenerator(seed: seed)
    let walk = generator.walk(points: count, start: Date(timeIntervalSince1970: 1_767_225_600))
    let recorder = try store.unfinishedRecordings().first.map { try store.resumeRecording($0.id, flushPolicy: .manual) }
        ?? store.startRecording(flushPolicy: .manual)
    say("recording \(recorder.id) from \(recorder.pointCount)")
    var next = recorder.pointCount
    while next < walk.points.count {
        let end = min(next + batch, walk.points.count)
        try recorder.append(Array(walk.points[next..<end]))
        for split in walk.splits where (next..<end).contains(split.pointIndex) { try recorder.addSplit(split) }
        say("flushing \(end)")
        if paced { _ = readLine() }
        try recorder.flush()
        say("flushed \(end)")
        next = end
    }
    say("finished \(try recorder.finish(metadata: walk.metadata))")
    try store.close()
} catch {
    FileHandle.standardError.write(Data("routelog-test-recorder: \(error)\n".utf8))
    exit(1)
}
