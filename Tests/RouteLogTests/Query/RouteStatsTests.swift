import Foundation
import Testing
@testable import RouteLog

/// Stats kept in the summary at save: what they count, that they survive reopening,
/// edits and compaction, and how they compare with gpxpy on the GPX fixtures.
@Suite struct RouteStatsTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    /// A straight line north at `speed` m/s, one point a second.
    static func line(_ count: Int, speed: Double = 2, altitude: (Int) -> Double? = { _ in nil }) -> [TrackPoint] {
        (0..<count).map { i in
            TrackPoint(latitude: 45 + Double(i) * speed / 111_195, longitude: 9, timestamp: start.addingTimeInterval(Double(i)),
                       altitude: altitude(i))
        }
    }

    @Test func noiseUnderTheThresholdAddsNoClimb() {
        // ±1.4 m of noise around a flat 100 m: nothing climbed.
        let flat = (0..<500).map { 100 + ($0 % 2 == 0 ? 1.4 : -1.4) }
        let (gain, loss) = RouteStats.elevationChange(flat, threshold: RouteStats.elevationNoiseThreshold)
        #expect(gain == 0 && loss == 0)
        // The same noise on a 60 m climb then a 20 m descent counts those, give or take the noise.
        let hill = (0..<600).map { i -> Double in
            let base = i < 400 ? Double(i) * 0.15 : 60 - Double(i - 400) * 0.1
            return base + (i % 2 == 0 ? 1.4 : -1.4)
        }
        let (g, l) = RouteStats.elevationChange(hill, threshold: 3)
        #expect(abs(g! - 60) <= 3, "gain \(g!)")
        #expect(abs(l! - 20) <= 3, "loss \(l!)")
        // Without a threshold every wiggle counts: the threshold is what removes them.
        #expect(RouteStats.elevationChange(hill, threshold: 0).gain! > 300)
        #expect(RouteStats.elevationChange([Double](), threshold: 3).gain == nil)
    }

    @Test func segmentBreaksAreNotClimbed() {
        var points = Self.line(20, altitude: { $0 < 10 ? 100 : 500 })
        let stats = RouteStats.compute(points, segmentStarts: [10])
        #expect(stats.elevationGain == 0)
        points = Self.line(20, altitude: { $0 < 10 ? 100 : 500 })
        #expect(RouteStats.compute(points).elevationGain == 400)
    }

    @Test func maxSpeedIgnoresOneJitteredFix() {
        var points = Self.line(60, speed: 2)
        // One fix 50 m off, a second after the previous one: 50 m/s for one step.
        points[30].latitude += 50 / 111_195.0
        let stats = RouteStats.compute(points)
        #expect(stats.maxSpeed < 12, "max \(stats.maxSpeed)")
        #expect(stats.maxSpeed >= 2 * 0.99)
        // The points' own speeds win when they have them.
        points[10].speed = 7.5
        #expect(RouteStats.compute(points).maxSpeed == 7.5)
        #expect(RouteStats.compute([points[0]]).maxSpeed == 0)
    }

    @Test func heartRateAndCadenceOnlyWhenPresent() {
        var points = Self.line(10)
        #expect(RouteStats.compute(points).averageHeartRate == nil)
        #expect(RouteStats.compute(points).maxCadence == nil)
        points[2].heartRate = 120
        points[3].heartRate = 150
        points[4].cadence = 80
        let stats = RouteStats.compute(points)
        #expect(stats.averageHeartRate == 135 && stats.maxHeartRate == 150)
        #expect(stats.averageCadence == 80 && stats.maxCadence == 80)
        #expect(stats.movingTime == RouteMetrics.movingTime(of: points))
    }

    @Test func statsSurviveReopenEditsAndCompaction() throws {
        let dir = TemporaryDirectory()
        var store: RouteStore? = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        var points = Self.line(600, speed: 3, altitude: { 200 + Double($0) * 0.1 })
        for i in points.indices { points[i].heartRate = Double(100 + i % 50) }
        let id = try store!.save(Route(points: points))
        let saved = try store!.summary(id)
        let stats = try #require(saved.stats)
        #expect(abs(stats.movingTime - 599) < 0.001)
        #expect(abs(stats.elevationGain! - 59.9) <= 0.01)
        #expect(stats.elevationLoss == 0)
        #expect(stats.maxHeartRate == 149)
        #expect(abs(stats.maxSpeed - 3) < 0.05)
        // A shift and other edits keep them; so do reopening and compaction.
        let edited = try store!.edit(id, RouteEdit(shift: 86_400 * 3, name: "moved"))
        #expect(edited.stats == stats)
        #expect(edited.preview == saved.preview)
        try store!.close()
        store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        #expect(try store!.summary(id).stats == stats)
        _ = try store!.save(Route(points: Self.line(5)))
        try store!.delete(RouteID(2))
        _ = try store!.compact()
        #expect(try store!.summary(id).stats == stats)
        #expect(try store!.summary(id).preview == saved.preview)
        try store!.close()
        store = nil
    }

    /// gpxpy's uphill and downhill smooth each altitude with its neighbours (0.3, 0.4,
    /// 0.3) and count every change; ours counts changes past 3 m. They measure the same
    /// climb differently, so this checks a band and prints both; and ours can never
    /// exceed the plain sum of rises gpxpy's data gives.
    @Test(.enabled(if: PythonReaders.available("gpxpy"), "needs gpxpy in .build/pyenv (make pyenv)"))
    func elevationAgreesWithGpxpy() throws {
        let script = """
        import gpxpy, json, sys
        out = {}
        for path in sys.argv[1:]:
            g = gpxpy.parse(open(path))
            segs = [[p.elevation for p in s.points if p.elevation is not None] for t in g.tracks for s in t.segments]
            up, down = g.get_uphill_downhill()
            raw = sum(max(0, b - a) for s in segs for a, b in zip(s, s[1:]))
            out[path] = {"up": up, "down": down, "raw": raw, "segments": [s for s in segs if s]}
        print(json.dumps(out))
        """
        let dir = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/gpx")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".gpx") && !$0.contains("broken") }
            .sorted().map { dir.appendingPathComponent($0).path }
        let output = try PythonReaders.script(script, files)
        let results = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: [String: Any]]
        var compared = 0
        for path in files {
            guard let r = results[path], let segments = r["segments"] as? [[Double]], !segments.isEmpty else { continue }
            var gain = 0.0, loss = 0.0
            for segment in segments {
                let (g, l) = RouteStats.elevationChange(segment, threshold: RouteStats.elevationNoiseThreshold)
                gain += g ?? 0
                loss += l ?? 0
            }
            let up = r["up"] as! Double, down = r["down"] as! Double, raw = r["raw"] as! Double
            print("\((path as NSString).lastPathComponent): gain \(Int(gain)) m (gpxpy \(Int(up))), loss \(Int(loss)) m (gpxpy \(Int(down)))")
            #expect(gain <= raw + 0.001)
            #expect(abs(gain - up) <= max(40, 0.45 * up), "\(path): gain \(gain) vs gpxpy \(up)")
            #expect(abs(loss - down) <= max(40, 0.45 * down), "\(path): loss \(loss) vs gpxpy \(down)")
            compared += 1
        }
        #expect(compared >= 8)
    }
}
