import Foundation

/// A route's editable metadata as stored: the app's fields plus the time shift
/// (format-spec.md, "Metadata").
struct StoredMetadata: Equatable, Sendable {
    var name: String?
    var calories: Double?
    var distance: Double?
    var shiftMs: Int64 = 0

    init(_ metadata: RouteMetadata, shiftMs: Int64 = 0) {
        name = metadata.name
        calories = metadata.calories
        distance = metadata.distance
        self.shiftMs = shiftMs
    }

    var routeMetadata: RouteMetadata { RouteMetadata(name: name, calories: calories, distance: distance) }

    func write(to w: inout ByteWriter) {
        typealias Flag = FormatConstants.MetadataFlag
        let nameBytes = name.map { Array($0.utf8) }
        w.u8((nameBytes == nil ? 0 : Flag.name) | (calories == nil ? 0 : Flag.calories) | (distance == nil ? 0 : Flag.distance))
        w.i64(shiftMs)
        if let calories { w.f64(calories) }
        if let distance { w.f64(distance) }
        if let nameBytes {
            w.u16(UInt16(nameBytes.count))
            w.append(contentsOf: nameBytes)
        }
    }

    init(from r: inout ByteReader) throws {
        typealias Flag = FormatConstants.MetadataFlag
        let flags = try r.u8()
        guard flags & ~Flag.all == 0 else { throw r.fail("unknown metadata flags \(flags)") }
        shiftMs = try r.i64()
        // An edit keeps a route inside 1970...2200, so a shift is never larger than that span.
        guard (-FormatConstants.latestTimestampMs...FormatConstants.latestTimestampMs).contains(shiftMs) else {
            throw r.fail("time shift \(shiftMs) ms")
        }
        if flags & Flag.calories != 0 {
            let v = try r.f64()
            guard v.isFinite, v >= 0 else { throw r.fail("calories \(v)") }
            calories = v
        }
        if flags & Flag.distance != 0 {
            let v = try r.f64()
            guard v.isFinite, v >= 0 else { throw r.fail("distance \(v)") }
            distance = v
        }
        if flags & Flag.name != 0 {
            let length = Int(try r.u16())
            guard length <= FormatConstants.maxNameBytes else { throw r.fail("name of \(length) bytes") }
            name = String(decoding: try r.bytes(length), as: UTF8.self)
        }
    }
}
