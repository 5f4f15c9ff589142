import Foundation
import RouteLog

/// What the index costs a process that opens a store: the time to open it (the index
/// read and made ready to list) and the memory it keeps resident, each against the
/// aims at 100,000 routes (15 ms, 150 bytes a route).
enum IndexFootprint {
    static let openAimSeconds = 0.015
    static let residentAimBytes = 150.0

    /// Measures a store that exists already (`routelog-bench --open STORE`).
    static func measure(_ directory: URL) throws {
        let store = try RouteStore(at: directory, options: .init(mode: .readOnly))
        let count = try store.count
        try store.close()
        print("Index of \(directory.path): \(Format.count(count)) routes")
        try measure(directory, routeCount: count)
    }

    static func measure(_ directory: URL, routeCount: Int) throws {
        // Warm the page cache once, so that every timed open reads from memory.
        try RouteStore(at: directory, options: .init(mode: .readOnly)).close()
        var opens: [Double] = []
        for _ in 0..<11 {
            let (store, seconds) = try Stopwatch.time {
                try RouteStore(at: directory, options: .init(mode: .readOnly))
            }
            opens.append(seconds)
            try store.close()
        }
        opens.sort()
        let open = opens[opens.count / 2]
        // A list screen lists at once: the first listing sorts the routes and makes
        // their summaries, which the open leaves for it.
        var firstListings: [Double] = []
        for _ in 0..<3 {
            let store = try RouteStore(at: directory, options: .init(mode: .readOnly))
            let (_, seconds) = try Stopwatch.time { try store.summaries().count }
            firstListings.append(seconds)
            try store.close()
        }
        firstListings.sort()
        let firstListing = firstListings[firstListings.count / 2]
        let atTarget = routeCount == 100_000
        func verdict(_ met: Bool) -> String { atTarget ? (met ? "met" : "not met") : "not measured at 100,000 routes" }
        print("  open (read-only, warm cache), median of 11: \(Format.seconds(open)); "
              + "aim at most 15 ms at 100,000 routes: \(verdict(open <= openAimSeconds)); "
              + "then the first summaries(), median of 3: \(Format.seconds(firstListing)) "
              + "(open and first listing \(verdict(open + firstListing <= openAimSeconds)))")
        // Memory in a fresh process: in this one, the growth's freed heap would be
        // reused by the open and hide what the index takes. The first open of an app's
        // process is timed there too, median of 5 processes: its pages are all new.
        var children: [(open: Int64, listed: Int64, routes: Int, seconds: Double)] = []
        for _ in 0..<5 {
            guard let child = try childResident(directory) else {
                print("  index resident bytes: not measured (no /proc/self/status)")
                return
            }
            children.append(child)
        }
        children.sort { $0.seconds < $1.seconds }
        let resident = children[children.count / 2]
        print("  first open in a fresh process (warmed by a one-route store), median of 5: \(Format.seconds(resident.seconds)); "
              + "aim at most 15 ms at 100,000 routes: \(verdict(resident.seconds <= openAimSeconds))")
        for (when, bytes) in [("after open", resident.open), ("after the first summaries()", resident.listed)] {
            let perRoute = Double(bytes) / Double(max(1, resident.routes))
            print("  index resident in a fresh process (warmed by a one-route store) \(when): \(Format.count(Int(bytes))) bytes, "
                  + "\(Int(perRoute.rounded())) bytes a route; aim at most 150 at 100,000 routes: \(verdict(perRoute <= residentAimBytes))")
        }
    }

    /// Opens `directory` read-only and closes it again for `seconds`, then prints the
    /// count and the median open: a loop of opens alone, for a profiler. With
    /// `listing`, each open is followed by its first `summaries()`, timed apart.
    static func openLoop(_ directory: URL, seconds: Double, listing: Bool = false) throws {
        var opens: [Double] = [], listings: [Double] = []
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            let (store, elapsed) = try Stopwatch.time { try RouteStore(at: directory, options: .init(mode: .readOnly)) }
            opens.append(elapsed)
            if listing { listings.append(try Stopwatch.time { try store.summaries().count }.1) }
            try store.close()
        }
        opens.sort()
        listings.sort()
        print("\(opens.count) opens of \(directory.path), median \(Format.seconds(opens[opens.count / 2]))"
              + (listing ? "; first summaries(), median \(Format.seconds(listings[listings.count / 2]))" : ""))
    }

    /// Runs `routelog-bench --index-footprint STORE` and reads its one line.
    private static func childResident(_ directory: URL) throws -> (open: Int64, listed: Int64, routes: Int, seconds: Double)? {
        guard let executable = Bundle.main.executableURL else { throw BenchError("cannot find my own executable") }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--index-footprint", directory.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let counts = fields.prefix(3).compactMap { Int64($0) }
        guard process.terminationStatus == 0, fields.count == 4, counts.count == 3, let seconds = Double(fields[3]) else {
            if output.contains("not measured") { return nil }
            throw BenchError("--index-footprint printed \(output.debugDescription)")
        }
        return (counts[0], counts[1], Int(counts[2]), seconds)
    }

    /// The child: resident bytes more than before it opened `directory` read-only,
    /// after the open and after a first listing, and the open's seconds; prints "OPEN
    /// LISTED ROUTES SECONDS". A store of one route is made, opened and listed first, so
    /// that what the library and the runtime set up once in a process (about 2 MB) is not
    /// counted as the index's. The open is an app's first: its memory is fresh pages.
    static func child(_ directory: URL) throws {
        try warmUp()
        guard let before = ProcessStats.residentBytes() else {
            print("not measured")
            return
        }
        let (store, seconds) = try Stopwatch.time { try RouteStore(at: directory, options: .init(mode: .readOnly)) }
        let opened = ProcessStats.residentBytes() ?? before
        let summaries = try store.summaries()
        let listed = ProcessStats.residentBytes() ?? opened
        withExtendedLifetime(store) {}
        print("\(opened - before) \(listed - before) \(summaries.count) \(seconds)")
    }

    /// Saves, opens and lists a store of one route in a temporary directory.
    private static func warmUp() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("routelog-warm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try RouteStore(at: directory, options: .init(mode: .createIfMissing))
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        try writer.save(Route(points: [TrackPoint(latitude: 48, longitude: 11, timestamp: start),
                                       TrackPoint(latitude: 48.001, longitude: 11.001, timestamp: start + 60)]))
        try writer.close()
        let reader = try RouteStore(at: directory, options: .init(mode: .readOnly))
        _ = try reader.summaries()
        try reader.close()
    }
}
