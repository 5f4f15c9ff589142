import Foundation
import Testing
@testable import RouteLog

/// A damaged MANIFEST is reported with the file's path, the byte offset in the file
/// where the damage is (the header, the record, or the very field that makes no sense),
/// and what to do: restore from a backup.
@Suite struct ManifestDamageTests {
    /// A closed store with a privacy zone (so the record holds a setting too); its manifest's bytes.
    static func makeStore(_ dir: TemporaryDirectory) throws -> (URL, [UInt8]) {
        let url = dir.store()
        let store = try RouteStore(at: url)
        var routes = RandomRoutes(seed: 81)
        try store.save(routes.next())
        let home = try PrivacyZone(center: Coordinate(latitude: 45.4642, longitude: 9.19), radius: 200)
        try store.updateSettings { $0.privacyZones = [home] }
        try store.close()
        return (url, [UInt8](try Data(contentsOf: url.appendingPathComponent(FormatConstants.manifestName))))
    }

    static func openError(_ url: URL) -> RouteLogError? {
        do {
            _ = try RouteStore(at: url, options: .init(mode: .readOnly))
            return nil
        } catch {
            return error as? RouteLogError
        }
    }

    static let recordStart = Int64(FormatConstants.fileHeaderSize)
    static let payloadStart = recordStart + Int64(FormatConstants.recordHeaderSize)

    /// One byte flipped where it lands: the magic and the header's checksum say offset 0,
    /// the record's frame and payload (checksummed together) the record's offset.
    @Test(arguments: [(3, 0), (17, 0), (20, 20), (26, 20), (40, 20), (60, 20)])
    func aFlippedByteIsReportedWithPathAndOffset(byte: Int, offset: Int64) throws {
        let dir = TemporaryDirectory()
        let (url, original) = try Self.makeStore(dir)
        let manifest = url.appendingPathComponent(FormatConstants.manifestName)
        var damaged = original
        damaged[byte] ^= 0x5A
        try Data(damaged).write(to: manifest)
        let error = try #require(Self.openError(url))
        #expect(error.code == .corrupted)
        #expect(error.path == manifest.path)
        #expect(error.offset == offset, "byte \(byte)")
        #expect(error.message.hasPrefix("the store's MANIFEST is damaged"), "\(error.message)")
        #expect(error.message.contains("restore the store from a backup"), "\(error.message)")
        #expect(error.description.contains("\(manifest.path) at offset \(offset)"))
    }

    /// A record whose checksum holds but whose fields make no sense: the offset is the
    /// field's place in the file, not in the payload.
    @Test func aFieldThatMakesNoSenseIsReportedAtItsPlaceInTheFile() throws {
        let dir = TemporaryDirectory()
        let (url, original) = try Self.makeStore(dir)
        let manifest = url.appendingPathComponent(FormatConstants.manifestName)
        var payload = try #require(RecordFrame.unescaped(original[Int(Self.payloadStart)...], version: FormatConstants.version))
        // The next route id (payload bytes 12..<20) beyond any a writer assigns.
        for i in 12..<20 { payload[payload.startIndex + i] = 0xFF }
        try Data(FileHeader(kind: .manifest, fileNumber: 0).encoded() + RecordFrame.encode(type: .manifestState, payload: Array(payload)))
            .write(to: manifest)
        let error = try #require(Self.openError(url))
        #expect(error.code == .corrupted)
        #expect(error.path == manifest.path)
        let offset = try #require(error.offset)
        #expect(offset >= Self.payloadStart && offset <= Int64(original.count), "\(offset)")
        #expect(error.message.contains("restore the store from a backup"), "\(error.message)")
    }

