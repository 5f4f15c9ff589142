import Foundation
import Testing
@testable import routelog

/// A store's figures are checked as they are read, but not all against what a writer
/// could have made: a forged route can carry calories of 1e300, or altitudes whose climb
/// sums past Int.max. The command's formatting says such numbers as they are instead of
/// stopping on `Int(_:)`.
@Suite struct HugeFiguresFormattingTests {
    @Test func wholeNumbersOfAnySize() {
        #expect(Formatting.whole(248.4) == "248")
        #expect(Formatting.whole(-3.5) == "-4")
        #expect(Formatting.whole(-0.2) == "0")
        #expect(Formatting.whole(9.3e18) == "9300000000000000000")
        #expect(Formatting.whole(1e300).count == 301)
        #expect(Formatting.whole(-1e300).hasPrefix("-1000000000"))
        #expect(Formatting.whole(.infinity) == "inf")
        #expect(Formatting.whole(-.infinity) == "-inf")
        #expect(Formatting.whole(.nan) == "nan")
        #expect(Formatting.calories(1e300) == Formatting.whole(1e300))
    }

    @Test func durationsPastAMillionHoursAreSecondsNotATrap() {
        #expect(Formatting.duration(3723) == "1:02:03")
        #expect(Formatting.duration(123) == "2:03")
        #expect(Formatting.duration(1e300) == Formatting.whole(1e300) + " s")
        #expect(Formatting.duration(.nan) == "nan s")
        #expect(Formatting.duration(.infinity) == "inf s")
        #expect(Formatting.duration(-5) == "0:00")
    }
}
