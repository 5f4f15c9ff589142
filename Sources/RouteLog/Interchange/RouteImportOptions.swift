import Foundation

/// How the importers (``RouteImporter``, ``GPXImporter``, ``FITImporter``,
/// ``TCXImporter``) turn what a file holds into routes RouteLog can store, and the
/// limits they read within.
///
/// RouteLog needs a timestamp on every point, between 1970 and 2200, and counts no
/// distance across a segment break. The defaults below decide the cases GPX leaves open
/// (FIT and TCX files follow the same rules; a FIT record or TCX Trackpoint without a
/// time is a point without a time):
///
/// - **A path with no times at all** (planned `<rte>`s, many exports): every point gets
///   the same timestamp, the file's own `<metadata><time>` (GPX 1.1) or `<time>`
///   (GPX 1.0), FIT's `file_id.time_created`, or a TCX Activity's `<Id>` when it has
///   one, else ``untimedDate`` (by default the Unix epoch,
///   1970-01-01T00:00:00Z, a date no real recording has). Its duration, moving time
///   and split times are therefore 0: RouteLog never invents a speed.
/// - **A path where only some points have a time**: a point without one takes the time
///   interpolated (by point index) between the nearest timed points before and after
///   it; before the first timed point it takes the first time, after the last the last.
/// - **Repeated or backward timestamps** are kept as they are: a step whose time does
///   not advance counts as distance but never as moving time, and no speed is divided
///   by zero.
/// - **Jumps**: a step between two points with real times (their own `<time>` in the
///   file, not one given or interpolated) becomes a segment break (no distance, no
///   moving time) when the points are more than ``maximumGap`` apart in time, or when
///   the step is longer than ``minimumJump`` and would need more than ``maximumSpeed``
///   (or no time at all). A path whose real times never change (every point carries the
///   same time, as a planned route exported with its date on every point does) has no
///   speed to judge, and gets no breaks. Set ``breaksJumps`` to false to keep every
///   step of the file.
/// - A `<time>` that is not ISO 8601, names a moment the calendar does not have
///   (`2024-02-30`), or lies outside 1970...2200, makes the whole file fail with its
///   line and column; so does any number that is not an XML Schema decimal.
/// - **Limits**: ``limits`` (``ImportLimits``) bounds the points, routes, names and
///   values of one file; the reader stops at the first one passed.
public struct RouteImportOptions: Sendable, Equatable {
    /// The timestamp of untimed paths when the file has no time of its own.
    /// Default: 1970-01-01T00:00:00Z.
    public var untimedDate: Date = Date(timeIntervalSince1970: 0)
    /// Whether implausible steps become segment breaks. Default: true.
    public var breaksJumps: Bool = true
    /// Seconds between two timed points beyond which the step is a break (the recorder
    /// was off). Default: one hour.
    public var maximumGap: TimeInterval = 3600
    /// Metres per second beyond which a step longer than ``minimumJump`` is a break.
    /// Default: 300 m/s (1,080 km/h, faster than an airliner over ground).
    public var maximumSpeed: Double = 300
    /// Steps shorter than this many metres are never breaks, whatever their speed:
    /// GPS noise between fixes milliseconds apart is not a jump. Default: 1,000 m.
    public var minimumJump: Double = 1000
    /// Whether `<rte>` paths are imported when the file also has track points (by
    /// default they are only imported from files without tracks, since a planned route
    /// next to its recording is not a second walk).
    public var importsPlannedRoutesBesideTracks: Bool = false
    /// The most one file may hold; checked while reading. Default: ``ImportLimits/init()``.
    public var limits = ImportLimits()

    /// FIT: import a file whose file CRC or header CRC does not match, when every record
    /// still decodes (the report says so). Default: false, such a file is refused.
    public var importsDespiteBadCRC: Bool = false
    /// Whether a route already in the store (``RouteStore/existingRoute(equalTo:)``), or
    /// repeating an earlier route of the same file, is saved again. Default: false, it is
    /// left out and named in ``RouteImportReport/duplicates``.
    public var allowsDuplicates: Bool = false
    /// FIT and TCX: the most points one file may give. Reading stops with an error at
    /// the first point past it, so a hostile file cannot fill memory. Default:
    /// ``RouteValidation/maxPoints`` (1,000,000), the most one route may hold.
    public var maximumPoints: Int = RouteValidation.maxPoints
    /// TCX: the most bytes of text one element may hold (a name, a number, a time).
    /// Reading stops with an error, line and column at the first element past it.
    /// Default: 65,536 (a name may be at most 1,024 bytes, a number is a few dozen).
    public var maximumTextBytes: Int = 65_536

    /// The default policy.
    public init() {}

    /// True for the timestamps RouteLog imports, in Unix seconds: from 1970-01-01 to
    /// every time the store accepts before 2200-01-01, the last millisecond included
    /// (the test the store itself applies to the stored milliseconds).
    static func isValidTime(_ seconds: TimeInterval) -> Bool {
        seconds >= 0 && Quantization.milliseconds(seconds) < FormatConstants.latestTimestampMs
    }
}

/// The former name of ``RouteImportOptions``, from when RouteLog imported only GPX.
public typealias GPXImportOptions = RouteImportOptions
