import Foundation
import CRouteLogSystem

/// Douglas-Peucker on a local plane in metres: which points of a line to keep so that
/// no dropped point is further than a tolerance from the kept line (format-spec.md,
/// "Derived fields": preview).
struct PreviewSimplifier {
    private let plane: Plane
    /// The points on the plane, east and north in metres (copies, for checking).
    var x: [Double] { Array(UnsafeBufferPointer(start: plane.x, count: plane.count)) }
    var y: [Double] { Array(UnsafeBufferPointer(start: plane.y, count: plane.count)) }

    /// Projects `coordinates` on a plane around their mean latitude (equirectangular,
    /// longitudes unwrapped across the antimeridian): good to a fraction of a percent
    /// over the few kilometres between two kept points.
    init(_ coordinates: [Coordinate]) {
        let n = coordinates.count
        let degrees = ScratchMemory.take(Double.self, count: 2 * n)
        defer { ScratchMemory.give(degrees, count: 2 * n) }
        for (i, coordinate) in coordinates.enumerated() {
            degrees[i] = coordinate.latitude
            degrees[n + i] = coordinate.longitude
        }
        self.init(degrees: degrees, count: n)
    }

    /// The same plane for stored coordinates (1e-7 degree), with no `Coordinate` array
    /// made first: the same arithmetic on the same doubles, so the same kept points.
    /// The degrees are divided out first, four at a time where the processor can
    /// (``routelog_divide_integers``, the quotients `Quantization.degrees` gives): the
    /// plane needs each latitude twice and each longitude once, and a division per use
    /// was most of its cost.
    init(latitudes: UnsafeBufferPointer<Int64>, longitudes: UnsafeBufferPointer<Int64>) {
        let n = min(latitudes.count, longitudes.count)
        let degrees = ScratchMemory.take(Double.self, count: 2 * n)
        defer { ScratchMemory.give(degrees, count: 2 * n) }
        if let lat = latitudes.baseAddress, let lon = longitudes.baseAddress {
            routelog_divide_integers(lat, n, FormatConstants.degreeScale, degrees)
            routelog_divide_integers(lon, n, FormatConstants.degreeScale, degrees + n)
        }
        self.init(degrees: degrees, count: n)
    }

    /// The plane of `count` latitudes at `degrees` and as many longitudes after them.
    private init(degrees: UnsafeMutablePointer<Double>, count: Int) {
        plane = Plane(count: count)
        guard count > 0 else { return }
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        // Four sums side by side, added at the end: one sum's additions wait on each
        // other (about 3 µs for 3,600 points).
        var sums = (0.0, 0.0, 0.0, 0.0), i = 0
        while i + 4 <= count {
            sums.0 += degrees[i]
            sums.1 += degrees[i + 1]
            sums.2 += degrees[i + 2]
            sums.3 += degrees[i + 3]
            i += 4
        }
        while i < count {
            sums.0 += degrees[i]
            i += 1
        }
        let meanLat = ((sums.0 + sums.1) + (sums.2 + sums.3)) / Double(count)
        let lonScale = metresPerDegree * cos(meanLat * .pi / 180)
        // Four points at a time where the processor can: a loop here, with the running
        // longitude's unwrapping, cost about 19 instructions a point.
        routelog_project_on_plane(degrees, degrees + count, count, lonScale, metresPerDegree, plane.x, plane.y)
    }

    /// Distance in metres from point `i` to the segment from `a` to `b`.
    private func distance(_ i: Int, _ a: Int, _ b: Int) -> Double {
        let x = plane.x, y = plane.y
        let dx = x[b] - x[a], dy = y[b] - y[a]
        let length2 = dx * dx + dy * dy
        var t = length2 > 0 ? ((x[i] - x[a]) * dx + (y[i] - y[a]) * dy) / length2 : 0
        t = min(1, max(0, t))
        let px = x[a] + t * dx - x[i], py = y[a] + t * dy - y[i]
        let d = (px * px + py * py).squareRoot()
        return d.isFinite ? d : 0
    }

    /// The farthest point strictly between `a` and `b`, and its distance. The scan is
    /// most of a save's derived-field CPU, so it is ``routelog_farthest_point`` (four
    /// points at a time where the processor can): it ranks points by their squared
    /// distance times the segment's squared length, with no division and no square root
    /// per point; the winner's distance is then measured by ``distance(_:_:_:)``.
    func farthest(_ a: Int, _ b: Int) -> (index: Int, distance: Double)? {
        guard b - a > 1 else { return nil }
        let best = Int(routelog_farthest_point(plane.x, plane.y, a, b))
        return (best, distance(best, a, b))
    }

    /// Indices to keep, ascending, both ends included: points are added farthest first
    /// until `maxPoints` are kept or the farthest left is nearer than `tolerance`. Also
    /// returns the distance of the farthest point left out (0 when none is).
    func keep(maxPoints: Int = .max, tolerance: Double) -> (indices: [Int], error: Double) {
        var work = 0
        return keep(maxPoints: maxPoints, tolerance: tolerance, work: &work)
    }

