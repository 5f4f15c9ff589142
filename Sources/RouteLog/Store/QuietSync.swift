import Dispatch
import Foundation

/// With buffered durability: once no change has come for
/// ``RouteStore/Options/bufferedQuietSyncDelay``, the saves since the last sync are
/// synced in the background, then their held index records written
/// (``StoreWriter/syncActive()``). A burst of buffered saves is on disk about a second
/// after it ends, not only at the 1,024th, a roll or close(); and an app killed after it
/// went quiet leaves nothing for its next open to read past the index.
///
/// One timer at a time: a change moves the deadline, not the timer, so a bulk import
/// that saves without a pause is never interrupted by a sync.
final class QuietSync: Sendable {
    private struct State {
        var scheduled = false
        /// Monotonic nanoseconds of the last change.
        var lastChange: UInt64 = 0
    }

    private let state = StateLock(State())

    /// After a buffered change was written (under the writer lock).
    func noteChange(_ store: RouteStore) {
        guard let delay = store.options.bufferedQuietSyncDelay, store.options.durability == .buffered else { return }
        let start = state.withLock { s -> Bool in
            s.lastChange = DispatchTime.now().uptimeNanoseconds
            guard !s.scheduled else { return false }
            s.scheduled = true
            return true
        }
        if start { schedule(store.writer, store.state, delay: delay, after: delay) }
    }

    /// The timer holds the writer's and the published state, never the store: a handle
    /// whose last reference goes while the timer syncs closes at once (close() waits for
    /// the sync), not later on the timer's thread, its lock held meanwhile against the
    /// app opening the store again.
    private func schedule(_ writer: StateLock<StoreWriter?>, _ published: StateLock<StoreState>,
                          delay: Double, after seconds: Double) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + max(0, seconds)) { [weak writer, weak published, self] in
            guard let writer, let published else { return }
            fire(writer, published, delay: delay)
        }
    }

    private func fire(_ writer: StateLock<StoreWriter?>, _ published: StateLock<StoreState>, delay: Double) {
        let wait = state.withLock { s -> Double? in
            let quiet = Double(DispatchTime.now().uptimeNanoseconds &- s.lastChange) / 1e9
            if quiet < delay { return delay - quiet }
            s.scheduled = false
            return nil
        }
        if let wait {
            schedule(writer, published, delay: delay, after: wait)
            return
        }
        // A failed sync is the writer's failure: the next change and close() report it.
        // A closed handle's writer is nil. Whether buffered appends wait for a sync is
        // the segment's to say, not the index's: a broken index holds no records. As in
        // close(), only a segment's failure stops the sync: an uncertain manifest switch
        // leaves the segment fine, and the saves before it are synced as usual.
        writer.withLock { w in
            guard w != nil, !w!.closed, w!.log.failure == nil, w!.log.hasUnsyncedAppends else { return }
            try? w!.syncActive()
            // What the sync and the index records it let go out changed, for statistics()
            // and verify(), as a change publishes it (the writer lock, then the state lock).
            let (indexBytes, singles) = (w!.index.end, w!.index.singleRecords)
            let writes = StoreStatistics.Writes(changes: w!.changes, groups: w!.groups, dataSyncs: w!.log.dataSyncs)
            published.withLock { s in
                s.indexBytes = indexBytes
                s.indexSingleRecords = singles
                s.writes = writes
            }
        }
    }
}