    /// A field that makes no sense is reported at its own first byte: the next route id
    /// at payload bytes 12..<20, the segment count at 24..<28 (a payload escaping left
    /// as it was).
    /// The generation (payload bytes 0..<8) and the next file number (8..<12) past any a
    /// writer reaches are damage too: at their largest, the next rewrite's addition had
    /// nowhere to go, and stopped the process.
    @Test(arguments: [(12, 8, UInt8(0xFF)), (24, 4, UInt8(0xFF)), (24, 4, UInt8(0)), (0, 8, UInt8(0xFF)), (8, 4, UInt8(0xFF))])
    func aFieldThatMakesNoSenseIsReportedAtItsOwnFirstByte(field: Int, size: Int, fill: UInt8) throws {
        let dir = TemporaryDirectory()
        let (url, original) = try Self.makeStore(dir)
        let manifest = url.appendingPathComponent(FormatConstants.manifestName)
        var payload = try #require(RecordFrame.unescaped(original[Int(Self.payloadStart)...], version: FormatConstants.version))
        for i in field..<(field + size) { payload[payload.startIndex + i] = fill }
        let encoded = RecordFrame.encode(type: .manifestState, payload: Array(payload))
        try #require(encoded.count == FormatConstants.recordHeaderSize + payload.count)  // nothing escaped
        try Data(FileHeader(kind: .manifest, fileNumber: 0).encoded() + encoded).write(to: manifest)
        let error = try #require(Self.openError(url))
        #expect(error.code == .corrupted && error.path == manifest.path)
        #expect(error.offset == Self.payloadStart + Int64(field), "\(error.message)")
    }

    /// A manifest at the limits a reader accepts opens, but a writer never writes one
    /// past them: the rewrite that would is refused (the store stays as it was and still
    /// opens), where the addition stopped the process.
    @Test(arguments: [(0, UInt64(Manifest.maxGeneration)), (8, UInt64(Manifest.maxNextFileNumber))])
    func aWriterAtTheLimitsRefusesTheNextRewrite(field: Int, value: UInt64) throws {
        let dir = TemporaryDirectory()
        let (url, original) = try Self.makeStore(dir)
        let manifest = url.appendingPathComponent(FormatConstants.manifestName)
        var payload = try #require(RecordFrame.unescaped(original[Int(Self.payloadStart)...], version: FormatConstants.version))
        let size = field == 0 ? 8 : 4
        for i in 0..<size { payload[payload.startIndex + field + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
        try Data(FileHeader(kind: .manifest, fileNumber: 0).encoded() + RecordFrame.encode(type: .manifestState, payload: Array(payload)))
            .write(to: manifest)
        let store = try RouteStore(at: url, options: .init(segmentSizeLimit: 4096, compaction: .manual))
        var routes = RandomRoutes(seed: 82)
        var refused: RouteLogError?
        do {
            // A settings change rewrites the manifest; saves past 4 KiB roll to a new
            // segment, which takes a file number.
            try store.updateSettings { $0.privacyZones = [] }
            for _ in 0..<4 { try store.save(routes.next()) }
        } catch let error as RouteLogError {
            refused = error
        }
        try? store.close()
        let error = try #require(refused)
        #expect(error.code == .corrupted && error.path == manifest.path, "\(error)")
        #expect(error.message.contains("no writer reaches"), "\(error.message)")
        let reopened = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try reopened.summaries().count >= 1)
        try reopened.close()
    }

    @Test func aTruncatedOrOversizedManifestIsReportedWithPathAndOffset() throws {
        let dir = TemporaryDirectory()
        let (url, original) = try Self.makeStore(dir)
        let manifest = url.appendingPathComponent(FormatConstants.manifestName)
        try Data(original.prefix(30)).write(to: manifest)
        var error = try #require(Self.openError(url))
        #expect(error.code == .corrupted && error.path == manifest.path && error.offset == Self.recordStart)
        try Data(original.prefix(12)).write(to: manifest)
        error = try #require(Self.openError(url))
        #expect(error.code == .corrupted && error.path == manifest.path && error.offset == 0)
        try Data(original + [UInt8](repeating: 0, count: Manifest.maximumSize)).write(to: manifest)
        error = try #require(Self.openError(url))
        #expect(error.code == .corrupted && error.path == manifest.path && error.offset == Int64(Manifest.maximumSize))
        #expect(error.message.contains("restore the store from a backup"), "\(error.message)")
    }
}
