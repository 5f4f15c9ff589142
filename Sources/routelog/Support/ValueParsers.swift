import Foundation
import RouteLog

/// A date from the command line, and whether it named a whole day (no time of day).
struct DateArgument: Sendable, Equatable {
    var date: Date
    var isDay: Bool
}

/// The value syntaxes of the command line: DATE, DURATION, ID, numbers and units.
/// Each returns nil for text it does not accept; ``ParsedArguments``'s typed getters
/// turn that into a usage error that shows the expected form.
enum ValueParsers {
    /// ISO 8601: `2026-11-29` (local midnight), `2026-11-29T07:30` (local time),
    /// `2026-11-29T07:30:00Z`, `2026-11-29T07:30:00.250+01:00`. A space may stand for
    /// the `T`. Impossible dates (`2026-02-30`, `25:00`) are refused.
    static func date(_ text: String, timeZone: TimeZone = .current) -> DateArgument? {
        var scanner = Substring(text)
        func number(_ digits: Int) -> Int? {
            let part = scanner.prefix(digits)
            guard part.count == digits, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            scanner = scanner.dropFirst(digits)
            return Int(part)
        }
        func skip(_ character: Character) -> Bool {
            guard scanner.first == character else { return false }
            scanner = scanner.dropFirst()
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2) else { return nil }
        var components = DateComponents(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        var zone = timeZone
        var nanoseconds = 0
        let isDay = scanner.isEmpty
        if !isDay {
            guard skip("T") || skip("t") || skip(" "),
                  let hour = number(2), skip(":"), let minute = number(2) else { return nil }
            components.hour = hour
            components.minute = minute
            if skip(":") {
                guard let second = number(2) else { return nil }
                components.second = second
                if skip(".") || skip(",") {
                    let digits = scanner.prefix { $0.isASCII && $0.isNumber }
                    guard !digits.isEmpty, digits.count <= 9 else { return nil }
                    nanoseconds = Int(digits.padding(toLength: 9, withPad: "0", startingAt: 0))!
                    scanner = scanner.dropFirst(digits.count)
                }
            }
            if skip("Z") || skip("z") {
                zone = TimeZone(secondsFromGMT: 0)!
            } else if let sign = scanner.first, sign == "+" || sign == "-" {
                scanner = scanner.dropFirst()
                guard let hours = number(2) else { return nil }
                _ = skip(":")
                let minutes = scanner.isEmpty ? 0 : number(2)
                guard let minutes, hours <= 23, minutes <= 59,
                      let offset = TimeZone(secondsFromGMT: (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60))
                else { return nil }
                zone = offset
            }
            guard scanner.isEmpty else { return nil }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let date = calendar.date(from: components) else { return nil }
        // Refuse what the calendar would roll over (February 30th, 24:61).
        let back = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        guard back.year == year, back.month == month, back.day == day, back.hour == components.hour,
              back.minute == components.minute, back.second == components.second
        else { return nil }
        return DateArgument(date: date.addingTimeInterval(Double(nanoseconds) / 1e9), isDay: isDay)
    }

    /// Seconds from `7d`, `-3h`, `90m`, `45s`, `2w`, `1d12h`, `1.5h`: an optional sign
    /// for the whole, then one or more number-and-unit pairs (w, d, h, m, s).
    static func duration(_ text: String) -> TimeInterval? {
        var rest = Substring(text)
        var sign = 1.0
        if rest.first == "-" { sign = -1; rest = rest.dropFirst() } else if rest.first == "+" { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        while !rest.isEmpty {
            let digits = rest.prefix { ($0.isASCII && $0.isNumber) || $0 == "." }
            guard !digits.isEmpty, let value = Double(digits), value.isFinite else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let unit = rest.first else { return nil }
            rest = rest.dropFirst()
            switch unit {
            case "w": total += value * 604_800
            case "d": total += value * 86_400
            case "h": total += value * 3600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
        }
        return sign * total
    }

    /// A privacy zone from `LAT,LON,METRES`: `45.4642,9.19,200`.
    static func privacyZone(_ text: String) -> PrivacyZone? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let lat = parts[0], let lon = parts[1], let metres = parts[2] else { return nil }
        return try? PrivacyZone(center: Coordinate(latitude: lat, longitude: lon), radius: metres)
    }

    /// A route id: a positive decimal integer.
    static func routeID(_ text: String) -> RouteID? { RouteID(text) }

    /// A finite number at least zero (metres, kilocalories).
    static func nonNegative(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
        return value
    }
}

/// Typed values, with the usage error a bad one deserves.
extension ParsedArguments {
    func date(_ option: String) throws -> DateArgument? {
        guard let text = value(option) else { return nil }
        guard let date = ValueParsers.date(text) else {
            throw CLIError.usage("bad date '\(text)' for --\(option)", command,
                                 todo: "use ISO 8601, like 2026-11-29 or 2026-11-29T07:30:00Z")
        }
        return date
    }

    func duration(_ option: String) throws -> TimeInterval? {
        guard let text = value(option) else { return nil }
        guard let seconds = ValueParsers.duration(text) else {
            throw CLIError.usage("bad duration '\(text)' for --\(option)", command,
                                 todo: "use a number and a unit (w, d, h, m, s), like 7d, -3h, 90m, 45s or 1d12h")
        }
        return seconds
    }

    func nonNegative(_ option: String) throws -> Double? {
        guard let text = value(option) else { return nil }
        guard let number = ValueParsers.nonNegative(text) else {
            throw CLIError.usage("bad number '\(text)' for --\(option)", command, todo: "give a number of at least 0, like 250 or 4200.5")
        }
        return number
    }

    /// Every `--privacy-zone`, each zone once (in the order first given); more distinct
    /// zones than a store keeps is a usage error, whatever the command.
    func privacyZones(_ option: String = "privacy-zone") throws -> [PrivacyZone] {
        var seen = Set<PrivacyZone>()
        let zones = try values(option).map { text in
            guard let zone = ValueParsers.privacyZone(text) else {
                throw CLIError.usage("bad privacy zone '\(text)' for --\(option)", command,
                                     todo: "give LAT,LON,METRES: a latitude, a longitude and a radius of more than 0 and at most 100000 metres, like 45.4642,9.19,200")
            }
            return zone
        }.filter { seen.insert($0).inserted }
        let limit = StoreSettings.maximumPrivacyZones
        guard zones.count <= limit else {
            throw CLIError.usage("\(zones.count) privacy zones given; at most \(limit) are allowed", command,
                                 todo: "give at most \(limit) different zones with --\(option)")
        }
        return zones
    }

    /// A whole number of at least 1 (`--limit`).
    func count(_ option: String) throws -> Int? {
        guard let text = value(option) else { return nil }
        guard let number = Int(text), number >= 1 else {
            throw CLIError.usage("bad count '\(text)' for --\(option)", command, todo: "give a whole number of at least 1, like 12")
        }
        return number
    }

    func units() throws -> DistanceUnit {
        guard let text = value("units") else { return .kilometres }
        guard let units = DistanceUnit(rawValue: text) else {
            throw CLIError.usage("bad units '\(text)' for --units", command, todo: "use km or mi")
        }
        return units
    }

    /// Every positional from `position` on as a route id.
    func routeIDs(from position: Int) throws -> [RouteID] {
        try positionals.dropFirst(position).map { text in
            guard let id = ValueParsers.routeID(text) else {
                throw CLIError.usage("'\(text)' is not a route id", command, todo: "ids are whole numbers from 1 up; 'routelog ls STORE' lists them")
            }
            return id
        }
    }

    /// The STORE argument (always the first positional) as a URL.
    var storeURL: URL { URL(fileURLWithPath: positionals[0]) }
}
