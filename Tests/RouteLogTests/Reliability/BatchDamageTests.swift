import Foundation
import Testing
@testable import RouteLog

/// A batch cut by damage keeps every intact record (issue 12, part 9). Before, a byte
/// flipped in the 4th record of a 7-route batch made three routes disappear: the intact
/// records before the damage were dropped because their batch never completed, and the
/// ones after read as a batch of their own. A batch is all-or-nothing against a crash
/// only: damage to one record costs that record alone, and verify names it.
@Suite struct BatchDamageTests {
    @Test(arguments: [0, 3, 6])
    func damageToOneRecordOfABatchCostsThatRecordAlone(_ damaged: Int) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        let before = try store.save(Fixtures.sampleWalk(seed: 100, points: 40))
        let batch = (0..<7).map { Fixtures.sampleWalk(seed: UInt64($0), points: 40) }
        let ids = try store.save(batch)
        let after = try store.save(Fixtures.sampleWalk(seed: 101, points: 40))
        let location = store.state.withLock { $0.index.routes[ids[damaged]]!.location }
        try store.close()

        let segment = url.appendingPathComponent(FormatConstants.segmentName(location.segment))
        var bytes = try Data(contentsOf: segment)
        bytes[Int(location.offset) + location.length / 2] ^= 0x40
        try bytes.write(to: segment)

        let reopened = try RouteStore(at: url, options: .init(compaction: .manual))
        for (i, id) in ids.enumerated() where i != damaged {
            #expect(try reopened.route(id).withoutUUID == RouteCodec.quantize(batch[i]), "batch record \(i) with \(damaged) damaged")
        }
        _ = try reopened.route(before)
        _ = try reopened.route(after)
        do {
            _ = try reopened.route(ids[damaged])
            Issue.record("the damaged record \(damaged) loaded")
        } catch let error as RouteLogError {
            #expect(error.code == .corrupted && error.offset == location.offset, "\(error)")
        }
        let report = try reopened.verify()
        #expect(report.problems.contains { $0.routeID == ids[damaged] }, "verify names the damaged route: \(report.problems)")
        #expect(!report.problems.contains { $0.routeID != nil && $0.routeID != ids[damaged] }, "\(report.problems)")
        #expect(try reopened.count == 9, "every route stays listed")
        try reopened.close()
    }
}
