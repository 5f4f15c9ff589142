import Foundation
import RouteLog

/// The JSON objects of `--json` output. Each kind of thing has one shape, used by every
/// command that prints it (a summary is the same in `ls`, `show`, `set` and `dump`).
/// README.md ("JSON output") documents every field; change them only with it.
///
/// Units are fixed whatever `--units` says: metres, seconds, kilocalories, degrees,
/// bytes; dates are UTC ISO 8601 strings to the millisecond.
enum JSONFields {
    static func date(_ date: Date) -> JSON { .string(Formatting.timestamp(date)) }

    static func coordinate(_ c: Coordinate) -> JSON {
        .object([("latitude", .number(c.latitude)), ("longitude", .number(c.longitude))])
    }

    /// A summary; `calories` replaces the stored figure (nil prints null: withheld).
    static func summary(_ s: RouteSummary) -> JSON { summary(s, calories: s.calories) }

    static func summary(_ s: RouteSummary, calories: Double?) -> JSON {
        .object([
            ("id", .integer(s.id.rawValue)),
            ("name", .string(s.name)),
            ("startDate", date(s.startDate)),
            ("endDate", date(s.endDate)),
            ("durationSeconds", .rounded(s.duration, 3)),
            ("distanceMetres", .rounded(s.distance, 2)),
            ("calories", calories.map { .rounded($0, 2) } ?? .null),
            ("averageSpeedMetresPerSecond", .rounded(s.averageSpeed, 3)),
            ("pointCount", .integer(s.pointCount)),
            ("startCoordinate", coordinate(s.startCoordinate)),
            ("endCoordinate", coordinate(s.endCoordinate)),
            ("boundingBox", .object([
                ("south", .number(s.boundingBox.southWest.latitude)),
                ("west", .number(s.boundingBox.southWest.longitude)),
                ("north", .number(s.boundingBox.northEast.latitude)),
                ("east", .number(s.boundingBox.northEast.longitude)),
            ])),
            ("activity", .string(s.activity?.name)),
            ("stats", s.stats.map(stats) ?? .null),
        ])
    }

    /// A route's stats; a field a route has no data for (no altitude, heart rate or
    /// cadence) is null. The whole object is null for a route saved before stats were kept.
    static func stats(_ t: RouteStats) -> JSON {
        .object([("movingSeconds", .rounded(t.movingTime, 3)), ("maxSpeedMetresPerSecond", .rounded(t.maxSpeed, 2)),
                 ("elevationGainMetres", t.elevationGain.map { .rounded($0, 2) } ?? .null),
                 ("elevationLossMetres", t.elevationLoss.map { .rounded($0, 2) } ?? .null),
                 ("averageHeartRate", t.averageHeartRate.map { .rounded($0, 1) } ?? .null),
                 ("maxHeartRate", .number(t.maxHeartRate)),
                 ("averageCadence", t.averageCadence.map { .rounded($0, 1) } ?? .null),
                 ("maxCadence", .number(t.maxCadence))])
    }

    /// The fields of a total; a week adds its own in front of them.
    static func totalsFields(_ t: RouteTotals) -> [(String, JSON)] {
        [("routeCount", .integer(t.routeCount)), ("distanceMetres", .rounded(t.distance, 2)),
         ("durationSeconds", .rounded(t.duration, 3)), ("calories", .rounded(t.calories, 2))]
    }

    static func totals(_ t: RouteTotals) -> JSON { .object(totalsFields(t)) }

    static func week(_ w: WeeklyTotals) -> JSON {
        .object([("weekStart", date(w.weekStart)), ("weekStartDay", .string(Formatting.isoDay(w.weekStart))),
                 ("isoWeek", .string(Formatting.isoWeek(w.weekStart)))] + totalsFields(w.totals))
    }

    /// One split; `number` counts from 1 within its unit, `splitSeconds` is the time
    /// since the previous split of the same unit.
    static func split(_ split: Split, number: Int, splitSeconds: TimeInterval) -> JSON {
        .object([("unit", .string(split.unit == .kilometre ? "km" : "mi")), ("number", .integer(number)),
                 ("pointIndex", .integer(split.pointIndex)), ("elapsedSeconds", .rounded(split.elapsedTime, 3)),
                 ("splitSeconds", .rounded(splitSeconds, 3))])
    }

    /// One point; `segment` numbers the recording segments from 0 (it changes after a pause).
    static func point(_ p: TrackPoint, segment: Int) -> JSON {
        .object([("timestamp", date(p.timestamp)), ("latitude", .number(p.latitude)), ("longitude", .number(p.longitude)),
                 ("altitude", .number(p.altitude)), ("horizontalAccuracy", .number(p.horizontalAccuracy)),
                 ("verticalAccuracy", .number(p.verticalAccuracy)), ("speed", .number(p.speed)),
                 ("course", .number(p.course)), ("heartRate", .number(p.heartRate)), ("cadence", .number(p.cadence)),
                 ("segment", .integer(segment))])
    }

    /// A file in the store's `lost/` folder.
    static func lostFile(_ f: VerificationReport.LostFile) -> JSON {
        .object([("name", .string(f.name)), ("bytes", .integer(f.bytes)), ("note", .string(f.note))])
    }

    /// One line on `lost/`: how many files and bytes it keeps, or why it was not listed;
    /// nil when it keeps nothing.
    static func lostSummary(_ files: [VerificationReport.LostFile], notListed: String?) -> String? {
        if let notListed { return notListed }
        guard !files.isEmpty else { return nil }
        let bytes = files.reduce(Int64(0)) { $0 + $1.bytes }
        return "\(files.count) file\(files.count == 1 ? "" : "s") (\(Formatting.bytes(bytes))) kept aside in lost/, "
            + "bytes a writer moved out of the log rather than delete them (lost/LOG says why)"
    }

    static func problem(_ p: VerificationReport.Problem) -> JSON {
        .object([("kind", .string(p.kind.rawValue)), ("file", .string((p.path as NSString).lastPathComponent)),
                 ("offset", .integer(p.offset)), ("length", .integer(p.length)),
                 ("routeID", .integer(p.routeID?.rawValue)), ("message", .string(p.message))])
    }
}
