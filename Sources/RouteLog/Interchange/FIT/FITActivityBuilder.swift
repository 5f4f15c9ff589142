import Foundation

/// One FIT file of a chain, as read: its positioned records as a path, and what its
/// other messages said.
struct FITActivity {
    var path = GPXPath(name: nil, isPlannedRoute: false)
    var protocolVersion: String
    /// `file_id.time_created`, for records that have no time of their own.
    var timeCreated: Date?
    /// Sports of the session messages, of the sport messages and of the laps, each
    /// once, in the order they came.
    var sessionSports = FITSportList()
    var sportMessageSports = FITSportList()
    var lapSports = FITSportList()
    var laps = 0
    var recordsWithoutPosition = 0
    var powerReadings = 0
    var pauses = 0
    var developerFields = 0
    /// Points whose time is system time (seconds since the device was switched on): the
    /// point's index and the time, made UTC at the end of the file when a
    /// `timestamp_correlation` says how.
    var systemTimes: [(index: Int, time: UInt32)] = []
    /// Each `timestamp_correlation`: the points before it, and the seconds that turn a
    /// system time into a FIT UTC time.
    var correlations: [(pointsBefore: Int, offset: Double)] = []

    /// The sessions' sports, else the sport messages', else the laps'.
    var sports: [UInt8] {
        (!sessionSports.isEmpty ? sessionSports : !sportMessageSports.isEmpty ? sportMessageSports : lapSports).inOrder
    }

    /// Notes a correlation. Of several with no point between them only the last is
    /// kept (no point takes the others), besides the first of the file, which points
    /// before any correlation take: at most two more than the points, however many the
    /// file repeats.
    mutating func correlate(pointsBefore: Int, _ offset: Double) {
        if correlations.count >= 2, correlations[correlations.count - 1].pointsBefore == pointsBefore {
            correlations[correlations.count - 1].offset = offset
        } else {
            correlations.append((pointsBefore, offset))
        }
    }
}

/// Turns decoded FIT messages into ``FITActivity`` values (messages to route).
///
/// | message (global number) | what is kept |
/// |---|---|
/// | record (20) | `position_lat`/`position_long` (semicircles, × 180 / 2³¹ to degrees), `timestamp` (s since 1989-12-31T00:00:00Z), `enhanced_altitude` else `altitude` (÷ 5 − 500 m), `enhanced_speed` else `speed` (÷ 1000 m/s), `heart_rate` (0 dropped), `cadence`, `gps_accuracy` as horizontal accuracy; `power` counted as dropped (no column) |
/// | event (21) | a timer stop (`event` 0 with `event_type` stop, stop_all, stop_disable or stop_disable_all) makes the next record start a new segment |
/// | session (18) | `sport`; `total_calories` summed into the route's calories |
/// | sport (12), lap (19) | `sport` when no session gives one; laps are counted |
/// | file_id (0) | `time_created`, the time of records without one |
/// | timestamp_correlation (162) | `timestamp` (UTC) and `system_timestamp`, each with its fraction (`fractional_…` in 1/32768 s, else `…_ms`): turns the system times of records (below 0x10000000, seconds since the device was switched on) into UTC |
///
/// A record without both coordinates is skipped and counted. Everything else (distance,
/// temperature, device info, HRV...) is not read.
struct FITActivityBuilder: FITMessageConsumer {
    let maximumPoints: Int
    /// The most files of a chain with a positioned record, each a route
    /// (``ImportLimits/routesPerFile``).
    let maximumRoutes: Int
    /// The files that held a positioned record, each an activity.
    private(set) var activities: [FITActivity] = []
    /// The files of a chain without a positioned record, counted, and what they skipped
    /// added up; their activities are not kept, so that a chain of many empty files costs
    /// no memory (it grows with the points kept, never with the file).
    private(set) var filesWithoutPoints = 0
    private(set) var skippedWithoutPoints = (recordsWithoutPosition: 0, laps: 0, developerFields: 0)
    /// The protocol version of the chain's first file.
    private(set) var firstProtocolVersion: String?
    private var current: FITActivity?
    private var pausePending = false
    private var pointCount = 0

    /// Seconds from the Unix epoch to FIT's epoch, 1989-12-31T00:00:00Z.
    static let fitEpoch: TimeInterval = 631_065_600
    private static let semicircleDegrees = 180 / 2_147_483_648.0

    init(maximumPoints: Int, maximumRoutes: Int = ImportLimits().routesPerFile) {
        self.maximumPoints = maximumPoints
        self.maximumRoutes = maximumRoutes
    }

    mutating func fileStarted(_ header: FITFileHeader) {
        current = FITActivity(protocolVersion: header.protocolText)
        pausePending = false
    }

    mutating func fileEnded() {
        if var current {
            if firstProtocolVersion == nil { firstProtocolVersion = current.protocolVersion }
            if current.path.isEmpty {
                filesWithoutPoints += 1
                skippedWithoutPoints.recordsWithoutPosition += current.recordsWithoutPosition
                skippedWithoutPoints.laps += current.laps
                skippedWithoutPoints.developerFields += current.developerFields
            } else {
                Self.correlate(&current)
                activities.append(current)
            }
        }
        current = nil
    }

