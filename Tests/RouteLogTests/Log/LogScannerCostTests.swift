import Foundation
import Testing
@testable import RouteLog

/// What a scan costs on hostile files (format-spec.md, "Bounds on hostile files"): the
/// bytes it reads, checksums and searches for a sync marker grow with the file's size,
/// not with the number of candidate frames in it times their claimed lengths.
@Suite(.tags(.slow)) struct LogScannerCostTests {
    /// A file's bytes for a size, and the format version to scan it as.
    struct Input: Sendable {
        let name: String
        let version: UInt16
        let bytes: @Sendable (Int) -> [UInt8]
    }

    static let inputs: [Input] = [
        Input(name: "zeros", version: 2) { [UInt8](repeating: 0, count: $0) },
        Input(name: "sync markers", version: 2) { markers($0) },
        Input(name: "headers claiming 1 MiB", version: 2) { claims($0, length: { _ in 1 << 20 }) },
        Input(name: "headers claiming 1 MiB, version 1", version: 1) { claims($0, length: { _ in 1 << 20 }) },
        Input(name: "headers claiming the rest of the file, version 1", version: 1) { n in
            claims(n, length: { n - $0 - 17 })
        },
        Input(name: "random bytes and records", version: 2) { interleaved($0, seed: 1, version: 2) },
        Input(name: "random bytes and records, version 1", version: 1) { interleaved($0, seed: 2, version: 1) },
    ]

    /// Doubling the file at most about doubles each figure of work, and no figure is
    /// more than a small multiple of the file's size.
    @Test(arguments: inputs.indices)
    func workGrowsLinearly(_ i: Int) throws {
        let input = Self.inputs[i]
        let n = 2 * LogScanner.windowSize
        let small = try LogScannerTests.scan(input.bytes(n), version: input.version).work
        let large = try LogScannerTests.scan(input.bytes(2 * n), version: input.version).work
        let figures = "\(input.name): \(small) for \(n) bytes, \(large) for \(2 * n)"
        for figure in [\LogScanner.Work.bytesRead, \.bytesChecksummed, \.bytesSearched, \.shifts] {
            #expect(Double(large[keyPath: figure]) <= 2.2 * Double(small[keyPath: figure]) + 64, "\(figures)")
        }
        #expect(large.bytesRead <= 2 * n, "\(figures)")
        #expect(large.bytesChecksummed <= 4 * 2 * n && large.bytesSearched <= 3 * 2 * n, "\(figures)")
        #expect(large.shifts <= 2 * n / 16, "\(figures)")
    }

    static func markers(_ n: Int) -> [UInt8] {
        [[UInt8]](repeating: FormatConstants.recordSync, count: n / 4).flatMap { $0 }
    }

    /// A frame header every 16 bytes, each claiming `length(offset)` bytes and failing
    /// its checksum.
    static func claims(_ n: Int, length: (Int) -> Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(n)
        while bytes.count + 16 <= n {
            var claim = ForgedFrame([])
            claim.length = UInt32(max(0, min(length(bytes.count), FormatConstants.maxPayloadLength)))
            claim.checksummed = false
            bytes += claim.bytes
        }
        return bytes
    }

    /// Random bytes with a real record every few KiB; version 1 payloads hold sync markers.
    static func interleaved(_ n: Int, seed: UInt64, version: UInt16) -> [UInt8] {
        var g = SeededGenerator(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(n + 70_000)
        while bytes.count < n {
            bytes += (0..<Int.random(in: 0...4096, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            var payload = (0..<Int.random(in: 0...(Bool.random(using: &g) ? 200 : 60_000), using: &g)).map { _ in
                UInt8.random(in: 0...255, using: &g)
            }
            if payload.count > 8 {
                for _ in 0..<Int.random(in: 0...3, using: &g) {
                    let at = Int.random(in: 0...(payload.count - 4), using: &g)
                    payload.replaceSubrange(at..<(at + 4), with: FormatConstants.recordSync)
                }
            }
            bytes += version >= 2 ? RecordFrame.encode(type: .routePut, payload: payload) : ForgedFrame(payload).bytes
        }
        return Array(bytes.prefix(n))
    }
}
