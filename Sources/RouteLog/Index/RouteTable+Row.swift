extension RouteTable {
    /// One live route, fixed width (80 bytes): its id, record location, metadata place
    /// and shape, packed in ten words.
    ///
    /// | word | holds |
    /// |---|---|
    /// | 0 | id |
    /// | 1 | record segment (top 24 bits), offset (low 40) |
    /// | 2 | metadata start (low 42 bits), byte count (next 20), extras flag, wide flag |
    /// | 3 | first time, ms (low 43 bits), point count (top 21) |
    /// | 4 | duration, ms (low 37 bits), record length (top 27) |
    /// | 5 | distance |
    /// | 6-9 | bounding box, first and last coordinate (Int32 each) |
    ///
    /// The metadata is ``metadataCount`` bytes at `metadataStart` in the table's
    /// metadata bytes. A route that does not fit those bits (``fits(_:_:)``: a segment
    /// from 2^24, an offset from 2^40, 2^21 points or more, a duration of 2^37 ms, about
    /// 4.4 years, or more) is "wide": its location and shape are kept in the table's
    /// extras instead, and the packed words hold zero. An app may save a route that long
    /// (two points years apart); the rest only a file from elsewhere names.
    struct Row: Sendable {
        let id: RouteID
        private var place: UInt64
        /// The metadata's start (low 42 bits) and byte count (the next 20), whether the
        /// extras hold more (bit 62) and whether they hold the location and shape (bit 63).
        private var metadataWord: UInt64
        private var timeWord: UInt64
        private var spanWord: UInt64
        private var distance: Double
        private var south: Int32, west: Int32, north: Int32, east: Int32
        private var startLat: Int32, startLon: Int32, endLat: Int32, endLon: Int32

        private static let offsetBits = 40, startBits = 42, countBits = 20
        private static let firstBits = 43, pointBits = 21, durationBits = 37, lengthBits = 27
        private static let extrasBit: UInt64 = 1 << 62, wideBit: UInt64 = 1 << 63

        private static func below(_ value: Int64, bits: Int) -> Bool { value >= 0 && value < 1 << bits }

        /// True when `location` and `shape` fit the packed words.
        static func fits(_ location: RecordLocation, _ shape: RouteShape) -> Bool {
            location.segment < 1 << (64 - offsetBits) && below(location.offset, bits: offsetBits)
                && below(Int64(location.length), bits: lengthBits)
                && below(shape.firstMs, bits: firstBits) && shape.pointCount < 1 << pointBits
                && below(shape.durationMs, bits: durationBits)
        }

        init(id: RouteID, location: RecordLocation, shape: RouteShape, metadataStart: Int, metadataCount: Int, hasExtras: Bool) {
            self.id = id
            // Stored metadata is at most 64 KiB and a little more (format-spec.md), and
            // three times that once invalid UTF-8 is decoded and encoded again.
            precondition(metadataCount < 1 << Self.countBits, "metadata of \(metadataCount) bytes")
            let wide = !Self.fits(location, shape)
            metadataWord = UInt64(metadataCount) << Self.startBits | (hasExtras || wide ? Self.extrasBit : 0)
                | (wide ? Self.wideBit : 0)
            if wide {
                place = 0; timeWord = 0; spanWord = 0; distance = 0
                south = 0; west = 0; north = 0; east = 0; startLat = 0; startLon = 0; endLat = 0; endLon = 0
            } else {
                place = UInt64(location.segment) << Self.offsetBits | UInt64(location.offset)
                timeWord = UInt64(shape.pointCount) << Self.firstBits | UInt64(shape.firstMs)
                spanWord = UInt64(location.length) << Self.durationBits | UInt64(shape.durationMs)
                distance = shape.distance
                south = shape.south; west = shape.west; north = shape.north; east = shape.east
                startLat = shape.startLat; startLon = shape.startLon; endLat = shape.endLat; endLon = shape.endLon
            }
            self.metadataStart = metadataStart
        }

        private static func low(_ word: UInt64, _ bits: Int) -> UInt64 { word & (1 << bits - 1) }

        /// The location, unless the row is wide (then it is in the extras).
        var packedLocation: RecordLocation {
            RecordLocation(segment: UInt32(place >> Self.offsetBits), offset: Int64(Self.low(place, Self.offsetBits)),
                           length: Int(spanWord >> Self.durationBits))
        }

        /// The shape, unless the row is wide (then it is in the extras).
        var packedShape: RouteShape {
            RouteShape(firstMs: Int64(Self.low(timeWord, Self.firstBits)), durationMs: Int64(Self.low(spanWord, Self.durationBits)),
                       pointCount: UInt32(timeWord >> Self.firstBits), distance: distance,
                       south: south, west: west, north: north, east: east,
                       startLat: startLat, startLon: startLon, endLat: endLat, endLon: endLon)
        }

        /// The first time (ms) and point count, unless the row is wide: what the hot
        /// loops over every row read without making a whole shape.
        var packedFirstMs: Int64 { Int64(Self.low(timeWord, Self.firstBits)) }
        var packedPointCount: Int { Int(timeWord >> Self.firstBits) }

        var isWide: Bool { metadataWord & Self.wideBit != 0 }
        var hasExtras: Bool { metadataWord & Self.extrasBit != 0 }
        var metadataCount: Int { Int(Self.low(metadataWord >> Self.startBits, Self.countBits)) }
        var metadataStart: Int {
            get { Int(Self.low(metadataWord, Self.startBits)) }
            set {
                // 4 TiB of metadata: more than any process holds.
                precondition(newValue >= 0 && newValue < 1 << Self.startBits, "metadata at \(newValue)")
                metadataWord = metadataWord & ~(1 << Self.startBits - 1) | UInt64(newValue)
            }
        }
    }
}
