import Foundation
import Testing
@testable import RouteLog

/// Bytes the index cannot vouch for: once an index is rebuilt from the segments, a
/// damaged record has no witness left, yet it may have held an acknowledged change. A
/// compaction that rewrites its segment keeps a copy of it in `lost/`, the damaged last
/// record of an older segment is damage rather than a torn tail, and a segment the
/// manifest does not list is deleted only when the live files already hold every change
/// in it (docs/recovery-and-compaction.md, "What is never destroyed").
@Suite struct DamageTheIndexCannotNameTests {
    static let options: RouteStore.Options = {
        var options = RouteStore.Options(compaction: .manual)
        options.segmentSizeLimit = 1 << 20
        return options
    }()

    static func flip(_ url: URL, at offset: Int64) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[Int(offset)] ^= 0x10
        try Data(bytes).write(to: url)
    }

    static func lostNames(_ store: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent(LostAndFound.directoryName).path)) ?? []
    }

    /// Six routes in segment 1, and where each one's record lies; with `sealed`, segment
    /// 1 is then sealed and a seventh route goes to segment 2.
    static func sixRoutes(at url: URL, sealed: Bool) throws -> (spans: [RouteID: (start: Int64, end: Int64)], last: String) {
        let store = try RouteStore(at: url, options: options)
        var spans: [RouteID: (start: Int64, end: Int64)] = [:]
        for i in 0..<6 {
            let before = try store.statistics().segments.last!.bytes
            let id = try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 20))
            spans[id] = (before, try store.statistics().segments.last!.bytes)
        }
        if sealed {
            try store.withWriter { try $0.roll() }
            _ = try store.save(Fixtures.sampleWalk(seed: 50, points: 20))
        }
        let last = try store.statistics().segments.last!.name
        try store.close()
        return (spans, last)
    }

    /// Segment 1 damaged inside `victim`'s record and the index files removed; then the
    /// store is opened, two other routes deleted and compacted (past the threshold:
    /// segment 1 is rewritten). The damaged bytes are reported before, and afterwards
    /// kept in `lost/`, named with their file and offset, as a reopened store reports.
    static func expectDamageKeptThroughACompaction(sealed: Bool, victim: RouteID) throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let spans = try sixRoutes(at: url, sealed: sealed).spans
        let name = FormatConstants.segmentName(1)
        let segment = url.appendingPathComponent(name)
        let span = try #require(spans[victim])
        let original = [UInt8](try Data(contentsOf: segment))
        try flip(segment, at: (span.start + span.end) / 2)
        let damaged = [UInt8](try Data(contentsOf: segment))
        _ = try removeIndexFiles(of: url)
        let store = try RouteStore(at: url, options: options)
        let before = try store.verify()
        #expect(before.tornTails.isEmpty, "\(before.tornTails)")
        let problem = try #require(before.problems.first { $0.path.hasSuffix(name) }, "\(before.problems)")
        #expect(problem.offset == span.start)
        try store.delete(RouteID(1))
        try store.delete(RouteID(2))
        let report = try store.compact()
        #expect(report.segmentsCompacted >= 1)
        try store.close()
        #expect(!FileManager.default.fileExists(atPath: segment.path))
        // The bytes from the damaged record on, to the end of the damage, are in lost/.
        let copyName = "\(name)@\(span.start)"
        #expect(lostNames(url).contains(copyName), "\(lostNames(url))")
        let copy = [UInt8](try Data(contentsOf: url.appendingPathComponent(LostAndFound.directoryName).appendingPathComponent(copyName)))
        #expect(copy.count >= Int(span.end - span.start))
        #expect(copy == Array(damaged[Int(span.start)..<Int(span.start) + copy.count]))
        #expect(copy.prefix(Int(span.end - span.start)) != original[Int(span.start)..<Int(span.end)])
        let log = try String(contentsOf: url.appendingPathComponent(LostAndFound.directoryName).appendingPathComponent(LostAndFound.logName), encoding: .utf8)
        #expect(log.contains("\(name) offset \(span.start)"), "\(log)")
        let reopened = try RouteStore(at: url, options: options)
        let after = try reopened.verify()
        #expect(after.tornTails.isEmpty, "\(after.tornTails)")
        #expect(after.lostFiles.contains { $0.name == copyName })
        // Every route but the deleted two and the damaged one is there.
        let expected = Set(spans.keys).subtracting([RouteID(1), RouteID(2), victim])
        #expect(Set(try reopened.summaries().map(\.id)).isSuperset(of: expected))
        try reopened.close()
    }

    @Test func aCompactionKeepsTheDamagedRecordTheIndexCannotNameInLost() throws {
        try Self.expectDamageKeptThroughACompaction(sealed: false, victim: RouteID(3))
    }

    @Test func theDamagedLastRecordOfAnOlderSegmentIsDamageNotATornTail() throws {
        try Self.expectDamageKeptThroughACompaction(sealed: true, victim: RouteID(6))
    }

    /// Two damaged records with a valid one between them are one copy in `lost/`, the
    /// valid record's bytes with them: a segment shaped into many small damaged ranges
    /// costs one copy per 64 KiB of file, not one per range.
    @Test func nearbyDamagedRangesAreKeptAsOneCopy() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let spans = try Self.sixRoutes(at: url, sealed: true).spans
        let name = FormatConstants.segmentName(1)
        let segment = url.appendingPathComponent(name)
        let first = try #require(spans[RouteID(3)]), second = try #require(spans[RouteID(5)])
        try Self.flip(segment, at: (first.start + first.end) / 2)
        try Self.flip(segment, at: (second.start + second.end) / 2)
        let damaged = [UInt8](try Data(contentsOf: segment))
        _ = try removeIndexFiles(of: url)
        let store = try RouteStore(at: url, options: Self.options)
        let before = try store.verify()
        #expect(before.problems.filter { $0.path.hasSuffix(name) }.map(\.offset) == [first.start, second.start],
                "\(before.problems)")
        try store.delete(RouteID(1))
        try store.delete(RouteID(2))
        #expect(try store.compact().segmentsCompacted >= 1)
        #expect(try store.route(RouteID(4)).points.count == 20)
        try store.close()
        let copies = Self.lostNames(url).filter { $0 != LostAndFound.logName }
        #expect(copies == ["\(name)@\(first.start)"], "\(copies)")
        let copy = [UInt8](try Data(contentsOf: url.appendingPathComponent(LostAndFound.directoryName).appendingPathComponent(copies[0])))
        // From the first damaged record to the end of the second, the valid one between.
        #expect(copy.count >= Int(second.end - first.start))
        #expect(copy == Array(damaged[Int(first.start)..<Int(first.start) + copy.count]))
    }

    @Test func theLastSegmentsCutAppendIsStillATornTail() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let last = try Self.sixRoutes(at: url, sealed: true).last
        let segment = url.appendingPathComponent(last)
        let bytes = try Data(contentsOf: segment)
        try bytes.prefix(bytes.count - 7).write(to: segment)
        _ = try removeIndexFiles(of: url)
        let store = try RouteStore(at: url, options: RouteStore.Options(mode: .readOnly))
        let report = try store.verify()
        try store.close()
        #expect(report.problems.allSatisfy { $0.kind == .damagedIndex }, "\(report.problems)")
        #expect(report.tornTails.map { ($0.path as NSString).lastPathComponent } == [last])
    }

    /// A MANIFEST replaced by an older copy: the newer segment holds only an edit and a
    /// delete of routes the old manifest counted, changes nothing else holds.
    @Test func aLeftoverSegmentHoldingEditsAndDeletesGoesToLost() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        var options = Self.options
        options.segmentSizeLimit = 4096
        let store = try RouteStore(at: url, options: options)
        let a = try store.save(Fixtures.sampleWalk(seed: 1, points: 10))
        let b = try store.save(Fixtures.sampleWalk(seed: 2, points: 10))
        try store.withWriter { try $0.roll() }
        let manifest = url.appendingPathComponent(FormatConstants.manifestName)
        let older = try Data(contentsOf: manifest)
        try store.withWriter { try $0.roll() }
        _ = try store.edit(a, RouteEdit(name: "edited after the older manifest"))
        try store.delete(b)
        let newest = try store.statistics().segments.last!.name
        try store.close()
        try older.write(to: manifest)

        let reopened = try RouteStore(at: url, options: options)
        let lostFiles = try reopened.verify().lostFiles.map(\.name)
        try reopened.close()
        #expect(Self.lostNames(url).contains { $0.hasPrefix(newest) }, "\(Self.lostNames(url))")
        #expect(lostFiles.contains { $0.hasPrefix(newest) }, "\(lostFiles)")
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(newest).path))
    }

    /// What a compaction replaced is still deleted: its deletes' routes are gone and
    /// its edits are the routes' metadata.
    @Test func aReplacedSegmentWhoseChangesTheLiveFilesHoldIsDeleted() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let store = try RouteStore(at: url, options: Self.options)
        let a = try store.save(Fixtures.sampleWalk(seed: 1, points: 10))
        let b = try store.save(Fixtures.sampleWalk(seed: 2, points: 10))
        _ = try store.save(Fixtures.sampleWalk(seed: 3, points: 10))
        _ = try store.edit(a, RouteEdit(name: "kept by the copy"))
        try store.delete(b)
        let replaced = url.appendingPathComponent(FormatConstants.segmentName(1))
        let copy = try Data(contentsOf: replaced)
        let report = try store.compact()
        try store.close()
        #expect(report.segmentsCompacted == 1)
        #expect(!FileManager.default.fileExists(atPath: replaced.path))
        // The replaced segment comes back, as a crash before its removal leaves it.
        try copy.write(to: replaced)
        let reopened = try RouteStore(at: url, options: Self.options)
        #expect(try reopened.summary(a).name == "kept by the copy")
        try reopened.close()
        #expect(!FileManager.default.fileExists(atPath: replaced.path))
        #expect(Self.lostNames(url).isEmpty, "\(Self.lostNames(url))")
    }

    /// A store created where a MANIFEST is missing: a segment that cannot be read (here a
    /// link, and a directory) is moved into `lost/`, never deleted; what a link points to
    /// is untouched.
    @Test func aCreationMovesAsideTheSegmentsItCannotRead() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let target = directory.url.appendingPathComponent("elsewhere.bin")
        let held = [UInt8](repeating: 0xA5, count: 4096)
        try Data(held).write(to: target)
        try FileManager.default.createSymbolicLink(at: url.appendingPathComponent(FormatConstants.segmentName(7)),
                                                   withDestinationURL: target)
        try FileManager.default.createDirectory(at: url.appendingPathComponent(FormatConstants.segmentName(8)),
                                                withIntermediateDirectories: false)
        let store = try RouteStore(at: url, options: Self.options)
        _ = try store.save(Fixtures.sampleWalk(seed: 1, points: 10))
        try store.close()
        let lost = Self.lostNames(url)
        #expect(lost.contains("\(FormatConstants.segmentName(7))@0"), "\(lost)")
        #expect(lost.contains("\(FormatConstants.segmentName(8))@0"), "\(lost)")
        #expect([UInt8](try Data(contentsOf: target)) == held)
    }

    /// A segment a compaction replaced, back after a crash before its removal, holding
    /// an edit a later one replaced: the live route's latest edit is in a later segment.
    @Test func aReplacedSegmentWithAnOverwrittenEditIsDeleted() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let store = try RouteStore(at: url, options: Self.options)
        let a = try store.save(Fixtures.sampleWalk(seed: 1, points: 10))
        let b = try store.save(Fixtures.sampleWalk(seed: 2, points: 10))
        _ = try store.save(Fixtures.sampleWalk(seed: 3, points: 10))
        _ = try store.edit(a, RouteEdit(name: "first"))
        _ = try store.edit(a, RouteEdit(name: "second"))
        try store.delete(b)
        let replaced = url.appendingPathComponent(FormatConstants.segmentName(1))
        let copy = try Data(contentsOf: replaced)
        #expect(try store.compact().segmentsCompacted == 1)
        try store.close()
        try copy.write(to: replaced)
        let reopened = try RouteStore(at: url, options: Self.options)
        #expect(try reopened.summary(a).name == "second")
        try reopened.close()
        #expect(!FileManager.default.fileExists(atPath: replaced.path))
        #expect(Self.lostNames(url).isEmpty, "\(Self.lostNames(url))")
    }

    /// The real file system, except that once armed, renaming onto MANIFEST fails after
    /// an index file was created: a compaction, which commits the MANIFEST before each
    /// output it creates and writes its index last before its switch, then fails at the
    /// switch, after it kept the damage in lost/ (as a process killed there would).
    final class FailingManifestRename: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem = PosixFileSystem.shared
        let armed = StateLock(false)
        private let indexCreated = StateLock(false)
        func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
            if flags & O_CREAT != 0, path.contains("/" + FormatConstants.indexPrefix), armed.withLock({ $0 }) {
                indexCreated.withLock { $0 = true }
            }
            return try base.open(path, flags: flags, mode: mode)
        }
        func rename(_ from: String, to: String) throws {
            if to.hasSuffix("/" + FormatConstants.manifestName), armed.withLock({ $0 }), indexCreated.withLock({ $0 }) {
                throw Errno(code: EIO)
            }
            try base.rename(from, to: to)
        }
    }

    /// Opens the store of ``sixRoutes(at:sealed:)`` through ``FailingManifestRename``,
    /// deletes routes 1 and 2 (so that segment 1 is worth rewriting), and runs
    /// `attempts` compactions that fail at their switch, each in a store opened again
    /// (a switch that failed leaves its writer refusing changes), each leaving its
    /// output behind.
    static func compactionsFailingAtTheirSwitch(at url: URL, attempts: Int = 1) throws {
        for attempt in 0..<attempts {
            let fileSystem = FailingManifestRename()
            let store = try RouteStore(at: url, options: options, fileSystem: fileSystem)
            if attempt == 0 {
                try store.delete(RouteID(1))
                try store.delete(RouteID(2))
            }
            fileSystem.armed.withLock { $0 = true }
            #expect(throws: RouteLogError.self) { try store.compact() }
            try? store.close()
        }
    }

    /// The store of ``sixRoutes(at:sealed:)``, sealed, with route 3's record in segment
    /// 1 damaged and the index files removed: damage a rebuilt index cannot name. Returns
    /// the segment's name and the damaged record's span.
    static func routeThreeDamagedWithoutIndex(at url: URL) throws -> (name: String, span: (start: Int64, end: Int64)) {
        let spans = try sixRoutes(at: url, sealed: true).spans
        let name = FormatConstants.segmentName(1)
        let span = try #require(spans[RouteID(3)])
        try flip(url.appendingPathComponent(name), at: (span.start + span.end) / 2)
        _ = try removeIndexFiles(of: url)
        return (name, span)
    }

    @Test func compactionsThatFailAtTheirSwitchKeepTheDamageOnce() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let (name, span) = try Self.routeThreeDamagedWithoutIndex(at: url)
        try Self.compactionsFailingAtTheirSwitch(at: url, attempts: 3)
        let kept = Self.lostNames(url).filter { $0.hasPrefix(name) }
        #expect(kept == ["\(name)@\(span.start)"], "\(Self.lostNames(url))")
        // Opened again, the compaction goes through, and keeps no second copy.
        let reopened = try RouteStore(at: url, options: Self.options)
        #expect(try reopened.compact().segmentsCompacted >= 1)
        try reopened.close()
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path))
        #expect(Self.lostNames(url).filter { $0.hasPrefix(name) } == kept, "\(Self.lostNames(url))")
    }

    /// An older MANIFEST restored while a recording was open: one newer segment holds
    /// its finish, a later one an edit or delete of the finished route. The live files
    /// hold the recording open, so neither change is theirs: both segments go to lost/.
    @Test(arguments: [false, true])
    func aChangeOfARouteTheLiveFilesHoldAsARecordingGoesToLost(_ delete: Bool) throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        var options = Self.options
        options.segmentSizeLimit = 4096
        let store = try RouteStore(at: url, options: options)
        _ = try store.save(Fixtures.sampleWalk(seed: 1, points: 10))
        let points = Fixtures.sampleWalk(seed: 2, points: 40).points
        let recorder = try store.startRecording(metadata: RouteMetadata(name: "recorded"))
        try recorder.append(Array(points[0..<10]))
        try recorder.flush()
        try store.withWriter { try $0.roll() }
        let manifest = url.appendingPathComponent(FormatConstants.manifestName)
        let older = try Data(contentsOf: manifest)
        try store.withWriter { try $0.roll() }
        try recorder.append(Array(points[10...]))
        try recorder.flush()
        let id = try recorder.finish()
        let finishSegment = try store.statistics().segments.last!.name
        try store.withWriter { try $0.roll() }
        if delete { try store.delete(id) } else { _ = try store.edit(id, RouteEdit(name: "renamed")) }
        let changeSegment = try store.statistics().segments.last!.name
        try store.close()
        try older.write(to: manifest)
        let reopened = try RouteStore(at: url, options: options)
        #expect(try reopened.unfinishedRecordings().map(\.points.count) == [10])
        try reopened.close()
        let lost = Self.lostNames(url)
        #expect(lost.contains { $0.hasPrefix(finishSegment) }, "\(lost)")
        #expect(lost.contains { $0.hasPrefix(changeSegment) }, "\(lost)")
    }

    /// A record that passes its checksum but makes no sense (a RouteDelete one byte too
    /// long) is damage the open reports; a compaction keeps it in lost/.
    @Test func aChecksummedRecordThatMakesNoSenseIsKeptInLost() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        _ = try Self.sixRoutes(at: url, sealed: true)
        let name = FormatConstants.segmentName(1)
        let segment = url.appendingPathComponent(name)
        var bytes = [UInt8](try Data(contentsOf: segment))
        let offset = bytes.count
        var payload = [UInt8](repeating: 0, count: 9)
        payload[0] = 4
        bytes += RecordFrame.encode(type: .routeDelete, payload: payload)
        try Data(bytes).write(to: segment)
        _ = try removeIndexFiles(of: url)
        let store = try RouteStore(at: url, options: Self.options)
        #expect(try store.verify().problems.contains { $0.path.hasSuffix(name) && $0.offset == Int64(offset) })
        try store.delete(RouteID(1))
        try store.delete(RouteID(2))
        #expect(try store.compact().segmentsCompacted >= 1)
        try store.close()
        #expect(Self.lostNames(url).contains("\(name)@\(offset)"), "\(Self.lostNames(url))")
        // The record named route 4, which stays.
        let reopened = try RouteStore(at: url, options: Self.options)
        #expect(try reopened.route(RouteID(4)).points.count == 20)
        try reopened.close()
    }

    /// A compaction failed at its switch, leaving its output (a copy of every live
    /// route); then the live record of route 3 is damaged. The leftover holds the only
    /// whole copy of route 3: it goes to lost/, never deleted.
    @Test(arguments: [true, false])
    func aLeftoverHoldingTheOnlyWholeCopyOfARouteGoesToLost(_ removeIndex: Bool) throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let spans = try Self.sixRoutes(at: url, sealed: true).spans
        try Self.compactionsFailingAtTheirSwitch(at: url)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: url.path))
        let span = try #require(spans[RouteID(3)])
        try Self.flip(url.appendingPathComponent(FormatConstants.segmentName(1)), at: (span.start + span.end) / 2)
        if removeIndex { _ = try removeIndexFiles(of: url) }
        try RouteStore(at: url, options: Self.options).close()
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: url.path))
        let leftovers = before.subtracting(after).filter { $0.hasPrefix(FormatConstants.segmentPrefix) }
        #expect(!leftovers.isEmpty)
        for leftover in leftovers {
            #expect(Self.lostNames(url).contains { $0.hasPrefix(leftover) }, "\(leftover) deleted: \(Self.lostNames(url))")
        }
    }

    /// A kill after a copy into lost/ and before its line in lost/LOG: the next
    /// compaction finds the copy and writes the line.
    @Test func aKeptCopyWhoseLineACrashCutOffIsReported() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let (name, span) = try Self.routeThreeDamagedWithoutIndex(at: url)
        try Self.compactionsFailingAtTheirSwitch(at: url)
        let log = url.appendingPathComponent(LostAndFound.directoryName).appendingPathComponent(LostAndFound.logName)
        try FileManager.default.removeItem(at: log)
        let reopened = try RouteStore(at: url, options: Self.options)
        #expect(try reopened.compact().segmentsCompacted >= 1)
        try reopened.close()
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains("\(name) offset \(span.start) length"), "\(text)")
        #expect(Self.lostNames(url).filter { $0.hasPrefix(name) } == ["\(name)@\(span.start)"], "\(Self.lostNames(url))")
    }

    /// Two compactions, so that an output (a high number) is replayed before an older
    /// segment (a lower one); the second compaction's replaced segment comes back, as a
    /// crash before its removal leaves it. Returns the route edited, the names of the
    /// replaced and new segments. `damageOutput` flips a byte in the new segments.
    static func twoCompactions(at url: URL, damageOutput: Bool) throws -> (RouteID, replaced: [String], added: [String]) {
        let store = try RouteStore(at: url, options: options)
        let a = try store.save(Fixtures.sampleWalk(seed: 1, points: 2000))
        _ = try store.edit(a, RouteEdit(name: "E1"))
        try store.delete(try store.save(Fixtures.sampleWalk(seed: 2, points: 2000)))
        try store.withWriter { try $0.roll() }
        _ = try store.compact()
        _ = try store.edit(a, RouteEdit(name: "E2a"))
        _ = try store.edit(a, RouteEdit(name: "E2"))
        try store.withWriter { try $0.roll() }
        let before = try store.statistics().segments.map(\.name)
        let copies = try before.map { try Data(contentsOf: url.appendingPathComponent($0)) }
        #expect(try store.compact().segmentsCompacted >= 1)
        let after = try store.statistics().segments.map(\.name)
        try store.close()
        let replaced = before.filter { !after.contains($0) }, added = after.filter { !before.contains($0) }
        for (name, bytes) in zip(before, copies) where replaced.contains(name) { try bytes.write(to: url.appendingPathComponent(name)) }
        if damageOutput {
            for name in added {
                let file = url.appendingPathComponent(name)
                var bytes = [UInt8](try Data(contentsOf: file))
                guard bytes.count > FormatConstants.fileHeaderSize else { continue }
                bytes[(FormatConstants.fileHeaderSize + bytes.count) / 2] ^= 0x10
                try Data(bytes).write(to: file)
            }
        }
        return (a, replaced, added)
    }

    /// A compaction's output (seg 4) is replayed before the older active segment (seg 3)
    /// that holds the route's latest edit; a second compaction replaces the output, which
    /// a crash brings back. Its overwritten edit is held: a healthy store puts nothing in
    /// lost/.
    @Test func aReplacedOutputReplayedBeforeALowerNumberedSegmentIsDeletedFromAHealthyStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let store = try RouteStore(at: url, options: Self.options)
        let a = try store.save(Fixtures.sampleWalk(seed: 1, points: 2000))
        _ = try store.edit(a, RouteEdit(name: "E1"))
        try store.delete(try store.save(Fixtures.sampleWalk(seed: 2, points: 2000)))
        let e = try store.save(Fixtures.sampleWalk(seed: 3, points: 2000))
        try store.withWriter { try $0.roll() }
        _ = try store.save(Fixtures.sampleWalk(seed: 4, points: 2000))
        _ = try store.compact()
        _ = try store.edit(a, RouteEdit(name: "E2"))
        try store.delete(e)
        try store.withWriter { try $0.roll() }
        let before = try store.statistics().segments.map(\.name)
        let copies = try before.map { try Data(contentsOf: url.appendingPathComponent($0)) }
        #expect(try store.compact().segmentsCompacted >= 1)
        let after = try store.statistics().segments.map(\.name)
        try store.close()
        let replaced = before.filter { !after.contains($0) }
        #expect(!replaced.isEmpty)
        for (name, bytes) in zip(before, copies) where replaced.contains(name) { try bytes.write(to: url.appendingPathComponent(name)) }
        let reopened = try RouteStore(at: url, options: Self.options)
        #expect(try reopened.summary(a).name == "E2")
        try reopened.close()
        #expect(Self.lostNames(url).isEmpty, "\(Self.lostNames(url))")
        for name in replaced { #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path)) }
    }

    /// The output's copy of the latest edit is damaged: the replaced segment holds its
    /// only whole copy, and goes to lost/.
    @Test(arguments: [true, false])
    func aReplacedSegmentHoldingTheOnlyWholeCopyOfAnEditGoesToLost(_ removeIndex: Bool) throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let (_, replaced, _) = try Self.twoCompactions(at: url, damageOutput: true)
        #expect(!replaced.isEmpty)
        if removeIndex { _ = try removeIndexFiles(of: url) }
        try RouteStore(at: url, options: Self.options).close()
        for name in replaced { #expect(Self.lostNames(url).contains { $0.hasPrefix(name) }, "\(name): \(Self.lostNames(url))") }
    }

    /// A compaction failed at its switch, leaving its output; then segment 1 loses its
    /// last record whole (cut at a record boundary: no damage bytes, no torn tail) and
    /// the index file. The rebuilt index knows nothing of route 6, whose only copy is
    /// in the leftover: it goes to lost/, never deleted.
    @Test func aLeftoverHoldingARouteCutCleanlyFromARebuiltStoreGoesToLost() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let spans = try Self.sixRoutes(at: url, sealed: true).spans
        try Self.compactionsFailingAtTheirSwitch(at: url)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: url.path))
        let segment = url.appendingPathComponent(FormatConstants.segmentName(1))
        let span = try #require(spans[RouteID(6)])
        try Data(try Data(contentsOf: segment).prefix(Int(span.start))).write(to: segment)
        _ = try removeIndexFiles(of: url)
        try RouteStore(at: url, options: Self.options).close()
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: url.path))
        let leftovers = before.subtracting(after).filter { $0.hasPrefix(FormatConstants.segmentPrefix) }
        #expect(!leftovers.isEmpty)
        for leftover in leftovers {
            #expect(Self.lostNames(url).contains { $0.hasPrefix(leftover) }, "\(leftover) deleted: \(Self.lostNames(url))")
        }
    }
}
