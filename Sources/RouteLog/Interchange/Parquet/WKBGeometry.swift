/// A route's geometry in Well-Known Binary (OGC Simple Features, ISO 19125), little
/// endian, two dimensions, x = longitude and y = latitude in degrees (GeoParquet's axis
/// order): a LineString for a route of one recording segment, a MultiLineString of one
/// LineString per segment otherwise, and a Point for a route of one point.
///
/// A LineString has two points or none, so a segment of a single point repeats it (the
/// GeoJSON export does the same).
struct WKBGeometry {
    /// The geometry type names GeoParquet lists in `geometry_types`.
    enum Kind: String, CaseIterable {
        case point = "Point"
        case lineString = "LineString"
        case multiLineString = "MultiLineString"

        /// The WKB type code.
        var code: UInt32 {
            switch self {
            case .point: return 1
            case .lineString: return 2
            case .multiLineString: return 5
            }
        }
    }

    /// Each line's positions as stored integers (1e-7 degree).
    let lines: [(latitudes: ArraySlice<Int32>, longitudes: ArraySlice<Int32>)]

    /// The geometry of a route whose stored coordinates are `latitudes` and `longitudes`
    /// (the same count, at least one), split where a segment starts.
    init(latitudes: [Int32], longitudes: [Int32], segmentStarts: [Int]) {
        precondition(!latitudes.isEmpty && latitudes.count == longitudes.count)
        let count = latitudes.count
        var bounds = [0]
        for start in segmentStarts where start > bounds[bounds.count - 1] && start < count { bounds.append(start) }
        bounds.append(count)
        lines = zip(bounds, bounds.dropFirst()).map { (latitudes[$0..<$1], longitudes[$0..<$1]) }
    }

    var kind: Kind {
        if lines.count > 1 { return .multiLineString }
        return lines[0].latitudes.count == 1 ? .point : .lineString
    }

    /// Bytes of the WKB.
    var byteCount: Int {
        switch kind {
        case .point: return 21
        case .lineString: return 9 + 16 * lines[0].latitudes.count
        case .multiLineString: return 9 + lines.reduce(0) { $0 + 9 + 16 * max(2, $1.latitudes.count) }
        }
    }

    /// Appends the WKB (``byteCount`` bytes) to `out`.
    func write(to out: inout [UInt8]) {
        switch kind {
        case .point:
            header(.point, to: &out)
            positions(lines[0].latitudes, lines[0].longitudes, to: &out)
        case .lineString:
            lineString(lines[0], to: &out)
        case .multiLineString:
            header(.multiLineString, to: &out)
            BitPacking.appendWord(UInt64(lines.count), bytes: 4, to: &out)
            for line in lines { lineString(line, to: &out) }
        }
    }

    private func header(_ kind: Kind, to out: inout [UInt8]) {
        out.append(1)  // little endian
        BitPacking.appendWord(UInt64(kind.code), bytes: 4, to: &out)
    }

    private func lineString(_ line: (latitudes: ArraySlice<Int32>, longitudes: ArraySlice<Int32>), to out: inout [UInt8]) {
        header(.lineString, to: &out)
        let repeated = line.latitudes.count == 1
        BitPacking.appendWord(UInt64(repeated ? 2 : line.latitudes.count), bytes: 4, to: &out)
        positions(line.latitudes, line.longitudes, to: &out)
        if repeated { positions(line.latitudes, line.longitudes, to: &out) }
    }

    /// Appends x, y pairs. The same division the store reads coordinates back with, so
    /// the doubles equal the route's own.
    private func positions(_ latitudes: ArraySlice<Int32>, _ longitudes: ArraySlice<Int32>, to out: inout [UInt8]) {
        let start = out.count, count = latitudes.count
        out.append(contentsOf: repeatElement(0, count: 16 * count))
        out.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress! + start
            for (k, (lat, lon)) in zip(latitudes, longitudes).enumerated() {
                let x = Double(lon) / FormatConstants.degreeScale, y = Double(lat) / FormatConstants.degreeScale
                base.storeBytes(of: x.bitPattern.littleEndian, toByteOffset: 16 * k, as: UInt64.self)
                base.storeBytes(of: y.bitPattern.littleEndian, toByteOffset: 16 * k + 8, as: UInt64.self)
            }
        }
    }
}