    /// ``keep(maxPoints:tolerance:)``, adding to `work` the points its scans looked at.
    /// Each split scans its span, so the work is at most the points times the splits:
    /// up to 64 splits for a preview, but n²/2 for a line built so that every split
    /// peels one point off (callers with no point limit bound n).
    func keep(maxPoints: Int = .max, tolerance: Double, work: inout Int) -> (indices: [Int], error: Double) {
        let n = plane.count
        guard n > 2 else { return (Array(0..<n), 0) }
        let limited = maxPoints != .max
        // Pending spans, each with its farthest point: with a point limit the largest is
        // split next (the first found of the largest), else the last found (depth first).
        var spans = PendingSpans(largestFirst: limited, capacity: limited ? Swift.min(maxPoints, n) + 1 : 64)
        // The kept points as bits, read out in order at the end: sorting them cost a
        // save more than choosing them.
        var kept = [UInt64](repeating: 0, count: (n + 63) / 64)
        kept[0] |= 1
        kept[(n - 1) >> 6] |= 1 << UInt64((n - 1) & 63)
        var keptCount = 2, error = 0.0
        if let span = pending(0, n - 1, &work) { spans.push(span) }
        while let span = spans.next {
            if span.distance < tolerance || keptCount >= maxPoints {
                // The farthest point left out: with a limit, this span's (the largest);
                // without, the largest of the spans dropped one by one.
                error = Swift.max(error, span.distance)
                if limited { break }
                spans.removeNext()
                continue
            }
            kept[span.index >> 6] |= 1 << UInt64(span.index & 63)
            keptCount += 1
            // The left half takes the split span's place (one sift down the heap, not a
            // removal and an insertion); spans are ordered by distance and then by when
            // they were found, so any heap of them gives the same order.
            let left = pending(span.a, span.index, &work), right = pending(span.index, span.b, &work)
            if let left { spans.replaceNext(with: left) } else { spans.removeNext() }
            if let right { spans.push(right) }
        }
        let indices = [Int](unsafeUninitializedCapacity: keptCount) { out, count in
            for w in kept.indices {
                var word = kept[w]
                while word != 0 {
                    out[count] = w << 6 | word.trailingZeroBitCount
                    count += 1
                    word &= word &- 1
                }
            }
        }
        return (indices, error)
    }

    /// The span from `a` to `b` with its farthest point, nil when it has no point
    /// inside; adds the points its scan looks at to `work`.
    private func pending(_ a: Int, _ b: Int, _ work: inout Int) -> PendingSpan? {
        work += Swift.max(0, b - a - 1)
        guard let f = farthest(a, b) else { return nil }
        return PendingSpan(a: a, b: b, index: f.index, distance: f.distance, found: 0)
    }
}

/// A span waiting to be split: its ends and its farthest point, and when it was found.
private struct PendingSpan {
    let a: Int, b: Int, index: Int
    let distance: Double
    var found: Int

    /// True when this span is split before `other`: it is larger, or as large and found
    /// first. (Distances are never NaN: ``PreviewSimplifier/farthest(_:_:)`` gives 0 for
    /// any that is not finite.)
    @inline(__always)
    func precedes(_ other: PendingSpan) -> Bool {
        distance > other.distance || (distance == other.distance && found < other.found)
    }
}

/// The spans waiting to be split: a binary heap, largest first (a preview splits 62
/// times among up to 64 spans: a scan of them all for the largest cost a save more than
/// the heap), or a stack.
private struct PendingSpans {
    private var heap: [PendingSpan] = []
    private let largestFirst: Bool
    private var found = 0

    init(largestFirst: Bool, capacity: Int) {
        self.largestFirst = largestFirst
        heap.reserveCapacity(capacity)
    }

    /// The span to split next.
    var next: PendingSpan? { largestFirst ? heap.first : heap.last }

    mutating func push(_ span: PendingSpan) {
        var span = span
        span.found = found
        found += 1
        guard largestFirst else { return heap.append(span) }
        // Up from the end while it precedes its parent.
        var i = heap.count
        heap.append(span)
        while i > 0 {
            let parent = (i - 1) / 2
            guard span.precedes(heap[parent]) else { break }
            heap[i] = heap[parent]
            i = parent
        }
        heap[i] = span
    }

    mutating func removeNext() {
        guard largestFirst else {
            heap.removeLast()
            return
        }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        down(last)
    }

    /// Removes the span to split next and adds `span`.
    mutating func replaceNext(with span: PendingSpan) {
        var span = span
        span.found = found
        found += 1
        guard largestFirst else {
            heap[heap.count - 1] = span
            return
        }
        down(span)
    }

    /// `span` in the top's place, then down from the top while a child precedes it.
    private mutating func down(_ span: PendingSpan) {
        heap.withUnsafeMutableBufferPointer { heap in
            var i = 0
            while true {
                var child = 2 * i + 1
                guard child < heap.count else { break }
                if child + 1 < heap.count && heap[child + 1].precedes(heap[child]) { child += 1 }
                guard heap[child].precedes(span) else { break }
                heap[i] = heap[child]
                i = child
            }
            heap[i] = span
        }
    }
}

/// The points projected on the plane, in metres, in ``ScratchMemory`` (a save makes one
/// per route; kept there, its pages serve the next save).
private final class Plane {
    let x: UnsafeMutablePointer<Double>
    let y: UnsafeMutablePointer<Double>
    let count: Int

    init(count: Int) {
        self.count = count
        x = ScratchMemory.take(Double.self, count: count)
        y = ScratchMemory.take(Double.self, count: count)
    }

    deinit {
        ScratchMemory.give(x, count: count)
        ScratchMemory.give(y, count: count)
    }
}
