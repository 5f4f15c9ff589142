import Foundation
import Testing
@testable import RouteLog

/// An edit whose stored metadata would be past the format's limits is refused before
/// anything is written: a route saved by a newer writer can carry extension fields this
/// version keeps without knowing, and new notes on top of them could make a record no
/// reader accepts (the edit would be lost at the next open).
@Suite struct EditPastExtensionLimitTests {
    static let walk = Fixtures.sampleWalk(seed: 3, points: 200)

    /// A store whose one route (id 1) carries `unknown` bytes of an extension field this
    /// version does not know (tag 99), its index rebuilt from the segment at the next open.
    static func storeWithUnknownField(_ dir: TemporaryDirectory, unknown: Int) throws -> URL {
        try ForgedRouteStore.make(dir, route: walk, withIndex: false) { record in
            var field = ByteWriter(capacity: unknown + 8)
            field.varint(99)
            field.varint(unknown)
            field.append(contentsOf: [UInt8](repeating: 0x41, count: unknown))
            record.metadata.unknownFields = field.bytes
        }
    }

    @Test func notesThatWouldTakeTheExtensionPastItsLimitAreRefusedAndNothingIsLost() throws {
        let dir = TemporaryDirectory()
        let url = try Self.storeWithUnknownField(dir, unknown: 62_000)
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        let before = try store.metadata(RouteID(1))
        let notes = String(repeating: "n", count: FormatConstants.maxNotesBytes)
        #expect {
            _ = try store.edit(RouteID(1), RouteEdit(notes: notes))
        } throws: { ($0 as? RouteLogError)?.code == .invalidArgument }
        // A smaller edit still goes through, and every edit reads back after a reopen.
        _ = try store.edit(RouteID(1), RouteEdit(name: "renamed"))
        try store.close()
        let reopened = try RouteStore(at: url, options: .init(mode: .readOnly))
        let after = try reopened.metadata(RouteID(1))
        #expect(after.name == "renamed")
        #expect(after.notes == before.notes)
        #expect(try reopened.verify().problems.isEmpty)
        try reopened.close()
    }
}
