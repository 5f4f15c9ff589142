import Foundation
import Testing
@testable import RouteLog

/// format-spec.md ends with the hex of a tiny store; this rebuilds that store and
/// checks every byte the spec shows, so the spec cannot drift from the code.
@Suite struct FormatWorkedExampleTests {
    /// The example route's uuid (a save without one draws a random one).
    static let uuid = UUID(uuidString: "0A1B2C3D-4E5F-4061-8273-8495A6B7C8D9")!

    static func exampleSegment() throws -> [UInt8] {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let point = TrackPoint(latitude: 45.5, longitude: 9.25, timestamp: Date(timeIntervalSince1970: 1_767_225_600))
        let id = try store.save(Route(points: [point], metadata: RouteMetadata(uuid: uuid)))
        #expect(id == RouteID(1))
        try store.close()
        return Array(try Data(contentsOf: dir.store().appendingPathComponent("seg-00000001.rlseg")))
    }

    /// The bytes of the spec's worked example: hex pairs after a 4-digit offset,
    /// up to the two spaces before the comment.
    static func specBytes(under heading: String = "## Worked example") throws -> [(offset: Int, bytes: [UInt8])] {
        let spec = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("format-spec.md"), encoding: .utf8)
        guard let start = spec.range(of: heading) else { return [] }
        let section = spec[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var rows: [(Int, [UInt8])] = []
        for line in section[..<end].split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count > 2, parts[0].count == 4, let offset = Int(parts[0], radix: 16) else { continue }
            var bytes: [UInt8] = []
            for token in parts.dropFirst() {
                if token.isEmpty { if bytes.isEmpty { continue } else { break } }
                guard token.count == 2, let byte = UInt8(token, radix: 16) else { break }
                bytes.append(byte)
            }
            rows.append((offset, bytes))
        }
        return rows
    }

    @Test func theSpecShowsTheRealBytes() throws {
        let actual = try Self.exampleSegment()
        let rows = try Self.specBytes()
        #expect(rows.count >= 8, "the worked example should show the whole record")
        var covered = 0
        for (offset, bytes) in rows {
            #expect(offset + bytes.count <= actual.count)
            guard offset + bytes.count <= actual.count else { continue }
            #expect(Array(actual[offset..<(offset + bytes.count)]) == bytes, "spec row \(String(offset, radix: 16))")
            covered += bytes.count
        }
        #expect(covered == actual.count, "the example shows \(covered) of the segment's \(actual.count) bytes")
    }

    @Test func printTheExample() throws {
        // Keeps a readable dump in the test log for whoever updates the spec.
        let bytes = try Self.exampleSegment()
        var line = ""
        for (i, b) in bytes.enumerated() {
            if i % 16 == 0 { if !line.isEmpty { print(line) }; line = String(format: "%04X ", i) }
            line += String(format: " %02X", b)
        }
        print(line)
        #expect(bytes.count > FormatConstants.fileHeaderSize + FormatConstants.recordHeaderSize)
    }
}
