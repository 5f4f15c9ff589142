import Foundation
@testable import RouteLog

/// A store of one route made by hand: `route` saved through a store first (for its
/// MANIFEST and files), then its segment replaced by one RoutePut of id 1 whose record
/// `change` may alter (for what no app could save: metadata a newer writer stored, or
/// none of the derived fields), with files of format `version`.
enum ForgedRouteStore {
    /// Makes the store in `dir` and returns its URL. Without `withIndex`, the index file
    /// is removed (the next open rebuilds it from the segment).
    static func make(_ dir: TemporaryDirectory, route: Route, version: UInt16 = FormatConstants.version,
                     withIndex: Bool, change: (inout RouteRecord) -> Void) throws -> URL {
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        try store.save(route)
        try store.close()
        var record = try EncodedRoute(route).record
        record.id = RouteID(1)
        change(&record)
        let frame = RecordFrame.encode(type: .routePut, payload: record.payload())
        let segment = FileHeader(kind: .segment, fileNumber: 1, version: version).encoded() + frame
        try Data(segment).write(to: url.appendingPathComponent(FormatConstants.segmentName(1)))
        let indexURL = url.appendingPathComponent(FormatConstants.indexName(2))
        if withIndex {
            let location = RecordLocation(segment: 1, offset: Int64(FormatConstants.fileHeaderSize), length: frame.count)
            let entry = LogEvent.put(record.id, record.shape, record.metadata, location).indexRecord()
            let index = FileHeader(kind: .index, fileNumber: 2, version: version).encoded()
                + RecordFrame.encode(type: entry.type, payload: entry.payload)
            try Data(index).write(to: indexURL)
        } else {
            try FileManager.default.removeItem(at: indexURL)
        }
        return url
    }
}
