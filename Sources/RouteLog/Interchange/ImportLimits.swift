import Foundation

/// The most one imported file may ask of RouteLog, whatever its format (GPX, the old
/// app's keyed archive, and the FIT and TCX readers).
///
/// Each limit is checked while the file is read, before anything past it is kept: a
/// reader stops at the first point, name or value that passes one and throws
/// ``RouteLogError/Code/invalidArgument`` saying which limit and where, and nothing
/// from the file is saved. So a hostile or broken file costs at most what the largest
/// file these limits accept costs, and time linear in the bytes read.
///
/// A file is imported as one all-or-nothing batch, so its routes are in memory
/// together; ``pointsPerFile`` is what bounds that memory (about 210 bytes a point at
/// the peak of a save, so about 200 MiB for the default 1,000,000 points).
///
/// ```swift
/// var options = GPXImportOptions()
/// options.limits.pointsPerFile = 4_000_000    // a bigger batch, if the memory is there
/// ```
public struct ImportLimits: Sendable, Equatable {
    /// Points in one route: the store's own limit, ``RouteValidation/maxPoints``
    /// (1,000,000), which is also the default.
    public var pointsPerRoute: Int = RouteValidation.maxPoints
    /// Points in all the routes of one file together. Default: 1,000,000.
    public var pointsPerFile: Int = 1_000_000
    /// Routes in one file: tracks and planned routes with points, or an archive's route
    /// objects. Default: 10,000.
    public var routesPerFile: Int = 10_000
    /// Bytes of UTF-8 in a route's name: the store's limit, 1,024, also the default.
    public var nameBytes: Int = FormatConstants.maxNameBytes
    /// Bytes of text in one value (a number, a time), surrounding white space included.
    /// Default: 256, far more than any number or time needs.
    public var valueBytes: Int = 256
    /// Kilometre and mile splits of one route together (one split per kilometre or mile
    /// travelled, so this also bounds a route's length: 200,000 splits is about
    /// 123,000 km). Default: 200,000.
    public var splitsPerRoute: Int = 200_000
    /// Kilometre and mile splits of all the routes of one file together. Default:
    /// 1,000,000 (about 40 MB of splits): without it, a file of 10,000 short tracks that
    /// each zigzag across the globe (a few points apiece, so within the point limits)
    /// asked for two billion splits.
    public var splitsPerFile: Int = 1_000_000

    /// Different element, attribute and namespace names in one XML file (GPX, TCX).
    /// Default: 10,000, where those formats use a few dozen (see ``XMLNameBudget``).
    public var xmlNames: Int = 10_000

    /// The default limits.
    public init() {}

    /// The splits of a route that the file's split budget still has room for: `count`
    /// added to `used`, or false (nothing added) when the file would pass
    /// ``splitsPerFile``.
    func admitSplits(_ count: Int, into used: inout Int) -> Bool {
        guard count >= 0, used <= splitsPerFile, count <= splitsPerFile - used else { return false }
        used += count
        return true
    }

    /// The number of kilometre and mile splits a route of `metres` gets.
    static func splitCount(metres: Double) -> Double {
        (metres / Split.Unit.kilometre.metres).rounded(.down) + (metres / Split.Unit.mile.metres).rounded(.down)
    }

    /// `1,000,000`: counts in messages are written the way the documentation writes them.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}
