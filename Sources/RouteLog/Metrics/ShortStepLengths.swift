/// The lengths of a track's steps measured by the short-step formula, two steps at a
/// time (``Geodesic/shortDistance(_:_:midLatitude:)`` in the two lanes of a
/// `SIMD2<Double>`): the save measures every step of every route, and one step at a
/// time waits on a chain of twenty dependent multiplies and adds.
///
/// Each lane does the IEEE operations ``Geodesic/distance(_:_:_:_:)`` does for a short
/// step, in the same order (no fused multiply-add), so its length is the same to the
/// bit. A step that is not short (or not certainly so: across the antimeridian, or
/// with a coordinate that is not finite) is marked -1 for its caller to measure with
/// ``Geodesic/distance(_:_:_:_:)``.
enum ShortStepLengths {
    /// The mark of a step the caller must measure itself (no length is negative).
    static let notShort = -1.0

    /// Writes into `lengths[i]`, for i in 1..<count, the length of the step from point
    /// i - 1 to point i, or ``notShort``.
    static func fill(_ lengths: UnsafeMutablePointer<Double>, latitudes lat: UnsafePointer<Double>,
                     longitudes lon: UnsafePointer<Double>, count: Int) {
        let step = Geodesic.shortStep
        var i = 1
        while i + 1 < count {
            let latA = SIMD2(lat[i - 1], lat[i]), latB = SIMD2(lat[i], lat[i + 1])
            let lonA = SIMD2(lon[i - 1], lon[i]), lonB = SIMD2(lon[i], lon[i + 1])
            let latDelta = latB - latA, lonDelta = lonB - lonA
            let midLatitude = (latA + latB) / 2
            // Geodesic.distance's short case: a longitude difference within ±180 is its
            // own normalized value; equal points give +0 by the formula as by its check.
            // (-s <= d <= s is |d| <= s, NaN included: SIMD has no abs.)
            let short = latDelta .<= step .& latDelta .>= -step .& lonDelta .<= step .& lonDelta .>= -step
                .& midLatitude .<= 90 .& midLatitude .>= -90
            let phi = midLatitude * (Double.pi / 180)
            let scale = ShortStepScale.metresPerDegree(phiSquared: phi * phi)
            let north = scale.latitude * latDelta, east = scale.longitude * lonDelta
            var length = (north * north + east * east).squareRoot()
            length.replace(with: notShort, where: .!short)
            lengths[i] = length[0]
            lengths[i + 1] = length[1]
            i += 2
        }
        if i < count { lengths[i] = notShort }
    }
}
