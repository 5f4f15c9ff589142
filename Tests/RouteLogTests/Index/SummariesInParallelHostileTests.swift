import Foundation
import Testing
@testable import RouteLog

/// A listing made on several cores of routes whose stored metadata is hostile (as a
/// forged IndexPutRun may hold it: only its layout checked): names of invalid UTF-8,
/// unknown activity codes, a uuid of the wrong length, a derived field twice (the
/// second with trailing bytes, or cut short), tags of invalid UTF-8. Each summary is
/// exactly the one the route alone gives (``RouteStore/summary(_:)``'s path), and a
/// listing made again gives the same.
@Suite struct SummariesInParallelHostileTests {
    /// Appends a tagged field to an extension's fields.
    static func field(_ tag: UInt64, _ value: [UInt8], to w: inout ByteWriter) {
        w.varint(Int(tag))
        w.varint(value.count)
        w.append(contentsOf: value)
    }

    /// `stored` (a real route's metadata, with derived fields) with hostile fields
    /// added after its own, chosen by `i`, and its name's bytes made 0xFF for some.
    static func forged(_ stored: [UInt8], _ i: Int) throws -> [UInt8] {
        typealias Flag = FormatConstants.MetadataFlag
        var r = ByteReader(ArraySlice(stored))
        let flags = try r.u8()
        let shift = try r.i64()
        let calories = flags & Flag.calories != 0 ? try r.f64() : nil
        let distance = flags & Flag.distance != 0 ? try r.f64() : nil
        var name: [UInt8]? = nil
        if flags & Flag.name != 0 { name = Array(try r.bytes(Int(try r.u16()))) }
        var fields: [UInt8] = []
        var derived: [UInt64: [UInt8]] = [:]
        if flags & Flag.extensionFields != 0 {
            let length = try r.count(max: r.remaining)
            fields = Array(try r.bytes(length))
            var f = ByteReader(ArraySlice(fields))
            while f.remaining > 0 {
                let tag = UInt64(try f.count(max: Int.max))
                let value = Array(try f.bytes(try f.count(max: f.remaining)))
                if tag >= 16 { derived[tag] = value }
            }
        }
        if i % 3 == 0, let n = name { name = [UInt8](repeating: 0xFF, count: n.count) }
        var extra = ByteWriter(capacity: 256)
        let activity = FormatConstants.MetadataField.activity.rawValue, tag = FormatConstants.MetadataField.tag.rawValue
        let uuid = FormatConstants.MetadataField.uuid.rawValue
        switch i % 7 {
        case 0: field(activity, [0xEE], to: &extra)
        case 1: field(activity, [FormatConstants.ActivityCode.custom.rawValue, 0xFF, 0xFE, 0x80], to: &extra)
        case 2: field(uuid, [UInt8](repeating: 7, count: 15), to: &extra)
        case 3: field(tag, [0xC0, 0xAF, 0xFF], to: &extra)
        default: break
        }
        for (t, value) in derived.sorted(by: { $0.key < $1.key }) {
            switch (i + Int(t)) % 4 {
            case 0: field(t, value + [0x00], to: &extra)  // trailing bytes
            case 1: field(t, Array(value.prefix(value.count / 2)), to: &extra)  // cut short
            case 2: field(t, [], to: &extra)
            default: field(t, value.reversed(), to: &extra)
            }
        }
        fields += extra.bytes
        var w = ByteWriter(capacity: stored.count + 64)
        w.u8((name == nil ? 0 : Flag.name) | (calories == nil ? 0 : Flag.calories) | (distance == nil ? 0 : Flag.distance)
             | Flag.extensionFields)
        w.i64(shift)
        if let calories { w.f64(calories) }
        if let distance { w.f64(distance) }
        if let name {
            w.u16(UInt16(name.count))
            w.append(contentsOf: name)
        }
        w.varint(fields.count)
        w.append(contentsOf: fields)
        return w.bytes
    }

    @Test func hostileMetadataListsAsEachRouteAlone() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .buffered, compaction: .manual))
        defer { try? store.close() }
        var samples: [(RouteShape, [UInt8])] = []
        for seed in 0..<5 {
            var route = Fixtures.sampleWalk(seed: UInt64(seed + 1), points: 40)
            route.metadata.name = "sample \(seed) with a name"
            route.metadata.tags = ["x"]
            let id = try store.save(route)
            let (shape, bytes) = try #require(store.state.withLock { s in
                s.index.routes.shape(id).map { ($0, Array(s.index.routes.storedMetadata(id)!)) }
            })
            samples.append((shape, bytes))
        }
        var index = RouteIndex()
        let count = RouteTable.summariesPerWorker * 2 + 777
        for i in 0..<count {
            let (shape, stored) = samples[i % samples.count]
            let bytes = try Self.forged(stored, i)
            // Layout only, as a run's metadata is read.
            let metadata = StoredMetadata(MetadataView(checked: ArraySlice(bytes)))
            let location = RecordLocation(segment: 1, offset: Int64(FormatConstants.fileHeaderSize) + Int64(i) * 100, length: 100)
            index.apply(.put(RouteID(UInt64(i * 13 % count + 1)), shape, metadata, location), encodedMetadata: ArraySlice(bytes))
        }
        let listed = index.sortedSummaries()
        #expect(listed.count == count)
        let alone = listed.map { index.routes[$0.id]!.summary($0.id) }
        #expect(listed == alone)
        for (a, b) in zip(listed, alone) where a != b {
            Issue.record("route \(a.id): listed \(a), alone \(b)")
            break
        }
        // The one-by-one path, as a listing too short for workers makes it.
        #expect(listed == index.routes.summaries(rows: []) + listed.map { index.routes.summary($0.id)! })
    }
}

/// Listings made on several cores while other threads save, delete and edit, and
/// background index rewrites run: each listing is whole (every route once, in order),
/// for the ThreadSanitizer build to watch the workers and the writer.
@Suite struct SummariesDuringChangesTests {
    @Test func listingsDuringChangesAreWhole() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .buffered))
        defer { try? store.close() }
        let base = RouteTable.summariesPerWorker * 2 + 100
        _ = try store.save((0..<base).map { BackgroundIndexRewriteTests.route($0) })
        let stop = StateLock(false)
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            if thread == 0 {
                for i in 0..<1_500 {
                    guard let id = try? store.save(BackgroundIndexRewriteTests.route(base + i)) else { continue }
                    if i % 5 == 0 { _ = try? store.edit(id, RouteEdit(name: "edited")) }
                    if i % 7 == 0 { _ = try? store.delete(RouteID(UInt64(i + 1))) }
                }
                stop.withLock { $0 = true }
            } else {
                while !stop.withLock({ $0 }) {
                    guard let listed = try? store.summaries() else { continue }
                    #expect(Set(listed.map(\.id)).count == listed.count)
                    #expect(zip(listed, listed.dropFirst()).allSatisfy { ($0.startDate, $0.id) < ($1.startDate, $1.id) })
                }
            }
        }
        store.compaction.waitUntilIdle()
        let listed = try store.summaries()
        #expect(try listed == listed.map { try store.summary($0.id) })
    }
}
