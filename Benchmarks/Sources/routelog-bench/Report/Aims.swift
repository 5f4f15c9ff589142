import Foundation

/// The aims, each checked against this run's figures. A benchmark reports; it
/// does not assert: an aim not met is printed, not thrown.
enum Aims {
    static func evaluate(_ engines: [EngineReport], target: Int = 100_000) -> [AimResult] {
        func report(_ kind: EngineKind) -> EngineReport? { engines.first { $0.engine == kind.rawValue } }
        guard let routeLog = report(.routeLog), let first = routeLog.checkpoints.first,
              let last = routeLog.checkpoints.last
        else { return [AimResult(aim: "all aims", measured: "RouteLog did not run", met: nil)] }
        // An aim stated at the target size is judged only by a run that reached it.
        let reachedTarget = last.checkpoint == target
        let atLast = reachedTarget ? "" : " (this run stops at \(Format.count(last.checkpoint)), not \(Format.count(target)))"
        var aims: [AimResult] = []

        func ratio(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b, b > 0 else { return nil }
            return a / b
        }
        /// The largest checkpoint both RouteLog and `other` reached.
        func common(_ other: EngineKind) -> (CheckpointResult, CheckpointResult)? {
            guard let o = report(other) else { return nil }
            for c in routeLog.checkpoints.reversed() {
                if let match = o.checkpoints.first(where: { $0.checkpoint == c.checkpoint }) { return (c, match) }
            }
            return nil
        }

        // The disk under the same windows: how the bare write+fdatasync moved between the
        // same two checkpoints, so that a slower disk is not read as a slower store.
        let limit = report(.appendFile)
        let limitFirst = limit?.checkpoints.first { $0.checkpoint == first.checkpoint }
        let limitLast = limit?.checkpoints.first { $0.checkpoint == last.checkpoint }
        func diskMoved(_ value: (CheckpointResult) -> Double?) -> String {
            guard let a = limitFirst, let b = limitLast, let x = value(a), let y = value(b) else { return "" }
            return "; write+fdatasync in the same windows: \(Format.seconds(y)) vs \(Format.seconds(x)) = "
                + "\(Format.decimal(y / x, 2))x"
        }

        let p50 = ratio(last.durable?.p50, first.durable?.p50)
        let p50b = ratio(last.buffered?.p50, first.buffered?.p50)
        aims.append(AimResult(
            aim: "p50 save at \(Format.count(target)) routes within 1.2x of p50 at \(Format.count(first.checkpoint))",
            measured: "durable \(Format.seconds(last.durable?.p50)) vs \(Format.seconds(first.durable?.p50)) = "
                + "\(p50.map { Format.decimal($0, 2) } ?? "-")x; buffered "
                + "\(Format.seconds(last.buffered?.p50)) vs \(Format.seconds(first.buffered?.p50)) = "
                + "\(p50b.map { Format.decimal($0, 2) } ?? "-")x\(diskMoved { $0.durable?.p50 })\(atLast)",
            met: reachedTarget ? p50.map { $0 <= 1.2 } : nil))
        let p99 = ratio(last.durable?.p99, first.durable?.p99)
        aims.append(AimResult(
            aim: "p99 save at \(Format.count(target)) routes within 1.5x of p99 at \(Format.count(first.checkpoint))",
            measured: "durable \(Format.seconds(last.durable?.p99)) vs \(Format.seconds(first.durable?.p99)) = "
                + "\(p99.map { Format.decimal($0, 2) } ?? "-")x\(diskMoved { $0.durable?.p99 })\(atLast)",
            met: reachedTarget ? p99.map { $0 <= 1.5 } : nil))

        if let (r, a) = common(.appendFile) {
            let x = ratio(r.durable?.p50, a.durable?.p50)
            aims.append(AimResult(
                aim: "durable save within 1.3x of write+fdatasync of the same bytes",
                measured: "p50 \(Format.seconds(r.durable?.p50)) vs \(Format.seconds(a.durable?.p50)) = "
                    + "\(x.map { Format.decimal($0, 2) } ?? "-")x at \(Format.count(r.checkpoint)) routes",
                met: x.map { $0 <= 1.3 }))
        } else {
            aims.append(AimResult(aim: "durable save within 1.3x of write+fdatasync", measured: "append baseline not run", met: nil))
        }
        if let (r, c) = common(.coreDataLayout) {
            let x = ratio(c.durable?.p50, r.durable?.p50)
            let xb = ratio(c.buffered?.p50, r.buffered?.p50)
            aims.append(AimResult(
                aim: "save at least 10x faster than the Core Data layout",
                measured: "durable p50 \(Format.seconds(c.durable?.p50)) vs \(Format.seconds(r.durable?.p50)) = "
                    + "\(x.map { Format.decimal($0, 1) } ?? "-")x faster; buffered \(Format.seconds(c.buffered?.p50)) vs "
                    + "\(Format.seconds(r.buffered?.p50)) = \(xb.map { Format.decimal($0, 1) } ?? "-")x; "
                    + "at \(Format.count(r.checkpoint)) routes",
                met: x.map { $0 >= 10 }))
            let b = ratio(r.bytesPerPoint, c.bytesPerPoint)
            aims.append(AimResult(
                aim: "bytes per point at most a tenth of the Core Data layout's",
                measured: "\(Format.decimal(r.bytesPerPoint, 2)) vs \(Format.decimal(c.bytesPerPoint, 1)) B/point = "
                    + "\(b.map { Format.decimal($0, 3) } ?? "-") at \(Format.count(r.checkpoint)) routes",
                met: b.map { $0 <= 0.1 }))
        } else {
            aims.append(AimResult(aim: "10x faster than the Core Data layout", measured: "Core Data layout not run", met: nil))
            aims.append(AimResult(aim: "a tenth of the Core Data layout's bytes per point", measured: "Core Data layout not run", met: nil))
        }
        if let (r, s) = common(.sqliteBlob) {
            let x = ratio(r.durable?.p50, s.durable?.p50)
            aims.append(AimResult(
                aim: "save no slower than SQLite with a RouteLog blob per route",
                measured: "durable p50 \(Format.seconds(r.durable?.p50)) vs \(Format.seconds(s.durable?.p50)) = "
                    + "\(x.map { Format.decimal($0, 2) } ?? "-")x; p99 \(Format.seconds(r.durable?.p99)) vs "
                    + "\(Format.seconds(s.durable?.p99)); buffered p50 \(Format.seconds(r.buffered?.p50)) vs "
                    + "\(Format.seconds(s.buffered?.p50)) (both encode with RouteLog's codec); at \(Format.count(r.checkpoint)) routes",
                met: x.map { $0 <= 1.0 }))
        } else {
            aims.append(AimResult(aim: "no slower than SQLite with blobs", measured: "SQLite blob baseline not run", met: nil))
        }
        aims.append(AimResult(
            aim: "open a \(Format.count(target))-route store in under 100 ms",
            measured: "\(Format.seconds(last.openSeconds)) with \(Format.count(last.routesStored)) routes\(atLast)",
            met: reachedTarget ? last.openSeconds.map { $0 < 0.1 } : nil))
        aims.append(AimResult(
            aim: "list a \(Format.count(target))-route store's summaries in under 20 ms",
            measured: "\(Format.seconds(last.listSeconds)) with \(Format.count(last.routesStored)) routes\(atLast)",
            met: reachedTarget ? last.listSeconds.map { $0 < 0.02 } : nil))
        return aims
    }
}
