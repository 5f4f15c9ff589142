// libFuzzer target: the keyed-archive reader (LegacyArchiveMigrator.read, over the
// in-place binary property list reader). Whatever it reads must be routes the
// importer's limits allow, with splits that point inside their routes.
import Foundation
@testable import RouteLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    // The XML path converts through Foundation, which is not under test here.
    guard size >= 6, data[0] == UInt8(ascii: "b") else { return 0 }
    guard let (routes, _) = try? LegacyArchiveMigrator.read(data: Data(bytes: data, count: size), source: "fuzz") else { return 0 }
    let limits = ImportLimits()
    precondition(routes.count <= limits.routesPerFile)
    precondition(routes.reduce(0) { $0 + $1.points.count } <= limits.pointsPerFile)
    for route in routes {
        precondition(!route.points.isEmpty && route.splits.count <= limits.splitsPerRoute)
        precondition(route.splits.allSatisfy { route.points.indices.contains($0.pointIndex) })
    }
    return 0
}
