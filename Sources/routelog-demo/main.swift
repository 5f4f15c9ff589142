import Foundation
import RouteLog
import RouteLogSamples

// The main job on a default store: save 1,000 realistic 1 Hz walks of 20 to 90
// minutes, one a day, durably; import the real GPX tracks of Tests/Fixtures/gpx; then
// show what the store holds. The last line names a real route for `routelog render`.
//
//     routelog-demo [STORE] [WALKS] [GPX-DIRECTORY]
let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "demo.routelog"
let routeCount = arguments.count > 2 ? Int(arguments[2]) ?? 1000 : 1000
let tracks = URL(fileURLWithPath: arguments.count > 3 ? arguments[3] : "Tests/Fixtures/gpx")
let url = URL(fileURLWithPath: path)

do {
    let store = try RouteStore(at: url)
    var generator = WalkGenerator(seed: 2026)
    let lastStart = Date().addingTimeInterval(-3600)
    var latencies: [Double] = []
    latencies.reserveCapacity(routeCount)
    var points = 0
    for day in 0..<routeCount {
        let start = lastStart.addingTimeInterval(-Double(routeCount - 1 - day) * 86_400 + generator.uniform(-7200, 7200))
        let route = generator.walk(start: start)
        points += route.points.count
        let began = DispatchTime.now().uptimeNanoseconds
        try store.save(route)
        latencies.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
        if (day + 1) % 100 == 0 { FileHandle.standardError.write(Data("saved \(day + 1) routes\r".utf8)) }
    }
    FileHandle.standardError.write(Data("\n".utf8))
    latencies.sort()

    // Real tracks from real devices; those without times are put on the last walk's day.
    var options = GPXImportOptions()
    options.untimedDate = lastStart
    var imported: [(file: String, ids: [RouteID], points: Int)] = []
    var failed: [String] = []
    for outcome in GPXImporter.importDirectory(tracks, into: store, options: options) {
        switch outcome.result {
        case .success(let report): imported.append((outcome.file.lastPathComponent, report.routeIDs, report.pointCount))
        case .failure(let error): failed.append("\(outcome.file.lastPathComponent): \(error)")
        }
    }
    let stats = try store.statistics()
    let recent = Calendar.current.date(byAdding: .day, value: -28, to: Date())!
    var lastFourWeeks = RouteTotals()
    for summary in try store.summaries(from: recent, to: nil) { lastFourWeeks.add(summary) }
    func f(_ x: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", x) }
    print("store            \(url.path)")
    print("routes           \(try store.count) (\(routeCount) generated walks saved durably)")
    print("points           \(stats.points)")
    print("bytes on disk    \(stats.totalBytes) (\(f(Double(stats.totalBytes) / 1_048_576)) MiB)")
    print("bytes per point  \(f(Double(stats.totalBytes) / Double(max(1, stats.points)), 2))")
    print("median save      \(f(latencies[latencies.count / 2], 2)) ms (durable, \(points / max(1, routeCount)) points a route on average)")
    print("last 4 weeks     \(lastFourWeeks.routeCount) routes, \(f(lastFourWeeks.distance / 1000)) km, \(f(lastFourWeeks.duration / 3600)) h, \(Int(lastFourWeeks.calories)) kcal")
    let realRoutes = imported.reduce(0) { $0 + $1.ids.count }, realPoints = imported.reduce(0) { $0 + $1.points }
    print("real GPX tracks  \(realRoutes) routes, \(realPoints) points from \(imported.count) files in \(tracks.path)"
          + (failed.isEmpty ? "" : "; not imported: \(failed.joined(separator: "; "))"))
    // A run recorded by a Garmin watch, with heart rate, is the one to draw.
    let newest = try store.summaries().last?.id
    let pick = imported.first { $0.file.contains("garmin-activity") }?.ids.first
        ?? imported.flatMap(\.ids).first ?? newest
    if let pick { print("route to render  \(pick)") }
    try store.close()
} catch {
    FileHandle.standardError.write(Data("routelog-demo: \(error)\n".utf8))
    exit(1)
}
