import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's bytes, mapped read-only (or bytes copied from memory), kept alive as long
/// as a reader uses them.
///
/// Mapping costs no memory of its own: the pages are the page cache's, read when
/// touched and dropped by the kernel when memory is short, so a reader that looks at a
/// few offsets of a large file costs a few pages. (A file cut short by another
/// process while mapped would fault; the readers here read files nobody writes.)
final class MappedBytes: @unchecked Sendable {
    /// The bytes; valid until this object goes away.
    let bytes: UnsafeRawBufferPointer
    private let mapped: Bool

    /// Maps the regular file at `url` (opened by ``ImportInputFile``: never waiting).
    /// - Throws: `.notFound` when it cannot be opened, `.invalidArgument` when it is
    ///   not a regular file, `.io` when it cannot be mapped.
    init(contentsOf url: URL) throws {
        let file = try ImportInputFile.open(url, what: "keyed archive")
        let descriptor = file.descriptor
        defer { close(descriptor) }
        let size = Int(file.size)
        guard size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            mapped = false
            return
        }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else {
            throw RouteLogError.io("mmap", path: url.path, errno: errno)
        }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        mapped = true
    }

    /// A copy of `data`.
    init(copying data: Data) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 8)
        data.withUnsafeBytes { source in
            if let base = source.baseAddress { buffer.baseAddress!.copyMemory(from: base, byteCount: data.count) }
        }
        bytes = UnsafeRawBufferPointer(start: buffer.baseAddress, count: data.count)
        mapped = false
    }

    deinit {
        guard let base = bytes.baseAddress else { return }
        if mapped {
            munmap(UnsafeMutableRawPointer(mutating: base), bytes.count)
        } else {
            base.deallocate()
        }
    }
}
