import Foundation

/// ISO 8601 / XML Schema `dateTime` text, read and written without DateFormatter: the
/// formatter is slow, locale-dependent, and drops milliseconds by default.
enum ISO8601Time {
    /// What a time's text turned out to be.
    enum Reading: Equatable {
        /// A date and time that exists.
        case date(Date)
        /// Not in the form `YYYY-MM-DDThh:mm:ss[.fraction][Z|±hh:mm]`.
        case malformed
        /// In that form, but naming a moment the calendar does not have; the text says
        /// why ("2024-02 has 29 days").
        case impossible(String)
    }

    /// Parses `YYYY-MM-DDThh:mm:ss[.fraction][Z|±hh:mm]`, or nil for anything else,
    /// impossible dates included (see ``read(_:)``).
    static func parse(_ text: Substring) -> Date? {
        if case .date(let date) = read(text) { return date }
        return nil
    }

    /// Reads `YYYY-MM-DDThh:mm:ss[.fraction][Z|±hh:mm]` (a space may stand for the `T`,
    /// the zone's colon may be left out). A missing zone means UTC (GPX requires UTC;
    /// files without a zone almost always mean it).
    ///
    /// The calendar is checked, never rolled over: the day must exist in its month
    /// (`2024-02-30` is impossible, not March 1st), `24:00:00` is the end of its day (as
    /// XML Schema 1.0 allows) but no other time past 23:59:59 is, and second 60 is
    /// accepted only where UTC inserts leap seconds, at 23:59:60 UTC, and read as the
    /// next second (POSIX time has no leap seconds).
    static func read(_ text: Substring) -> Reading {
        // One pass over contiguous bytes: every point of an import has a time.
        var text = text
        return text.withUTF8 { all in
            func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
            var start = 0, end = all.count
            while start < end, isSpace(all[start]) { start += 1 }
            while end > start, isSpace(all[end - 1]) { end -= 1 }
            return read(UnsafeBufferPointer(rebasing: all[start..<end]))
        }
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Reading {
        var i = 0
        func number(_ width: Int) -> Int? {
            guard i + width <= bytes.count else { return nil }
            var value = 0
            for b in bytes[i..<i + width] {
                guard b >= 0x30, b <= 0x39 else { return nil }
                value = value * 10 + Int(b - 0x30)
            }
            i += width
            return value
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D),
              let day = number(2), i < bytes.count, bytes[i] == 0x54 || bytes[i] == 0x20 else { return .malformed }
        i += 1
        guard let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A),
              let second = number(2) else { return .malformed }
        var fraction = 0.0
        var fractionIsZero = true
        if i < bytes.count, bytes[i] == 0x2E {
            i += 1
            var scale = 0.1
            let start = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                fraction += Double(bytes[i] - 0x30) * scale
                if bytes[i] != 0x30 { fractionIsZero = false }
                scale /= 10
                i += 1
            }
            guard i > start else { return .malformed }
        }
        var offset = 0
        if i < bytes.count {
            if bytes[i] == 0x5A {
                i += 1
            } else if bytes[i] == 0x2B || bytes[i] == 0x2D {
                let sign = bytes[i] == 0x2D ? -1 : 1
                i += 1
                guard let oh = number(2) else { return .malformed }
                _ = expect(0x3A)
                guard let om = number(2) else { return .malformed }
                guard oh <= 14, om <= 59, oh * 60 + om <= 14 * 60 else {
                    return .impossible("the zone offset is past \u{B1}14:00")
                }
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        guard i == bytes.count else { return .malformed }
        guard (1...12).contains(month) else { return .impossible("there is no month \(month)") }
        let length = daysIn(year: year, month: month)
        guard (1...length).contains(day) else {
            return .impossible("\(pad(year, 4))-\(pad(month, 2)) has \(length) days")
        }
        let endOfDay = hour == 24 && minute == 0 && second == 0 && fractionIsZero
        guard hour <= 23 || endOfDay else { return .impossible("there is no hour \(hour) (24:00:00 is the only time past 23:59:59)") }
        guard minute <= 59 else { return .impossible("there is no minute \(minute)") }
        if second == 60 {
            let utcMinute = ((hour * 60 + minute - offset / 60) % 1440 + 1440) % 1440
            guard utcMinute == 23 * 60 + 59 else {
                return .impossible("second 60 exists only as a leap second, at 23:59:60 UTC")
            }
        } else if second > 60 {
            return .impossible("there is no second \(second)")
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return .date(Date(timeIntervalSince1970: seconds))
    }

    /// Days in a month of the proleptic Gregorian calendar.
    static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `2024-05-01T07:30:12.345Z`: UTC, always with milliseconds (RouteLog's precision).
    /// Total: a time no store holds (a route the app never saved, at ±10^17 s or NaN) is
    /// written as its stored integer would be, clamped as ``Quantization`` clamps, not
    /// a stop of the process.
    static func format(_ date: Date) -> String {
        let totalMillis = Quantization.milliseconds(date)
        let (days, msOfDay) = floorDivide(totalMillis, 86_400_000)
        let (y, m, d) = civilFromDays(Int(days))
        let ms = Int(msOfDay)
        let hour = ms / 3_600_000, minute = ms / 60_000 % 60, second = ms / 1000 % 60
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2)
            + ":" + pad(second, 2) + "." + pad(ms % 1000, 3) + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The inverse of ``daysFromCivil(year:month:day:)``.
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Decimal text for numbers kept at a fixed precision: written from the rounded
/// integer, so the text is exact and reads back to the same quantized value.
enum DecimalText {
    /// `value` rounded to `places` decimals, without trailing zeros ("47.1", "-0.0000001").
    static func format(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale: Double = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard abs(scaled) < 9e15 else { return String(value) }
        let integer = Int64(scaled)
        let negative = integer < 0
        let magnitude = integer.magnitude
        let divisor = UInt64(scale)
        let whole = magnitude / divisor
        var fraction = String(magnitude % divisor)
        if places > 0 {
            fraction = String(repeating: "0", count: places - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
        }
        var text = negative ? "-" : ""
        text += String(whole)
        if places > 0, !fraction.isEmpty { text += "." + fraction }
        return text
    }
}
