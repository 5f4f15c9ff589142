import Foundation
import RouteLog

/// The reference a point block is measured against (../shared/notes/codec-headroom.md):
/// per route, each of the four basic columns (latitude and longitude at 1e-7 degree,
/// time in ms, elevation in cm, 0 where missing) as zigzag varints of its first or
/// second differences, whichever are fewer bytes, each column compressed on its own by
/// `xz -9e` (the `xz` command, Debian's xz-utils). Its size is the sum of the four.
enum XZReference {
    static let command = ["xz", "-9e", "-c", "-T1"]

    /// True when the `xz` command runs.
    static var available: Bool { (try? run(Data([0]))) != nil }

    static func bytes(of points: [TrackPoint]) throws -> Int {
        let columns: [[Int64]] = [
            points.map { round($0.latitude * 1e7) }, points.map { round($0.longitude * 1e7) },
            points.map { round($0.timestamp.timeIntervalSince1970 * 1000) }, points.map { round(($0.altitude ?? 0) * 100) },
        ]
        var total = 0
        for column in columns {
            let first = varints(differences(column, order: 1)), second = varints(differences(column, order: 2))
            total += try run(Data(second.count < first.count ? second : first)).count
        }
        return total
    }

    private static func round(_ value: Double) -> Int64 { Int64(value.rounded(.toNearestOrAwayFromZero)) }

    /// Differences of `order`, values before the first taken as 0 (the first is whole).
    static func differences(_ values: [Int64], order: Int) -> [Int64] {
        var result = values
        for _ in 0..<order {
            var previous: Int64 = 0
            result = result.map { value in
                defer { previous = value }
                return value &- previous
            }
        }
        return result
    }

    static func varints(_ values: [Int64]) -> [UInt8] {
        var out: [UInt8] = []
        for value in values {
            var v = UInt64(bitPattern: (value << 1) ^ (value >> 63))
            while v >= 0x80 {
                out.append(UInt8(truncatingIfNeeded: v) | 0x80)
                v >>= 7
            }
            out.append(UInt8(v))
        }
        return out
    }

    /// xz's output for `input`.
    private static func run(_ input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Write and read at once: xz's output pipe must not fill while we write.
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("xz exited with \(process.terminationStatus)") }
        return output
    }
}
