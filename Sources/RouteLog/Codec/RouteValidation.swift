import Foundation

/// Checks a route before anything is written, naming the first bad point and why.
public enum RouteValidation {
    /// The most points one route may hold (a 1 Hz recording of 11 days).
    public static let maxPoints = 1_000_000

    /// Checks every point, split and segment start of `route`, and its metadata.
    ///
    /// - Throws: ``RouteLogError/Code/invalidArgument`` for the first problem found:
    ///   an empty route, a NaN or infinite value, a coordinate out of range, a timestamp
    ///   outside 1970...2200, an out-of-range split or segment start, or bad metadata.
    public static func validate(_ route: Route) throws {
        try validateCount(route)
        for (index, point) in route.points.enumerated() {
            try validate(point, index: index)
        }
        try validateLayout(route)
        try validate(route.metadata)
    }

    static func validateCount(_ route: Route) throws {
        guard !route.points.isEmpty else {
            throw RouteLogError.invalid("the route has no points; a route needs at least one")
        }
        guard route.points.count <= maxPoints else {
            throw RouteLogError.invalid("the route has \(route.points.count) points; at most \(maxPoints) are allowed")
        }
    }

    static func validate(_ point: TrackPoint, index: Int) throws {
        func bad(_ reason: String) -> RouteLogError { .invalid("point \(index): \(reason)") }
        guard point.latitude.isFinite, (-90.0...90.0).contains(point.latitude) else {
            throw bad("latitude \(point.latitude) is outside -90...90")
        }
        guard point.longitude.isFinite, (-180.0...180.0).contains(point.longitude) else {
            throw bad("longitude \(point.longitude) is outside -180...180")
        }
        let seconds = point.timestamp.timeIntervalSince1970
        guard seconds.isFinite, seconds >= 0,
              Quantization.milliseconds(point.timestamp) < FormatConstants.latestTimestampMs
        else {
            // Foundation cannot print a date that is not finite or far out of range.
            let shown = seconds.magnitude < 1e11 ? "\(point.timestamp)" : "\(seconds) s after 1970"
            throw bad("timestamp \(shown) is outside 1970-01-01...2200-01-01")
        }
        for field in PointField.optional {
            guard let value = field.tag.value(of: point) else { continue }
            guard value.isFinite, field.limits.contains(value) else {
                throw bad("\(field.name) \(value) is not a finite value within \(field.limits.lowerBound)...\(field.limits.upperBound)")
            }
        }
    }

    static func validateLayout(_ route: Route) throws {
        let count = route.points.count
        for (i, split) in route.splits.enumerated() {
            guard (0..<count).contains(split.pointIndex) else {
                throw RouteLogError.invalid("split \(i): point index \(split.pointIndex) is outside 0..<\(count)")
            }
            guard split.elapsedTime.isFinite, split.elapsedTime >= 0, split.elapsedTime < 1e11 else {
                throw RouteLogError.invalid("split \(i): elapsed time \(split.elapsedTime) s is not a finite, non-negative time")
            }
        }
        var previous = 0
        for start in route.segmentStarts {
            guard start > previous, start < count else {
                throw RouteLogError.invalid("segment start \(start) must be in 1..<\(count) and larger than the one before")
            }
            previous = start
        }
    }

    static func validate(_ metadata: RouteMetadata) throws {
        if let name = metadata.name, name.utf8.count > FormatConstants.maxNameBytes {
            throw RouteLogError.invalid("metadata: the name is \(name.utf8.count) bytes of UTF-8; at most \(FormatConstants.maxNameBytes)")
        }
        if let calories = metadata.calories, !(calories.isFinite && calories >= 0 && calories < 1e9) {
            throw RouteLogError.invalid("metadata: calories \(calories) must be finite and non-negative")
        }
        if let distance = metadata.distance, !(distance.isFinite && distance >= 0 && distance < 1e12) {
            throw RouteLogError.invalid("metadata: distance \(distance) m must be finite and non-negative")
        }
        try validateExtension(metadata)
    }

    /// The limits of activity, notes, tags and values (format-spec.md, "Segment records").
    private static func validateExtension(_ metadata: RouteMetadata) throws {
        func bytes(_ text: String, _ limit: Int, _ what: String, allowEmpty: Bool = true) throws {
            let count = text.utf8.count
            guard count <= limit, allowEmpty || count > 0 else {
                throw RouteLogError.invalid("metadata: \(what) is \(count) bytes of UTF-8; it must be \(allowEmpty ? "" : "1 to ")at most \(limit)")
            }
        }
        if case .custom(let name)? = metadata.activity {
            try bytes(name, FormatConstants.maxActivityNameBytes, "the custom activity kind's name", allowEmpty: false)
        }
        if let notes = metadata.notes { try bytes(notes, FormatConstants.maxNotesBytes, "the notes") }
        guard metadata.tags.count <= FormatConstants.maxTags else {
            throw RouteLogError.invalid("metadata: \(metadata.tags.count) tags; at most \(FormatConstants.maxTags)")
        }
        for tag in metadata.tags { try bytes(tag, FormatConstants.maxTagBytes, "tag \"\(tag.prefix(20))\"", allowEmpty: false) }
        guard metadata.values.count <= FormatConstants.maxValues else {
            throw RouteLogError.invalid("metadata: \(metadata.values.count) values; at most \(FormatConstants.maxValues)")
        }
        for (key, value) in metadata.values {
            try bytes(key, FormatConstants.maxValueKeyBytes, "value key \"\(key.prefix(20))\"", allowEmpty: false)
            try bytes(value, FormatConstants.maxValueBytes, "the value of \"\(key.prefix(20))\"")
        }
    }
}
