import Foundation
import Testing
@testable import RouteLog

/// A frame hidden inside a payload is never adopted after damage (issue 12, part 2).
/// The forged frame here deletes another route; it sits in a 1 KiB route name, which is
/// valid UTF-8: "«" puts the sync marker's first byte (0xAB) after a lead byte, and the
/// route id is picked so that the frame's checksum bytes are ASCII. Damage to the
/// header of the record holding the name makes the scanner search byte by byte; version
/// 2 escapes every sync marker inside payloads, so the search can never land on it.
@Suite struct ForgedFrameResyncTests {
    /// The first id in `ids` whose forged RouteDelete frame is all valid UTF-8 once
    /// preceded by 0xC2, with that frame.
    static func forgeableDelete(among ids: [RouteID]) -> (RouteID, [UInt8])? {
        for id in ids {
            let frame = ForgedFrame(RouteDeleteRecord(id: id).payload(), type: FormatConstants.RecordType.routeDelete.rawValue).bytes
            if String(validating: [0xC2] + frame, as: UTF8.self) != nil { return (id, frame) }
        }
        return nil
    }

    /// A name of 1,024 bytes: text, then the forged frame (as "«" and what follows), twice.
    static func name(holding frame: [UInt8]) -> String {
        let forged = [0xC2] + frame
        var bytes = Array("Evening ride ".utf8)
        bytes += forged + Array(" and ".utf8) + forged
        bytes += Array(repeating: UInt8(ascii: "."), count: FormatConstants.maxNameBytes - bytes.count)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(arguments: [true, false])
    func aFrameInsideARouteNameIsNeverAdopted(_ keepIndex: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var routes: [RouteID: Route] = [:]
        for i in 0..<40 {
            let route = Fixtures.sampleWalk(seed: UInt64(i), points: 30)
            routes[try store.save(route)] = route
        }
        let (target, frame) = try #require(Self.forgeableDelete(among: routes.keys.sorted()), "one in 16 ids is forgeable")
        var carrier = Fixtures.sampleWalk(seed: 77, points: 30)
        carrier.metadata.name = Self.name(holding: frame)
        #expect(carrier.metadata.name?.utf8.count == FormatConstants.maxNameBytes)
        let start = try store.statistics().segments.last!.bytes
        let carrierID = try store.save(carrier)
        let after = try store.save(Fixtures.sampleWalk(seed: 78, points: 30))
        #expect(try store.route(carrierID).metadata.name == carrier.metadata.name, "the name is stored as given")
        let segmentName = try store.statistics().segments.last!.name
        let indexName = FormatConstants.indexName(store.state.withLock { $0.indexFileNumber })
        try store.close()

        // Damage the carrier's header: its checksum field.
        let segment = url.appendingPathComponent(segmentName)
        var bytes = try Data(contentsOf: segment)
        bytes[Int(start) + 5] ^= 0xFF
        try bytes.write(to: segment)
        if !keepIndex { try FileManager.default.removeItem(at: url.appendingPathComponent(indexName)) }

        let reopened = try RouteStore(at: url, options: .init(compaction: .manual))
        #expect(try reopened.route(target).withoutUUID == RouteCodec.quantize(routes[target]!),
                "route \(target), which the forged frame deletes, is still there")
        _ = try reopened.route(after)   // the record after the damage is found again
        for (id, route) in routes { #expect(try reopened.route(id).withoutUUID == RouteCodec.quantize(route)) }
        let report = try reopened.verify()
        #expect(report.problems.contains { $0.offset <= start && $0.offset + ($0.length ?? 1) > start },
                "the damage is reported where it is: \(report.problems)")
        #expect(try reopened.count == routes.count + (keepIndex ? 2 : 1), "the carrier stays listed only while the index vouches for it")
        try reopened.close()
    }
}
