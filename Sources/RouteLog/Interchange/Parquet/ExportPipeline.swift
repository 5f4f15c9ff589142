import Foundation

/// Runs an export's batches through worker threads and hands them to the writer in
/// order: while the writer appends one wave of batches, the next wave is read and
/// encoded, one batch per core. Memory stays bounded by two waves.
enum ExportPipeline {
    /// A batch holds about this many points (one page of each points column)...
    static let batchPoints = PointsTable.pageValues
    /// ...and at most this many routes.
    static let batchRoutes = 1_024

    /// Consecutive ranges of `summaries`, each a batch: routes until the batch holds
    /// `points` points or `routes` routes (row groups end between batches, so smaller
    /// row groups need smaller batches).
    static func batches(_ summaries: [RouteSummary], points batchPoints: Int = batchPoints,
                        routes batchRoutes: Int = batchRoutes) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0, points = 0
        for (i, summary) in summaries.enumerated() {
            points += summary.pointCount
            if points >= batchPoints || i + 1 - start >= batchRoutes {
                ranges.append(start..<i + 1)
                start = i + 1
                points = 0
            }
        }
        if start < summaries.count { ranges.append(start..<summaries.count) }
        return ranges
    }

    /// Prepares every batch of `summaries` and calls `write` with each, in order.
    /// - Throws: The first error of a batch (in order), or of `write`; no worker is
    ///   still running when this returns.
    static func run(_ summaries: [RouteSummary], store: RouteStore, options: ParquetExportOptions,
                    write: (ExportBatch) throws -> Void) throws {
        let codec = options.codec
        let zones = try store.exportZones(adding: options.privacyZones, stored: options.storedPrivacyZones)
        let ranges = batches(summaries, points: min(batchPoints, max(1, options.pointsPerRowGroup)),
                             routes: min(batchRoutes, max(1, options.routesPerRowGroup)))
        let width = max(1, min(8, ProcessInfo.processInfo.activeProcessorCount))
        var next = 0
        func launch() -> Wave? {
            guard next < ranges.count else { return nil }
            let wave = Wave(Array(ranges[next..<min(ranges.count, next + width)]), summaries, store, codec, zones,
                            options.geometry)
            next += width
            return wave
        }
        var current = launch()
        while let wave = current {
            let results = wave.results()
            current = launch()
            do {
                for result in results { try write(result.get()) }
            } catch {
                _ = current?.results()
                throw error
            }
        }
    }
}

/// Batches prepared at the same time, one per worker.
private final class Wave: @unchecked Sendable {
    // Each worker writes its own slot before `done` is signalled; read only after.
    private let slots: UnsafeMutableBufferPointer<Result<ExportBatch, any Error>>
    private let done = DispatchSemaphore(value: 0)

    init(_ ranges: [Range<Int>], _ summaries: [RouteSummary], _ store: RouteStore, _ codec: ParquetFormat.Codec,
         _ zones: [PrivacyZone], _ geometry: ParquetExportOptions.Geometry) {
        slots = .allocate(capacity: ranges.count)
        slots.initialize(repeating: .failure(CancellationError()))
        DispatchQueue.global().async { [self] in
            DispatchQueue.concurrentPerform(iterations: ranges.count) { i in
                let result = Result { try ExportBatch(summaries[ranges[i]], from: store, codec: codec, zones: zones,
                                                           geometry: geometry) }
                fill(i, result)
            }
            done.signal()
        }
    }

    private func fill(_ i: Int, _ result: Result<ExportBatch, any Error>) { slots[i] = result }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// Waits for every batch of the wave.
    func results() -> [Result<ExportBatch, any Error>] {
        done.wait()
        done.signal()
        return Array(slots)
    }
}
