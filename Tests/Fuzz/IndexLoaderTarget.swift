// libFuzzer target: the index loader. The input, as it is and with its checksums
// made right, replaces the index of a small valid store, which is then opened (the
// index is trusted, caught up or rebuilt), listed, loaded and verified.
@testable import RouteLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndexLoader(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzStore.exercise(replacing: FuzzStore.indexName, with: input)
    FuzzStore.exercise(replacing: FuzzStore.indexName, with: withValidChecksums(input))
    return 0
}
