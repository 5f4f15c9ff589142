import Foundation

/// The geodesic inverse problem solved the slow, sure way, for the nearly antipodal
/// pairs where Vincenty's iteration does not converge.
///
/// It follows the formulation of C. F. F. Karney, "Algorithms for geodesics" (2013):
/// on the auxiliary sphere, a geodesic leaving point 1 with azimuth α₁ reaches the
/// latitude of point 2 at a longitude λ₁₂(α₁) that grows monotonically with α₁ once
/// the points are put in canonical position (point 1 the farther from the equator and
/// south of it, longitude difference in 0...π). Bisection on α₁ finds the azimuth that
/// hits point 2; the distance integral then gives the length. Karney evaluates the
/// integrals with series; here they are integrated numerically with Gauss-Legendre
/// quadrature, which is exact to rounding for these smooth, periodic integrands.
enum GeodesicSolver {
    static func distance(_ p1: Coordinate, _ p2: Coordinate) -> Double {
        guard p1.latitude.isFinite, p1.longitude.isFinite, p2.latitude.isFinite,
              p2.longitude.isFinite else { return .nan }
        let f = Geodesic.flattening
        let radians = Double.pi / 180
        var lat1 = p1.latitude * radians, lat2 = p2.latitude * radians
        let lon12 = abs(Geodesic.normalizedLongitude(p2.longitude - p1.longitude)) * radians
        // Canonical position: |lat1| >= |lat2|, lat1 <= 0. Distance is unchanged.
        if abs(lat1) < abs(lat2) { swap(&lat1, &lat2) }
        if lat1 > 0 {
            lat1 = -lat1
            lat2 = -lat2
        }
        var (sinB1, cosB1) = Geodesic.reducedLatitude(lat1)
        // On the equator, -0 keeps σ1 in (-π, 0] when the geodesic heads south first.
        if sinB1 == 0 { sinB1 = -0.0 }
        let (sinB2, cosB2) = Geodesic.reducedLatitude(lat2)
        let ePrimeSq = f * (2 - f) / ((1 - f) * (1 - f))

        // λ12 and s12 for a geodesic leaving point 1 with azimuth alpha1.
        func trace(_ alpha1: Double) -> (lambda12: Double, distance: Double) {
            let sinA1 = sin(alpha1), cosA1 = cos(alpha1)
            let sinA0 = sinA1 * cosB1
            let cosSqA0 = max(0, 1 - sinA0 * sinA0)
            let sigma1 = atan2(sinB1, cosA1 * cosB1)
            // Point 2 lies on the ascending part of the geodesic (cos α2 >= 0).
            let cosA2cosB2 = max(0, cosA1 * cosA1 * cosB1 * cosB1 + (cosB2 * cosB2 - cosB1 * cosB1))
                .squareRoot()
            let sigma2 = atan2(sinB2, cosA2cosB2)
            let omega1 = atan2(sinA0 * sin(sigma1), cos(sigma1))
            let omega2 = atan2(sinA0 * sin(sigma2), cos(sigma2))
            let kSq = ePrimeSq * cosSqA0
            let longitudeIntegral = GaussLegendre.integrate(from: sigma1, to: sigma2) { s in
                let sn = sin(s)
                return (2 - f) / (1 + (1 - f) * (1 + kSq * sn * sn).squareRoot())
            }
            let lengthIntegral = GaussLegendre.integrate(from: sigma1, to: sigma2) { s in
                let sn = sin(s)
                return (1 + kSq * sn * sn).squareRoot()
            }
            let lambda12 = (omega2 - omega1) - f * sinA0 * longitudeIntegral
            return (lambda12, Geodesic.polarRadius * lengthIntegral)
        }

        // At a pole every azimuth is a meridian: the length does not depend on α1.
        if cosB1 < 1e-15 || cosB2 < 1e-15 { return trace(0).distance }
        // Both on the equator and not too far apart: the equator itself is the geodesic.
        if lat1 == 0, lat2 == 0, lon12 <= (1 - f) * .pi { return Geodesic.equatorialRadius * lon12 }

        // At equal latitudes the ascending crossing is only reached by heading poleward
        // first (α1 >= π/2), which is also the shorter way round.
        var low = sinB1 == sinB2 ? Double.pi / 2 : 0, high = Double.pi
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if mid == low || mid == high { break }
            if trace(mid).lambda12 < lon12 { low = mid } else { high = mid }
        }
        return trace((low + high) / 2).distance
    }
}

/// Gauss-Legendre quadrature with 20 nodes per panel; panels are at most π/4 wide.
enum GaussLegendre {
    static let order = 20
    /// Nodes in -1...1 and their weights, found once by Newton's method on P₂₀.
    static let rule: (nodes: [Double], weights: [Double]) = {
        var nodes = [Double](), weights = [Double]()
        let n = order
        for i in 1...n {
            var x = cos(Double.pi * (Double(i) - 0.25) / (Double(n) + 0.5))
            var derivative = 0.0
            for _ in 0..<100 {
                var p0 = 1.0, p1 = x
                for k in 2...n {
                    let pk = ((2 * Double(k) - 1) * x * p1 - (Double(k) - 1) * p0) / Double(k)
                    p0 = p1
                    p1 = pk
                }
                derivative = Double(n) * (x * p1 - p0) / (x * x - 1)
                let step = p1 / derivative
                x -= step
                if abs(step) < 1e-16 { break }
            }
            nodes.append(x)
            weights.append(2 / ((1 - x * x) * derivative * derivative))
        }
        return (nodes, weights)
    }()

    /// ∫ₐᵇ g(x) dx.
    static func integrate(from a: Double, to b: Double, _ g: (Double) -> Double) -> Double {
        let panels = max(1, Int((abs(b - a) / (Double.pi / 4)).rounded(.up)))
        let width = (b - a) / Double(panels)
        let (nodes, weights) = rule
        var total = 0.0
        for panel in 0..<panels {
            let mid = a + width * (Double(panel) + 0.5)
            var sum = 0.0
            for j in 0..<nodes.count { sum += weights[j] * g(mid + width / 2 * nodes[j]) }
            total += sum * width / 2
        }
        return total
    }
}
