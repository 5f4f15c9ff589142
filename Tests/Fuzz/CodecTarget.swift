// libFuzzer target: the codec's decoder. The input is decoded as a PointBlock
// (compression envelope, LZ4) and as a bare column block; whatever decodes into a
// valid route must encode and decode back to the same points.
@testable import RouteLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCodec(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for points in [try? RouteCodec.decodePoints(bytes[...]), try? ColumnCodec.decode(bytes)] {
        // Only points the store would accept are re-encoded (the encoder's contract).
        guard let points, (try? RouteValidation.validate(Route(points: points))) != nil else { continue }
        let again = try? RouteCodec.decodePoints(RouteCodec.encodePoints(points)[...])
        precondition(again == points, "a decoded block does not survive encode and decode")
    }
    return 0
}
