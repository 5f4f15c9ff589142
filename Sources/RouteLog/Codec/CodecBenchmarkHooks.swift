import CRouteLogSystem
import Foundation

/// What `routelog-bench --codec` needs from inside the library to time a save and a
/// load stage by stage, and to compare the point-block versions through one store.
/// Not part of the API apps use (`@_spi(Benchmarks) import RouteLog`).
@_spi(Benchmarks) public enum CodecBenchmarkHooks {
    /// Makes every later save, recording flush and compaction of this process write
    /// point blocks of `version` (1 or 2); nil goes back to
    /// the newest (version 2). Both versions are always read.
    public static func writePointBlocks(version: Int?) {
        precondition(version == nil || version == 1 || version == 2, "point-block versions are 1 and 2")
        PointBlock.versionChoice.withLock { $0 = version }
    }

    /// The point block of `points` in `version` (the points must be valid).
    public static func pointBlock(_ points: [TrackPoint], version: Int) -> [UInt8] {
        RouteCodec.encodePoints(points, version: version)
    }

    /// Runs the codec's part of a save of `route` (what ``RouteEncoder`` does for the
    /// store) and returns the nanoseconds of `clock` each stage took: validation,
    /// quantization and statistics in one pass; the RouteShape; the point block.
    /// - Throws: ``RouteLogError`` for a route a save refuses.
    public static func encodeStages(_ route: Route, version: Int, clock: () -> UInt64) throws -> [(stage: String, nanoseconds: UInt64)] {
        let t0 = clock()
        let columns = try RouteEncoder.gather(route)
        let t1 = clock()
        let shape = RouteEncoder.shape(columns)
        let t2 = clock()
        let block = RouteCodec.encodePoints(columns, version: version)
        let t3 = clock()
        withExtendedLifetime((shape, block)) {}
        return [("validate, quantize, measure (one pass)", t1 - t0), ("route shape", t2 - t1),
                ("point block v\(version)", t3 - t2)]
    }

    /// The codec work ``RouteStore/save(_:)`` does for `route` (what the store's
    /// `EncodedRoute` calls), timed whole: the benchmark subtracts it from a whole save
    /// to find the store's own part (record, checksum, write, index). Keep it calling
    /// what the save calls.
    /// - Throws: ``RouteLogError`` for a route a save refuses.
    public static func saveCodecPart(_ route: Route, clock: () -> UInt64) throws -> UInt64 {
        let t0 = clock()
        let encoded = try EncodedRoute(route)
        let t1 = clock()
        withExtendedLifetime(encoded) {}
        return t1 - t0
    }

    /// `out[i] = Double(values[i]) / scale`, as a load divides a stored column
    /// (`routelog_divide_integers`, several quotients an instruction where it can).
    public static func divideStored(_ values: UnsafeBufferPointer<Int64>, by scale: Double, into out: UnsafeMutableBufferPointer<Double>) {
        precondition(out.count >= values.count)
        guard let base = values.baseAddress, let target = out.baseAddress else { return }
        routelog_divide_integers(base, values.count, scale, target)
    }

    /// Decodes `block` in two timed stages, columns then points; returns the points
    /// and the nanoseconds of each (columns is 0 for a version 1 block, decoded whole).
    /// - Throws: ``RouteLogError/Code/corrupted`` for a damaged block.
    public static func decodeStages(_ block: [UInt8], clock: () -> UInt64) throws -> (points: [TrackPoint], columnsNanoseconds: UInt64, pointsNanoseconds: UInt64) {
        do {
            guard block.first == FormatConstants.Compression.columnsV2.rawValue else {
                let t0 = clock()
                let points = try RouteCodec.decodePoints(block[...])
                return (points, 0, clock() - t0)
            }
            let t0 = clock()
            let columns = try PointBlockV2.decodeColumns(block[...])
            let t1 = clock()
            let points = PointBlockV2.points(columns)
            return (points, t1 - t0, clock() - t1)
        } catch let error as ByteReader.Malformed {
            throw RouteLogError(.corrupted, "the point block is damaged: \(error.reason)", offset: Int64(error.offset))
        }
    }
}
