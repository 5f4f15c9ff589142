// libFuzzer target: the index loader. The input replaces the index of a small valid
// store, which is then opened (the index is trusted, caught up or rebuilt), listed,
// loaded and verified.
@testable import RouteLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndexLoader(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzStore.exercise(replacing: FuzzStore.indexName, with: Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
