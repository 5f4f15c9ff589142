/// The scan at the heart of the preview simplifier: which point strictly between `a`
/// and `b` is farthest from the segment from `a` to `b` (the first of the farthest).
///
/// Points are ranked by their squared distance times the segment's squared length: the
/// squared cross product for a point beside the segment, the squared distance to the
/// nearer end (times the squared length) for one beyond it. Shaped for speed: two
/// points a step in the two lanes of a `SIMD2<Double>`, every key computed all three
/// ways and the right one selected, so there is no branch per point. Each lane does the
/// same IEEE operations as one point at a time would (no fused multiply-add), so the
/// keys, and the point chosen, are the same to the bit.
enum FarthestScan {
    /// The index of the first farthest point in `a+1..<b` (`b - a` must be at least 2).
    static func index(_ x: UnsafePointer<Double>, _ y: UnsafePointer<Double>, _ a: Int, _ b: Int) -> Int {
        let ax = x[a], ay = y[a], bx = x[b], by = y[b], dx = bx - ax, dy = by - ay
        let length2 = dx * dx + dy * dy
        // Two trackers, lane 0 over offsets a+1, a+3, ..., lane 1 over a+2, a+4, ...:
        // each keeps the first largest key of its own points.
        var best = SIMD2<Int64>(Int64(a + 1), Int64(a + 2)), bestKey = SIMD2<Double>(repeating: -1)
        var i = a + 1
        while i + 1 < b {
            let k = key(SIMD2(x[i], x[i + 1]), SIMD2(y[i], y[i + 1]), ax, ay, bx, by, dx, dy, length2)
            let larger = k .> bestKey
            bestKey.replace(with: k, where: larger)
            best.replace(with: SIMD2(Int64(i), Int64(i + 1)), where: larger)
            i += 2
        }
        if i < b {
            let k = key(SIMD2(repeating: x[i]), SIMD2(repeating: y[i]), ax, ay, bx, by, dx, dy, length2)[0]
            if k > bestKey[0] { (best[0], bestKey[0]) = (Int64(i), k) }
        }
        // The first of the largest, as one scan in order would find it.
        return bestKey[1] > bestKey[0] || (bestKey[1] == bestKey[0] && best[1] < best[0]) ? Int(best[1]) : Int(best[0])
    }

    /// The ranking key of two points (see the type's summary); a zero-length segment
    /// ranks by the squared distance to `a` alone.
    @inline(__always)
    private static func key(_ px: SIMD2<Double>, _ py: SIMD2<Double>, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                            _ dx: Double, _ dy: Double, _ length2: Double) -> SIMD2<Double> {
        let ix = px - ax, iy = py - ay
        let nearA = ix * ix + iy * iy
        if length2 == 0 { return nearA }
        let dot = ix * dx + iy * dy
        let jx = px - bx, jy = py - by
        let cross = ix * dy - iy * dx
        var k = cross * cross
        k.replace(with: (jx * jx + jy * jy) * length2, where: dot .>= length2)  // nearest to b
        k.replace(with: nearA * length2, where: dot .<= 0)  // nearest to a (checked first in order)
        return k
    }
}
