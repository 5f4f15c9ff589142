// libFuzzer target: the record reader. The input is a log file (header and records),
// read as it is and with its checksums made right; every record the scanner yields
// is decoded as a segment record, an index record, a RoutePut (and the route's
// points and summary) and each recording record (a chunk's points too), and the
// same bytes are opened as the store's segment.
@testable import RouteLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogScanner(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    for bytes in [input, withValidChecksums(input)] {
        let fs = MemoryFileSystem(files: ["log": bytes])
        guard let file = try? DurableFile.open(fs.directory + "/log", flags: 0, fileSystem: fs) else { return 0 }
        var scanner = LogScanner(file: file, from: Int64(min(size, FormatConstants.fileHeaderSize)), fileSize: Int64(size))
        while let record = try? scanner.next() {
            if let event = try? LogEvent.fromSegment(record, segment: 1), case .put(let id, let shape, let metadata, _) = event {
                _ = shape.summary(id: id, metadata: metadata)
            }
            if let event = try? LogEvent.fromIndex(record), case .put(let id, let shape, let metadata, _) = event {
                _ = shape.summary(id: id, metadata: metadata)
            }
            _ = try? RecordingStartRecord(payload: record.payload)
            _ = try? (try? RecordingChunkRecord(payload: record.payload))?.points()
            _ = try? RecordingFinishRecord(payload: record.payload)
            if let put = try? RouteRecord(payload: record.payload) {
                _ = try? put.route()
                _ = put.shape.summary(id: put.id, metadata: put.metadata)
            }
        }
        precondition(scanner.validEnd <= Int64(size), "the scanner went past the end")
        FuzzStore.exercise(replacing: FuzzStore.segmentName, with: bytes)
    }
    return 0
}
