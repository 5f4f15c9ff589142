import Foundation
import Testing
@testable import RouteLog

/// `SegmentSet.read(at:type:what:)`: a located record comes back as its payload, and
/// every way it can fail is a `.corrupted` error that says what was read and names the
/// segment's path and the record's offset.
@Suite struct SegmentSetReadTests {
    static let number: UInt32 = 3
    static let a = ForgedFrame(ForgedFrame.payload(40, seed: 1))
    static let b = ForgedFrame(ForgedFrame.payload(25, seed: 2), type: FormatConstants.RecordType.routeDelete.rawValue)
    static let header = FormatConstants.fileHeaderSize

    /// One segment, numbered 3, holding a file header's room, then `a`, then `b`.
    static func segments(_ change: (inout [UInt8]) -> Void = { _ in }) throws -> (SegmentSet, path: String) {
        var bytes = [UInt8](repeating: 0, count: header) + a.bytes + b.bytes
        change(&bytes)
        let memory = MemoryFiles([FormatConstants.segmentName(number): bytes], directory: "/stores/walks.routelog")
        let file = try memory.file(FormatConstants.segmentName(number))
        return (SegmentSet([LogSegment(number: number, file: file, end: Int64(bytes.count))]), file.path)
    }

    static let locationA = RecordLocation(segment: number, offset: Int64(header), length: a.bytes.count)
    static let locationB = RecordLocation(segment: number, offset: Int64(header + a.bytes.count), length: b.bytes.count)

    /// The error reading `location` as a `type` throws, checked for what every such
    /// error must say.
    static func failure(_ set: SegmentSet, _ location: RecordLocation, _ type: FormatConstants.RecordType,
                        path: String, offset: Int64?) -> RouteLogError? {
        do {
            _ = try set.read(at: location, type: type, what: "route 7's record")
            Issue.record("reading \(location) as \(type) succeeded")
            return nil
        } catch let error as RouteLogError {
            #expect(error.code == .corrupted, "\(error)")
            #expect(error.message.hasPrefix("route 7"), "\(error)")
            #expect(error.path == path && error.offset == offset, "\(error)")
            #expect(error.description.contains(path), "\(error)")
            if let offset { #expect(error.description.contains("at offset \(offset)"), "\(error)") }
            return error
        } catch {
            Issue.record("not a RouteLogError: \(error)")
            return nil
        }
    }

    @Test func readsTheRecordAtItsLocation() throws {
        let (set, _) = try Self.segments()
        #expect(Array(try set.read(at: Self.locationA, type: .routePut, what: "a")) == Self.a.payload)
        #expect(Array(try set.read(at: Self.locationB, type: .routeDelete, what: "b")) == Self.b.payload)
        #expect(set.holdsRecord(at: Self.locationA) && set.holdsRecord(at: Self.locationB))
    }

    @Test func aSegmentTheStoreDoesNotListIsNamed() throws {
        let (set, _) = try Self.segments()
        let elsewhere = RecordLocation(segment: 9, offset: Self.locationA.offset, length: Self.locationA.length)
        let error = Self.failure(set, elsewhere, .routePut, path: FormatConstants.segmentName(9), offset: nil)
        #expect(error?.message.contains("segment 9") == true)
        #expect(!set.holdsRecord(at: elsewhere))
    }

    @Test func aRecordPastTheEndIsCutShort() throws {
        let (set, path) = try Self.segments { $0.removeLast(5) }
        let error = Self.failure(set, Self.locationB, .routeDelete, path: path, offset: Self.locationB.offset)
        #expect(error?.message.contains("cut short") == true)
        #expect(!set.holdsRecord(at: Self.locationB))
    }

    @Test func aLocationOffItsRecordHasABadHeader() throws {
        let (set, path) = try Self.segments()
        for location in [RecordLocation(segment: Self.number, offset: Self.locationA.offset + 1, length: Self.locationA.length),
                         RecordLocation(segment: Self.number, offset: Self.locationA.offset, length: Self.locationA.length + 1),
                         RecordLocation(segment: Self.number, offset: 0, length: Self.locationA.length)] {
            let error = Self.failure(set, location, .routePut, path: path, offset: location.offset)
            #expect(error?.message.contains("header is damaged") == true, "\(location)")
            #expect(!set.holdsRecord(at: location))
        }
    }

    @Test func aRecordOfAnotherTypeSaysWhich() throws {
        let (set, path) = try Self.segments()
        let error = Self.failure(set, Self.locationB, .routePut, path: path, offset: Self.locationB.offset)
        #expect(error?.message.contains("type 1, not 2") == true)
    }

    @Test func aFlippedByteFailsTheChecksum() throws {
        let (set, path) = try Self.segments { $0[Self.header + 16 + 7] ^= 0x10 }
        let error = Self.failure(set, Self.locationA, .routePut, path: path, offset: Self.locationA.offset)
        #expect(error?.message.contains("checksum") == true)
        #expect(!set.holdsRecord(at: Self.locationA) && set.holdsRecord(at: Self.locationB))
    }
}
