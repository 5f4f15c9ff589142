import Foundation

/// ISO 8601 / XML Schema `dateTime` text, read and written without DateFormatter: the
/// formatter is slow, locale-dependent, and drops milliseconds by default.
enum ISO8601Time {
    /// Parses `YYYY-MM-DDThh:mm:ss[.fraction][Z|±hh:mm]`. A missing zone means UTC
    /// (GPX requires UTC; files without a zone almost always mean it). Returns `nil`
    /// for anything else.
    static func parse(_ text: Substring) -> Date? {
        let bytes = Array(text.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            .reversed().drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }.reversed())
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
              let day = number(2), i < bytes.count, bytes[i] == 0x54 || bytes[i] == 0x20 else { return nil }
        i += 1
        guard let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A),
              let second = number(2) else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour <= 24, minute <= 59,
              second <= 60 else { return nil }
        var fraction = 0.0
        if i < bytes.count, bytes[i] == 0x2E {
            i += 1
            var scale = 0.1
            let start = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                fraction += Double(bytes[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < bytes.count {
            if bytes[i] == 0x5A {
                i += 1
            } else if bytes[i] == 0x2B || bytes[i] == 0x2D {
                let sign = bytes[i] == 0x2D ? -1 : 1
                i += 1
                guard let oh = number(2) else { return nil }
                _ = expect(0x3A)
                guard let om = number(2), oh <= 14, om <= 59 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        guard i == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// `2024-05-01T07:30:12.345Z`: UTC, always with milliseconds (RouteLog's precision).
    static func format(_ date: Date) -> String {
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded())
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
