import Foundation
import RouteLog
import RouteLogSamples
import Testing
@testable import routelog_bench

@Suite struct KeyedArchiveEngineTests {
    /// The archive baseline must read back what it wrote, with and without a name, or a
    /// benchmark run dies in its first growth step.
    @Test func archivesAndReadsBackRoutesWithAndWithoutNames() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyed-archive-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var walks = WalkGenerator(seed: 5)
        var named = walks.walk(points: 30, start: Date(timeIntervalSince1970: 1_700_000_000))
        named.metadata.name = "named"
        let unnamed = walks.walk(points: 30, start: Date(timeIntervalSince1970: 1_700_100_000))
        let engine = try KeyedArchiveEngine(directory: directory)
        try engine.prepare(durable: false)
        try engine.save(named)
        try engine.save(unnamed)
        try engine.close()
        try engine.open()
        #expect(try engine.listSummaries() == 2)
    }
}
