import Foundation
import RouteLog

/// RouteLog itself, through its public API only: `RouteStore` with its default options
/// (durable, 64 MiB segments, automatic compaction), reopened `.buffered` for the
/// buffered window and for growth (bulk `save([Route])` of 64 routes).
final class RouteLogEngine: StorageEngine {
    private let directory: URL
    private var store: RouteStore?
    private var durability: RouteStore.Durability = .full
    private var ids: [RouteID] = []

    init(directory: URL) throws {
        self.directory = directory.appendingPathComponent("routes.routelog")
        try open()
    }

    var isQueryable: Bool { true }
    var diskBytes: Int64 { ProcessStats.diskBytes(at: directory) }

    func open() throws {
        var options = RouteStore.Options()
        options.durability = durability
        store = try RouteStore(at: directory, options: options)
    }

    func close() throws {
        try store?.close()
        store = nil
    }

    func prepare(durable: Bool) throws {
        let wanted: RouteStore.Durability = durable ? .full : .buffered
        guard wanted != durability || store == nil else { return }
        try close()
        durability = wanted
        try open()
    }

    func save(_ route: Route) throws {
        ids.append(try store!.save(route))
    }

    private final class FillOutcome: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var ids: [[RouteID]] = [[], []]
        private(set) var error: (any Error)?

        func record(_ half: Int, _ saved: [RouteID]) { lock.withLock { ids[half] = saved } }
        func fail(_ failure: any Error) { lock.withLock { error = failure } }
    }

    /// Growth saves two halves of each batch from two threads at once: RouteStore is
    /// thread-safe and encodes outside its lock, so growing 100,000 routes takes half the
    /// time on two cores. The timed saves are always one at a time, from one thread.
    func fill(_ routes: [FillRoute]) throws {
        let store = store!
        let middle = routes.count / 2
        let halves = [routes[..<middle].map(\.route), routes[middle...].map(\.route)]
        let outcome = FillOutcome()
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            guard !halves[half].isEmpty else { return }
            do {
                outcome.record(half, try store.save(halves[half]))
            } catch {
                outcome.fail(error)
            }
        }
        if let error = outcome.error { throw error }
        ids += outcome.ids[0] + outcome.ids[1]
    }

    func listSummaries() throws -> Int { try store!.summaries().count }

    func weeklyTotals() throws -> Int { try store!.weeklyTotals(calendar: benchmarkCalendar).count }

    func loadRoute(ordinal: Int) throws -> Int { try store!.route(ids[ordinal]).points.count }
}
