import Foundation
import Testing
@testable import RouteLog

/// The LZ4 door (Codec/LZ4Block.swift) writes and reads the standard LZ4 block format:
/// another implementation, Python's `lz4.block`, decodes the version 1 point blocks stores hold
/// and encodes blocks the door reads back. Whichever provider the build uses (liblz4
/// here, the Compression framework on Apple platforms), these are the bytes on disk.
@Suite(.tags(.externalReader, .slow)) struct LZ4BlockIndependentDecoderTests {
    static let readerNote: Comment = "needs the Python lz4 package in .build/pyenv (make pyenv)"

    /// Real tracks from Tests/Fixtures/gpx and generated walks of several lengths.
    static func sampleRoutes() throws -> [[TrackPoint]] {
        let folder = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/gpx")
        var routes: [[TrackPoint]] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".gpx") {
            let points = (try? Fixtures.trackPoints(folder.appendingPathComponent(name))) ?? []
            if points.count >= 50 { routes.append(points) }
        }
        for (seed, count) in [(1, 60), (2, 600), (3, 3600), (4, 20_000)] {
            routes.append(Fixtures.sampleWalk(seed: UInt64(seed), points: count).points)
        }
        return routes
    }

    /// The envelope of format-spec.md's PointBlock: compression byte, varint raw length, body.
    static func envelope(_ block: [UInt8]) throws -> (compression: UInt8, rawLength: Int, body: [UInt8]) {
        var rawLength = 0, shift = 0, index = 1
        while true {
            let byte = try #require(block.indices.contains(index) ? block[index] : nil)
            rawLength |= Int(byte & 0x7F) << shift
            index += 1
            if byte < 0x80 { break }
            shift += 7
        }
        return (block[0], rawLength, Array(block[index...]))
    }

    /// The column blocks inside the sample routes' point blocks (the codec's bytes,
    /// before compression), taken out through the door.
    static func columnBlocks() throws -> [[UInt8]] {
        try sampleRoutes().compactMap { points in
            let block = try envelope(RouteCodec.encodePoints(points, version: 1))
            guard block.compression == FormatConstants.Compression.lz4.rawValue else { return nil }
            return LZ4Block.decompress(block.body[...], rawLength: block.rawLength)
        }
    }

    /// Writes each (bytes, size) pair to a file, runs `script` over the pairs' paths
    /// (`path size` in argv), and returns the file the script wrote beside each.
    static func throughPython(_ script: String, _ inputs: [([UInt8], Int)]) throws -> [[UInt8]] {
        let directory = TemporaryDirectory()
        var arguments: [String] = []
        for (number, (bytes, size)) in inputs.enumerated() {
            let url = directory.url.appendingPathComponent("\(number).in")
            try Data(bytes).write(to: url)
            arguments += [url.path, "\(size)"]
        }
        _ = try PythonReaders.script(script, arguments)
        return try inputs.indices.map { number in
            [UInt8](try Data(contentsOf: directory.url.appendingPathComponent("\(number).out")))
        }
    }

    @Test(.enabled(if: PythonReaders.available("lz4.block"), readerNote))
    func storedPointBlocksDecodeWithPythonLZ4() throws {
        let blocks = try Self.sampleRoutes().map { try Self.envelope(RouteCodec.encodePoints($0, version: 1)) }
        let compressed = blocks.filter { $0.compression == FormatConstants.Compression.lz4.rawValue }
        // Real tracks and walks of 600 points or more always shrink under LZ4.
        #expect(compressed.count >= blocks.count - 1, "only \(compressed.count) of \(blocks.count) blocks were compressed")
        let decoded = try Self.throughPython("""
            import sys, lz4.block
            args = sys.argv[1:]
            for path, size in zip(args[0::2], args[1::2]):
                data = open(path, 'rb').read()
                open(path[:-3] + '.out', 'wb').write(lz4.block.decompress(data, uncompressed_size=int(size)))
            """, compressed.map { ($0.body, $0.rawLength) })
        for (block, python) in zip(compressed, decoded) {
            #expect(python.count == block.rawLength)
            #expect(python == LZ4Block.decompress(block.body[...], rawLength: block.rawLength))
        }
    }

    @Test(.enabled(if: PythonReaders.available("lz4.block"), readerNote))
    func blocksFromPythonLZ4DecodeThroughTheDoor() throws {
        // Column blocks as the codec makes them, compressed by Python in its fast and its
        // high-compression modes (different matches, the same format).
        var columns = try Self.columnBlocks()
        columns.append(Array(repeating: 0x41, count: 70_000))
        let inputs = columns.flatMap { [($0, 0), ($0, 1)] }
        let blocks = try Self.throughPython("""
            import sys, lz4.block
            args = sys.argv[1:]
            for path, high in zip(args[0::2], args[1::2]):
                data = open(path, 'rb').read()
                mode = 'high_compression' if high == '1' else 'default'
                open(path[:-3] + '.out', 'wb').write(lz4.block.compress(data, mode=mode, store_size=False))
            """, inputs)
        for ((raw, _), block) in zip(inputs, blocks) {
            #expect(LZ4Block.decompress(block[...], rawLength: raw.count) == raw)
        }
    }

    @Test func theDoorDemandsExactlyTheRawLength() throws {
        let raw = try #require(try Self.columnBlocks().last)
        let block = try #require(LZ4Block.compress(raw))
        #expect(block.count < raw.count)
        #expect(LZ4Block.decompress(block[...], rawLength: raw.count) == raw)
        // A block claiming one byte fewer or more than it holds is refused, not cut or padded.
        #expect(LZ4Block.decompress(block[...], rawLength: raw.count - 1) == nil)
        #expect(LZ4Block.decompress(block[...], rawLength: raw.count + 1) == nil)
        // A block cut short is refused.
        #expect(LZ4Block.decompress(block.dropLast(9), rawLength: raw.count) == nil)
        #expect(LZ4Block.decompress([], rawLength: raw.count) == nil)
        #expect(LZ4Block.decompress(block[...], rawLength: 0) == nil)
    }

    @Test func whatDoesNotShrinkIsNotCompressed() {
        var random = RandomBytes(seed: 9)
        #expect(LZ4Block.compress((0..<4096).map { _ in random.next() }) == nil)
        #expect(LZ4Block.compress([]) == nil)
        #expect(LZ4Block.compress([1, 2, 3]) == nil)
        #expect(LZ4Block.compress(Array(repeating: 7, count: 4096)).map { $0.count < 100 } == true)
    }
}

/// xorshift64*: bytes that LZ4 cannot shrink.
private struct RandomBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt8 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return UInt8(truncatingIfNeeded: (state &* 2_685_821_657_736_338_717) >> 56)
    }
}
