import Foundation
import Testing
@testable import RouteLog

/// A re-export that cannot read a route keeps the earlier export's tables of that part
/// beside the new ones (`.previous`): they may hold the only readable copy of the route.
@Suite struct ParquetReexportKeepsEarlierTablesTests {
    @Test(arguments: [ParquetExportOptions.Partitioning.none, .month])
    func aReexportKeepsTheEarlierTablesOfADamagedRoute(partitioning: ParquetExportOptions.Partitioning) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let ids = try (1...3).map { try writer.save(Fixtures.sampleWalk(seed: UInt64($0), points: 200)) }
        let location = writer.state.withLock { $0.index.routes[ids[1]]!.location }
        var options = ParquetExportOptions()
        options.partitioning = partitioning
        let out = dir.url.appendingPathComponent("out")
        let first = try ParquetExporter.export(writer, to: out, options: options)
        #expect(first.routeCount == 3)
        let earlier = try Dictionary(uniqueKeysWithValues: first.files.map { ($0.path, try Data(contentsOf: $0)) })
        try writer.close()

        let segment = url.appendingPathComponent(FormatConstants.segmentName(location.segment))
        var bytes = try Data(contentsOf: segment)
        bytes[Int(location.offset) + 100] ^= 0x10
        try bytes.write(to: segment)

        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        let second = try ParquetExporter.export(reader, to: out, options: options)
        #expect(second.unreadableRoutes.map(\.id) == [ids[1]])
        // Every earlier table that held the damaged route must still exist somewhere in `out`.
        var all: [Data] = []
        let walker = FileManager.default.enumerator(atPath: out.path)!
        while let name = walker.nextObject() as? String {
            if let data = try? Data(contentsOf: out.appendingPathComponent(name)) { all.append(data) }
        }
        let lost = earlier.filter { !all.contains($0.value) }.map(\.key).sorted()
        #expect(lost.isEmpty, "earlier tables holding route \(ids[1]) were replaced: \(lost)")
        try reader.close()
    }
}
