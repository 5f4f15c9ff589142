// libFuzzer target: the record reader. The input is a log file (header and records);
// every record it yields is decoded as a segment record, an index record and a
// RoutePut, and the same bytes are opened as the store's segment.
@testable import RouteLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogScanner(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let fs = MemoryFileSystem(files: ["log": bytes])
    guard let file = try? DurableFile.open(fs.directory + "/log", flags: 0, fileSystem: fs) else { return 0 }
    var scanner = LogScanner(file: file, from: Int64(min(size, FormatConstants.fileHeaderSize)), fileSize: Int64(size))
    while let record = try? scanner.next() {
        _ = try? LogEvent.fromSegment(record, segment: 1)
        _ = try? LogEvent.fromIndex(record)
        if let put = try? RouteRecord(payload: record.payload) { _ = try? put.route() }
    }
    precondition(scanner.validEnd <= Int64(size), "the scanner went past the end")
    FuzzStore.exercise(replacing: FuzzStore.segmentName, with: bytes)
    return 0
}
