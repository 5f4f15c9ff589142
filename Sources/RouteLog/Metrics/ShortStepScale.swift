/// Metres per degree of latitude and of longitude on the WGS84 ellipsoid at latitude φ,
/// M(φ)·π/180 and N(φ)·cos φ·π/180, as polynomials in φ² (φ in radians, |φ| ≤ π/2).
///
/// The coefficients are a least-squares fit at 3,000 Chebyshev nodes to the exact
/// expressions, M = a(1 - e²)/(1 - e² sin²φ)^(3/2) and N = a/(1 - e² sin²φ)^(1/2),
/// computed with 40-digit arithmetic. Evaluated in doubles by Horner's rule, both stay
/// within 5e-15 of the exact value (relative to its largest value) on every latitude;
/// ``Geodesic/exactShortDistance(_:_:midLatitude:)`` and the accuracy tests check it.
enum ShortStepScale {
    /// Metres per degree of latitude and of longitude. Two plain Horner chains: they
    /// are independent, so the CPU runs them side by side (a two-lane vector type would
    /// be as fast optimized and far slower in a debug build).
    @inline(__always)
    static func metresPerDegree(phiSquared t: Double) -> (latitude: Double, longitude: Double) {
        var a = -5.658196768749568e-07, b = 9.61396098135164e-07
        a = a * t + 9.169268464512905e-06; b = b * t - 3.063842378008177e-05
        a = a * t - 3.7989299625016445e-06; b = b * t + 0.0004314527319338828
        a = a * t - 0.0016794612376222168; b = b * t - 0.00190454382943943
        a = a * t + 0.026550816991306073; b = b * t - 0.048105726246324636
        a = a * t - 0.14451676820205006; b = b * t + 1.186548170359169
        a = a * t - 1.7386331620677937; b = b * t - 11.334652171588964
        a = a * t + 43.2267816196751; b = b * t - 62.59565513570375
        a = a * t - 360.82181729270957; b = b * t + 4329.676660380222
        a = a * t + 1110.3393291827026; b = b * t - 55287.13791080382
        a = a * t + 110574.2758215948; b = b * t + 111319.49079327367
        return (a, b)
    }
}
