import Foundation
import RouteLog

/// RouteLog itself. Waits for RouteStore on main; until then it refuses to run.
final class RouteLogEngine: StorageEngine {
    init(directory: URL) throws { throw BenchError("RouteStore is not in this build yet") }
    var isQueryable: Bool { true }
    var diskBytes: Int64 { 0 }
    func prepare(durable: Bool) throws {}
    func save(_ route: Route) throws {}
    func fill(_ routes: [FillRoute]) throws {}
    func close() throws {}
    func open() throws {}
    func listSummaries() throws -> Int { 0 }
    func weeklyTotals() throws -> Int { 0 }
    func loadRoute(ordinal: Int) throws -> Int { 0 }
}
