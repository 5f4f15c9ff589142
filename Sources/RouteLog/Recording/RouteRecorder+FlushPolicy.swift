import Foundation

extension RouteRecorder {
    /// When waiting points are flushed. Each flush costs one append and, with a
    /// durable store, one fdatasync; a crash loses at most the points that wait.
    public struct FlushPolicy: Sendable, Equatable {
        /// Flush once this many points wait; nil for no limit. Default 10 (10 seconds
        /// of a 1 Hz GPS).
        public var points: Int?
        /// Flush once the oldest waiting point (or split) has waited this many seconds,
        /// by a timer, even if no more points arrive; nil to flush by count only.
        /// Default 10.
        public var interval: TimeInterval?

        /// A policy; leave both nil to flush only when ``RouteRecorder/flush()`` is called.
        public init(points: Int? = 10, interval: TimeInterval? = 10) {
            self.points = points
            self.interval = interval
        }

        /// Only explicit ``RouteRecorder/flush()`` calls (and finish) write points.
        public static let manual = FlushPolicy(points: nil, interval: nil)

        func validate() throws {
            if let points, points < 1 { throw RouteLogError.invalid("flush policy: points must be at least 1, not \(points)") }
            if let interval, !(interval.isFinite && interval > 0) {
                throw RouteLogError.invalid("flush policy: interval must be a positive number of seconds, not \(interval)")
            }
        }
    }
}
