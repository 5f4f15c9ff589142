// libFuzzer target: the codec's decoders. The input is decoded as a PointBlock of any
// version (method byte first), as a version 2 block's body (method byte 2 prepended, so
// the fuzzer need not find it), and as a bare version 1 column block. Whatever decodes
// into a valid route must encode, in both versions, and decode back to the same points.
@testable import RouteLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCodec(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let v2Body = [FormatConstants.Compression.columnsV2.rawValue] + bytes
    for points in [try? RouteCodec.decodePoints(bytes[...]), try? RouteCodec.decodePoints(v2Body[...]),
                   try? ColumnCodec.decode(bytes)] {
        // Only points the store would accept are re-encoded (the encoder's contract).
        guard let points, (try? RouteValidation.validate(Route(points: points))) != nil else { continue }
        for version in [1, 2] {
            let again = try? RouteCodec.decodePoints(RouteCodec.encodePoints(points, version: version)[...])
            precondition(again == points, "a decoded block does not survive encode and decode (version \(version))")
        }
    }
    return 0
}
