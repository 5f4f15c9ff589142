/// One column of stored integers, in memory the codec owns: the save and load paths
/// fill and read columns through raw pointers, without the uniqueness checks and
/// copies an `[Int64]` would cost per value. Its memory comes from, and goes back to,
/// ``ScratchMemory``.
final class Int64Column: @unchecked Sendable {
    let base: UnsafeMutablePointer<Int64>
    let capacity: Int
    /// Values filled so far (the codec fills a column from the front).
    var count: Int

    /// An empty column with room for `capacity` values.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        base = ScratchMemory.take(Int64.self, count: self.capacity)
        count = 0
    }

    /// A column owning memory from `ScratchMemory.take(Int64.self, count: capacity)`
    /// (it gives it back).
    init(taking base: UnsafeMutablePointer<Int64>, capacity: Int, count: Int) {
        self.base = base
        self.capacity = capacity
        self.count = count
    }

    convenience init(_ values: [Int64]) {
        self.init(capacity: values.count)
        values.withUnsafeBufferPointer { base.initialize(from: $0.baseAddress!, count: $0.count) }
        count = values.count
    }

    deinit { ScratchMemory.give(base, count: capacity) }

    subscript(index: Int) -> Int64 {
        precondition(index >= 0 && index < count, "column index \(index) outside 0..<\(count)")
        return base[index]
    }

    var buffer: UnsafeBufferPointer<Int64> { UnsafeBufferPointer(start: base, count: count) }
    var values: [Int64] { Array(buffer) }
}
