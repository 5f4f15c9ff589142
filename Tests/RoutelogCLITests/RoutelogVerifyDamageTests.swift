import Foundation
import Testing

/// `verify` reads every byte: a flipped byte makes it exit 1 and name the route.
@Suite struct RoutelogVerifyDamageTests {
    @Test func aFlippedByteIsFoundAndTheRouteNamed() throws {
        let dir = ScratchDirectory()
        let made = try FixtureStore.make(at: dir.path("damaged.routelog"))
        let clean = try CLI.run(["verify", made.url.path])
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("no damage found"))
        #expect(clean.stderr.isEmpty, "no progress bar when stderr is not a terminal")

        let segment = made.url.appendingPathComponent("seg-00000001.rlseg")
        var bytes = try Data(contentsOf: segment)
        bytes[Int(made.recordOffsets[.init(2)]!) + 200] ^= 0x40
        try bytes.write(to: segment)

        let result = try CLI.run(["verify", made.url.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("route 2's record fails its checksum"), "\(result.stdout)")
        #expect(result.stderrLines.count == 1)
        // The damaged bytes, and the route they held.
        #expect(result.stderr.hasPrefix("routelog: found 2 problems, damaged route 2 (\(made.url.path)): every other route is readable"))

        let json = try CLI.run(["verify", made.url.path, "--json"])
        #expect(json.status == 1)
        let report = try parseJSON(json.stdout)
        #expect(report["clean"] as? Bool == false)
        #expect(report["damagedRoutes"] as? [Int] == [2])
        let problems = report["problems"] as! [[String: Any]]
        #expect(problems.allSatisfy { $0["routeID"] as? Int == 2 && $0["file"] as? String == "seg-00000001.rlseg" })
        #expect(Set(problems.map { $0["kind"] as! String }) == ["damagedBytes", "damagedRoute"])

        // The damaged route says so; the others still show; deleting it and compacting
        // makes the store whole.
        let show = try CLI.run(["show", made.url.path, "2"])
        #expect(show.status == 1)
        #expect(show.stderr.hasPrefix("routelog: route 2's record fails its checksum (\(segment.path) at offset \(made.recordOffsets[.init(2)]!)): run 'routelog verify STORE'"))
        #expect(try CLI.run(["show", made.url.path, "3"]).status == 0)
        #expect(try CLI.run(["delete", made.url.path, "2"]).status == 0)
        #expect(try CLI.run(["compact", made.url.path]).status == 0)
        let after = try CLI.run(["verify", made.url.path])
        #expect(after.status == 0, "\(after.stdout)")
    }
}
