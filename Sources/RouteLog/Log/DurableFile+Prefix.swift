extension DurableFile {
    /// True when this file's bytes are the first bytes of `file` (all of them, or fewer),
    /// compared a megabyte at a time.
    func isPrefix(of file: DurableFile) throws -> Bool {
        let size = try size()
        guard size <= (try file.size()) else { return false }
        var done: Int64 = 0
        while done < size {
            let count = Int(min(size - done, 1 << 20))
            guard try read(at: done, count: count) == file.read(at: done, count: count) else { return false }
            done += Int64(count)
        }
        return true
    }
}
