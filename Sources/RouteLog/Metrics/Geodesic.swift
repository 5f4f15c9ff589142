import CRouteLogSystem
import Foundation

/// Distances on the WGS84 ellipsoid: the length of the shortest path (geodesic)
/// between two points, as GPS receivers and GeographicLib measure it.
///
/// Steps of a recorded track (under 0.02 degree, about 2 km) use the mid-latitude
/// formula with the ellipsoid's radii of curvature: ten times faster than Vincenty and
/// within 3e-7 of it (0.03 mm at 2 km), which matters because the store measures every
/// route it saves. Longer lines use Vincenty's inverse formula (accurate to well under
/// a millimetre). Vincenty's iteration fails to converge for nearly antipodal points;
/// those fall back to `GeodesicSolver`, which solves the same problem by bisection on
/// the starting azimuth with numerically integrated geodesic integrals, so every pair
/// of valid coordinates gets a finite answer.
///
/// ```swift
/// let metres = Geodesic.distance(Coordinate(latitude: 48.1, longitude: 11.5),
///                                Coordinate(latitude: 48.2, longitude: 11.6))
/// ```
public enum Geodesic {
    /// Semi-major axis of WGS84, in metres.
    public static let equatorialRadius = 6_378_137.0
    /// Flattening of WGS84.
    public static let flattening = 1 / 298.257_223_563
    /// Semi-minor axis, in metres.
    static let polarRadius = equatorialRadius * (1 - flattening)