    /// Gives each point whose time was system time the UTC time of the correlation
    /// that came last before it (the first one for points before any): a device may
    /// correlate again as its clock drifts. With no correlation the points stay
    /// without a time.
    static func correlate(_ activity: inout FITActivity) {
        guard let first = activity.correlations.first else { return }
        var next = 0, offset = first.offset
        for (index, time) in activity.systemTimes {
            while next < activity.correlations.count, activity.correlations[next].pointsBefore <= index {
                offset = activity.correlations[next].offset
                next += 1
            }
            activity.path.setTime(at: index, fitEpoch + Double(time) + offset)
        }
        activity.systemTimes = []
        activity.correlations = []
    }

    /// The offset a `timestamp_correlation` gives, nil unless its UTC time is one and
    /// lies after its system time.
    static func correlationOffset(_ message: FITMessage) -> Double? {
        guard let utc = message.timestamp, utc >= firstAbsoluteTime,
              let system = message.unsigned(1), system < utc else { return nil }
        func fraction(_ scaled: UInt8, _ milliseconds: UInt8) -> Double {
            if let value = message.unsigned(scaled), value < 32768 { return Double(value) / 32768 }
            if let value = message.unsigned(milliseconds), value < 1000 { return Double(value) / 1000 }
            return 0
        }
        return Double(utc) + fraction(0, 4) - (Double(system) + fraction(2, 5))
    }

    mutating func consume(_ message: FITMessage) throws {
        guard current != nil else { return }
        current!.developerFields += message.definition.developerFieldCount
        switch message.globalNumber {
        case 20: try record(message)
        case 21:
            let stops: Set<UInt32> = [1, 4, 8, 9]
            if message.unsigned(0) == 0, let type = message.unsigned(1), stops.contains(type) { pausePending = true }
        case 18:
            if let sport = message.unsigned(5), sport <= 255 { current!.sessionSports.insert(UInt8(sport)) }
            if let calories = message.number(11) { current!.path.calories = (current!.path.calories ?? 0) + calories }
        case 19:
            current!.laps += 1
            if let sport = message.unsigned(25), sport <= 255 { current!.lapSports.insert(UInt8(sport)) }
        case 12:
            if let sport = message.unsigned(0), sport <= 255 { current!.sportMessageSports.insert(UInt8(sport)) }
        case 0:
            if let created = message.unsigned(4) { current!.timeCreated = Self.absoluteDate(created) }
        case 162:
            if let offset = Self.correlationOffset(message) { current!.correlate(pointsBefore: current!.path.count, offset) }
        default:
            break
        }
    }

    static func date(_ fitTime: UInt32) -> Date {
        Date(timeIntervalSince1970: fitEpoch + TimeInterval(fitTime))
    }

    /// The FIT profile's `date_time`s below this are system time, seconds since the
    /// device was switched on, not UTC.
    static let firstAbsoluteTime: UInt32 = 0x1000_0000

    /// The date of a `date_time`, or nil for system time (no UTC time: the point is
    /// imported as a point without a time, as the GPX importer treats one).
    static func absoluteDate(_ fitTime: UInt32) -> Date? {
        fitTime >= firstAbsoluteTime ? date(fitTime) : nil
    }

    private mutating func record(_ message: FITMessage) throws {
        guard let lat = message.number(0), let lon = message.number(1) else {
            current!.recordsWithoutPosition += 1
            return
        }
        guard pointCount < maximumPoints else {
            throw FITDecodingProblem("the file has more than \(maximumPoints) positioned records, the most "
                + "RouteLog imports from one file", isLimit: true)
        }
        // This file's first positioned record makes it a route.
        guard !current!.path.isEmpty || activities.count < maximumRoutes else {
            throw FITDecodingProblem("the file has more than \(ImportLimits.grouped(maximumRoutes)) chained FIT files "
                + "with positioned records, each a route (ImportLimits.routesPerFile); split the file", isLimit: true)
        }
        let latitude = lat * Self.semicircleDegrees, longitude = lon * Self.semicircleDegrees
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw FITDecodingProblem("a record's position \(latitude), \(longitude) is outside -90...90, -180...180")
        }
        let time = message.timestamp.flatMap(Self.absoluteDate)
        var point = TrackPoint(latitude: latitude, longitude: longitude, timestamp: time ?? Date(timeIntervalSince1970: 0))
        point.altitude = (message.number(78) ?? message.number(2)).map { $0 / 5 - 500 }
        point.speed = (message.number(73) ?? message.number(6)).map { $0 / 1000 }
        point.heartRate = message.number(3).flatMap { $0 > 0 ? $0 : nil }
        point.cadence = message.number(4)
        point.horizontalAccuracy = message.number(31)
        if message.number(7) != nil { current!.powerReadings += 1 }
        if pausePending, !current!.path.isEmpty {
            current!.path.segmentStarts.append(current!.path.count)
            current!.pauses += 1
        }
        pausePending = false
        if time == nil, let system = message.timestamp { current!.systemTimes.append((current!.path.count, system)) }
        current!.path.append(GPXPointValues(point, hasTime: time != nil))
        pointCount += 1
    }
}
