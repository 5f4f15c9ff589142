import Foundation
import Testing
import RouteLog

/// `routelog export STORE DIR --format parquet [--partition month] [--uncompressed]`.
@Suite struct RoutelogParquetExportTests {
    @Test func exportWritesBothTablesAndSaysWhatItWrote() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let out = dir.path("out")
        let result = try CLI.run(["export", store.path, out.path, "--format", "parquet", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try parseJSON(result.stdout)
        #expect(json["routes"] as? Int == 4 && json["points"] as? Int == 1500 + 2400 + 3000 + 12)
        #expect(json["files"] as? [String] == [out.path + "/routes.parquet", out.path + "/points.parquet"])
        #expect(json["partitions"] as? [String] == [])
        let bytes = try ["routes.parquet", "points.parquet"].reduce(0) {
            $0 + (try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent($1).path)[.size] as? Int ?? 0)
        }
        #expect(json["bytes"] as? Int == bytes)
        let text = try CLI.run(["export", store.path, out.path, "--format", "parquet", "--uncompressed"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("wrote 4 routes and 6912 points as Parquet into \(out.path) (2 files, "))
    }

    @Test func partitionMonthWritesAFolderPerMonth() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let out = dir.path("out")
        let result = try CLI.run(["export", store.path, out.path, "--format", "parquet", "--partition", "month", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try parseJSON(result.stdout)["partitions"] as? [String] == ["2026-01"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("start_month=2026-01").path).sorted()
                    == ["_routelog_export.json", "points.parquet", "routes.parquet"])
    }

    @Test func parquetOptionsNeedTheParquetFormatAndAKnownPartition() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let out = dir.path("out")
        let week = try CLI.run(["export", store.path, out.path, "--format", "parquet", "--partition", "week"])
        #expect(week.status == 2 && week.stderr.contains("bad partition 'week' for --partition"))
        let gpx = try CLI.run(["export", store.path, out.path, "--partition", "month"])
        #expect(gpx.status == 2 && gpx.stderr.contains("--partition is for --format parquet"))
        let flag = try CLI.run(["export", store.path, out.path, "--format", "csv", "--uncompressed"])
        #expect(flag.status == 2 && flag.stderr.contains("--uncompressed is for --format parquet"))
        #expect(!FileManager.default.fileExists(atPath: out.path), "a usage error writes nothing")
    }
}
