// libFuzzer target: the TCX importer (TCXImporter.read(data:), over FoundationXML's SAX
// parser). Whatever routes it reads that the store would accept must survive the
// codec: encoded and decoded, the quantized points come back the same.
import Foundation
@testable import RouteLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTCX(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let imported = try? TCXImporter.read(data: Data(bytes: data, count: size)) else { return 0 }
    precondition(imported.report.pointCount == imported.routes.reduce(0) { $0 + $1.points.count },
                 "the report's point count is not the routes'")
    for route in imported.routes where (try? RouteValidation.validate(route)) != nil {
        let points = RouteCodec.quantize(route).points
        let again = try? RouteCodec.decodePoints(RouteCodec.encodePoints(points)[...])
        precondition(again == points, "an imported route does not survive encode and decode")
    }
    return 0
}
