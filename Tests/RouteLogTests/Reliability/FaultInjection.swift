import Foundation
import Testing
@testable import RouteLog

/// What a store must hold: each live route, exactly.
struct ExpectedStore {
    var routes: [RouteID: (route: Route, summary: RouteSummary)] = [:]
    var deleted: Set<RouteID> = []
    /// Unfinished recordings, as ``RouteStore/unfinishedRecordings()`` lists them.
    var recordings: [UnfinishedRecording] = []

    init(_ store: RouteStore, deleted: Set<RouteID> = []) throws {
        for summary in try store.summaries() { routes[summary.id] = (try store.route(summary.id), summary) }
        self.deleted = deleted
        recordings = try store.unfinishedRecordings()
    }

    /// Problems found in `store`, as sentences (empty when it matches).
    func mismatches(in store: RouteStore) -> [String] {
        var problems: [String] = []
        guard let listed = try? store.summaries() else { return ["summaries() failed"] }
        let ids = Set(listed.map(\.id))
        if ids != Set(routes.keys) {
            problems.append("ids \(ids.sorted()) instead of \(routes.keys.sorted())")
        }
        for (id, expected) in routes {
            // Each store gives a route its own random uuid: the stores compared here may
            // be two that did the same changes.
            if (try? store.route(id))?.withoutUUID != expected.route.withoutUUID { problems.append("route \(id) differs or is missing") }
            // A recorded route's stats and preview, unknown until compaction merges it
            // into one record, may be known afterwards; nothing else may change.
            var got = (try? store.summary(id))?.withoutUUID
            if expected.summary.stats == nil { got?.stats = nil }
            if expected.summary.preview == nil { got?.preview = nil }
            if got != expected.summary.withoutUUID { problems.append("summary \(id) differs") }
        }
        for id in deleted where ids.contains(id) { problems.append("deleted route \(id) is back") }
        if listed.count != ids.count { problems.append("a route is listed twice") }
        do {
            let got = try store.unfinishedRecordings()
            if got != recordings {
                problems.append("unfinished recordings \(got.map { "\($0.id): \($0.points.count) points" }) instead of \(recordings.map { "\($0.id): \($0.points.count) points" })")
            }
        } catch {
            problems.append("unfinished recordings do not load: \(error)")
        }
        return problems
    }
}

/// Runs `operation` on a store opened on a copy of `template` whose file system crashes
/// before its 1st, 2nd, 3rd... changing file operation, until a run completes without a
/// crash. After each run it reopens the copy with the real file system, hands it to
/// `check` with the crash point and whether the operation returned (so was
/// acknowledged), checks that no work file is left over, and closes it. Returns the
/// number of crash points tried.
@discardableResult
func atEveryCrashPoint(template: URL, work: URL, options: RouteStore.Options, limit: Int = 500,
                       _ operation: (RouteStore) throws -> Void,
                       check: (RouteStore, _ crashPoint: Int, _ acknowledged: Bool) throws -> Void) throws -> Int {
    var crashPoint = 1
    while true {
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.copyItem(at: template, to: work)
        let fs = InterceptingFileSystem.crashing(atChange: crashPoint)
        var acknowledged = false
        do {
            try operation(try RouteStore(at: work, options: options, fileSystem: fs))
            acknowledged = !fs.faultFired
        } catch {
            #expect(fs.faultFired, "failed without a crash at \(crashPoint): \(error)")
        }
        let reopened = try RouteStore(at: work)
        try check(reopened, crashPoint, acknowledged)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "crash at \(crashPoint) left \(leftovers)")
        try reopened.close()
        if acknowledged { return crashPoint }
        crashPoint += 1
        if crashPoint > limit {
            Issue.record("the operation never completed in \(limit) crash points")
            return limit
        }
    }
}

/// ``atEveryCrashPoint`` for a compaction of a healthy store, run twice so that the
/// second one is crashed too. Whatever the crash left, the reopened store puts nothing
/// into `lost/`: every leftover of a compaction holds only copies.
@discardableResult
func compactionAtEveryCrashPoint(template: URL, work: URL, options: RouteStore.Options,
                                 check: (RouteStore, Int) throws -> Void) throws -> Int {
    try atEveryCrashPoint(template: template, work: work, options: options, { store in
        try store.compact()
        try store.compact()
    }, check: { store, crashPoint, _ in
        try check(store, crashPoint)
        let lost = (try? FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent(LostAndFound.directoryName).path)) ?? []
        #expect(lost.isEmpty, "crash at operation \(crashPoint): a healthy store put \(lost) into lost/")
    })
}
