// libFuzzer target: the FIT importer (FITImporter.read(data:)): the streaming decoder
// and the messages-to-route builder. CRC mismatches are allowed so that mutated inputs
// reach the route building; whatever routes it reads that the store would accept must
// survive the codec, and the report must add up.
import Foundation
@testable import RouteLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFIT(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var options = RouteImportOptions()
    options.importsDespiteBadCRC = true
    options.maximumPoints = 20_000
    let bytes = Data(bytes: data, count: size)
    guard let imported = try? FITImporter.read(data: bytes, options: options) else { return 0 }
    precondition(imported.report.pointCount == imported.routes.reduce(0) { $0 + $1.points.count },
                 "the report's point count is not the routes'")
    precondition(imported.report.sports.count == imported.routes.count, "one sport entry per route")
    for route in imported.routes where (try? RouteValidation.validate(route)) != nil {
        let points = RouteCodec.quantize(route).points
        let again = try? RouteCodec.decodePoints(RouteCodec.encodePoints(points)[...])
        precondition(again == points, "an imported route does not survive encode and decode")
    }
    return 0
}