    /// Metres along the geodesic from `a` to `b`. Returns 0 for equal points and NaN
    /// only when an input is NaN.
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        distance(a.latitude, a.longitude, b.latitude, b.longitude)
    }

    /// ``distance(_:_:)`` on bare degrees (the save path reads them from points).
    @inline(__always)
    static func distance(_ latA: Double, _ lonA: Double, _ latB: Double, _ lonB: Double) -> Double {
        // A short step first, with no branch on whether the points are equal: a step
        // that stands still is a short one of 0 m (both deltas 0 give +0 exactly),
        // and a save measures every step, where a mispredicted branch costs more than
        // the formula.
        let latStep = latB - latA, lonStep = lonB - lonA, midLatitude = (latA + latB) / 2
        if latStep.magnitude <= shortStep, lonStep.magnitude <= shortStep, midLatitude.magnitude <= 90 {
            return shortDistance(latStep, lonStep, midLatitude: midLatitude)
        }
        if latA == latB && lonA == lonB { return 0 }
        let a = Coordinate(latitude: latA, longitude: lonA), b = Coordinate(latitude: latB, longitude: lonB)
        let latDelta = b.latitude - a.latitude
        let lonDelta = normalizedLongitude(b.longitude - a.longitude)
        if abs(latDelta) <= shortStep, abs(lonDelta) <= shortStep {
            return shortDistance(latDelta, lonDelta, midLatitude: (a.latitude + b.latitude) / 2)
        }
        return longDistance(a, b)
    }

    /// Lines longer than a short step (rare in a track): kept out of the inlined path.
    @inline(never)
    static func longDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        if let metres = vincentyDistance(a, b) { return metres }
        return GeodesicSolver.distance(a, b)
    }

    /// The largest latitude and longitude difference, in degrees, measured as a short step.
    static let shortStep = 0.02
    static let eccentricitySquared = flattening * (2 - flattening)

    /// A short step on the plane tangent at the mid-latitude, scaled by the meridional
    /// (M) and prime-vertical (N) radii of curvature there: metres per degree of
    /// latitude, M·π/180, and of longitude, N·cos φ·π/180.
    ///
    /// Every save measures every step of its route, so this is shaped for speed: both
    /// factors are polynomials in φ² (``routelog_short_step_length``, within 5e-15 of
    /// the formulas on every latitude) instead of a sine, a cosine, a square root and a
    /// division. One definition in C, which the save's four-at-a-time path shares.
    @inline(__always)
    static func shortDistance(_ latDelta: Double, _ lonDelta: Double, midLatitude: Double) -> Double {
        guard midLatitude.magnitude <= 90 else {
            return exactShortDistance(latDelta, lonDelta, midLatitude: midLatitude)
        }
        return routelog_short_step_length(latDelta, lonDelta, midLatitude)
    }

    /// The short-step formula with the radii computed directly (for latitudes outside
    /// -90...90, which valid points never have, and to check the polynomials).
    static func exactShortDistance(_ latDelta: Double, _ lonDelta: Double, midLatitude: Double) -> Double {
        let radians = Double.pi / 180
        let phi = midLatitude * radians
        let s = sin(phi)
        let w2 = 1 - eccentricitySquared * s * s
        let w = w2.squareRoot()
        let n = equatorialRadius / w
        let m = equatorialRadius * (1 - eccentricitySquared) / (w2 * w)
        let north = m * latDelta * radians
        let east = n * cos(phi) * lonDelta * radians
        return (north * north + east * east).squareRoot()
    }

    /// Vincenty's inverse formula; `nil` when the iteration does not converge (nearly
    /// antipodal points), in which case the caller must use the robust solver.
    static func vincentyDistance(_ a: Coordinate, _ b: Coordinate) -> Double? {
        let f = flattening
        let radians = Double.pi / 180
        let lonDelta = normalizedLongitude(b.longitude - a.longitude) * radians
        let (sinU1, cosU1) = reducedLatitude(a.latitude * radians)
        let (sinU2, cosU2) = reducedLatitude(b.latitude * radians)

        var lambda = lonDelta
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0
        var cosSqAlpha = 0.0, cos2SigmaM = 0.0
        var converged = false
        for _ in 0..<60 {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            let t1 = cosU2 * sinLambda
            let t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            sinSigma = (t1 * t1 + t2 * t2).squareRoot()
            if sinSigma == 0 { return 0 }  // coincident after reduction
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cosSqAlpha = 1 - sinAlpha * sinAlpha
            // On the equator cos²α is 0 and the term vanishes.
            cos2SigmaM = cosSqAlpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cosSqAlpha : 0
            let c = f / 16 * cosSqAlpha * (4 + f * (4 - 3 * cosSqAlpha))
            let previous = lambda
            lambda = lonDelta + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            // Past π the formula has left its domain: the points are nearly antipodal.
            if abs(lambda) > .pi { return nil }
            if abs(lambda - previous) < 1e-12 {
                converged = true
                break
            }
        }
        guard converged else { return nil }

        let a2 = equatorialRadius * equatorialRadius, b2 = polarRadius * polarRadius
        let uSq = cosSqAlpha * (a2 - b2) / b2
        let bigA = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
        let bigB = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
        let c2m = cos2SigmaM
        let deltaSigma = bigB * sinSigma * (c2m + bigB / 4 * (cosSigma * (-1 + 2 * c2m * c2m)
            - bigB / 6 * c2m * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * c2m * c2m)))
        let metres = polarRadius * bigA * (sigma - deltaSigma)
        return metres.isFinite && metres >= 0 ? metres : nil
    }

    /// Sine and cosine of the reduced (parametric) latitude β, tan β = (1 - f) tan φ,
    /// computed without tan so the poles are exact.
    static func reducedLatitude(_ phi: Double) -> (sin: Double, cos: Double) {
        let beta = atan2((1 - flattening) * sin(phi), cos(phi))
        return (sin(beta), cos(beta))
    }

    /// A longitude difference folded into -180...180 degrees.
    @inline(__always)
    static func normalizedLongitude(_ degrees: Double) -> Double {
        // The common case, a step between valid longitudes, needs no division.
        if degrees.magnitude <= 180 { return degrees }
        var d = degrees.truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d < -180 { d += 360 }
        return d
    }
}
