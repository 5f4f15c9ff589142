import Foundation
import Testing
@testable import routelog

/// DATE and DURATION, the two value syntaxes with rules of their own.
@Suite struct ValueParserFormatsTests {
    static let utc = TimeZone(secondsFromGMT: 0)!
    static let rome = TimeZone(identifier: "Europe/Rome")!

    func iso(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func aDayIsLocalMidnight() {
        #expect(ValueParsers.date("2026-11-29", timeZone: Self.utc) == DateArgument(date: iso("2026-11-29T00:00:00Z"), isDay: true))
        #expect(ValueParsers.date("2026-11-29", timeZone: Self.rome)?.date == iso("2026-11-28T23:00:00Z"))
        #expect(ValueParsers.date("2026-07-01", timeZone: Self.rome)?.date == iso("2026-06-30T22:00:00Z"), "summer time")
    }

    @Test func dateTimesWithAndWithoutZones() {
        #expect(ValueParsers.date("2026-11-29T07:30:00Z", timeZone: Self.rome)?.date == iso("2026-11-29T07:30:00Z"))
        #expect(ValueParsers.date("2026-11-29T07:30:00+01:00", timeZone: Self.utc)?.date == iso("2026-11-29T06:30:00Z"))
        #expect(ValueParsers.date("2026-11-29T07:30:00-0230", timeZone: Self.utc)?.date == iso("2026-11-29T10:00:00Z"))
        #expect(ValueParsers.date("2026-11-29T07:30", timeZone: Self.rome)?.date == iso("2026-11-29T06:30:00Z"), "no zone: local")
        #expect(ValueParsers.date("2026-11-29 07:30:15", timeZone: Self.utc)?.date == iso("2026-11-29T07:30:15Z"))
        let fraction = ValueParsers.date("2026-11-29T07:30:00.250Z", timeZone: Self.utc)
        #expect(fraction?.date == iso("2026-11-29T07:30:00Z").addingTimeInterval(0.25))
        #expect(fraction?.isDay == false)
    }

    @Test(arguments: ["", "2026", "2026-1-5", "2026-13-01", "2026-02-30", "2026-11-29T25:00", "2026-11-29T07:61",
                      "2026-11-29T07:30:00Q", "2026-11-29T07", "29/11/2026", "2026-11-29T07:30:00+25:00", "next tuesday",
                      "2026-11-29T07:30:00Zjunk", "２０２６-11-29"])
    func badDates(_ text: String) {
        #expect(ValueParsers.date(text, timeZone: Self.utc) == nil, "\(text) must be refused")
    }

    @Test func durations() {
        #expect(ValueParsers.duration("7d") == TimeInterval(7 * 86_400))
        #expect(ValueParsers.duration("-3h") == TimeInterval(-3 * 3600))
        #expect(ValueParsers.duration("90m") == TimeInterval(90 * 60))
        #expect(ValueParsers.duration("45s") == TimeInterval(45))
        #expect(ValueParsers.duration("2w") == TimeInterval(14 * 86_400))
        #expect(ValueParsers.duration("1d12h") == TimeInterval(36 * 3600))
        #expect(ValueParsers.duration("+1h30m") == TimeInterval(5400))
        #expect(ValueParsers.duration("1.5h") == TimeInterval(5400))
    }

    @Test(arguments: ["7x", "7", "", "-", "d", "7d3", "7 d", "7D", "--3h", "1e3s", "h7"])
    func badDurations(_ text: String) {
        #expect(ValueParsers.duration(text) == nil, "\(text) must be refused")
    }

    @Test func numbersAndIDs() {
        #expect(ValueParsers.nonNegative("4200.5") == 4200.5)
        #expect(ValueParsers.nonNegative("-1") == nil)
        #expect(ValueParsers.nonNegative("nan") == nil)
        #expect(ValueParsers.nonNegative("inf") == nil)
        #expect(ValueParsers.routeID("12")?.rawValue == 12)
        #expect(ValueParsers.routeID("0") == nil)
        #expect(ValueParsers.routeID("-1") == nil)
        #expect(ValueParsers.routeID("1.5") == nil)
    }
}
