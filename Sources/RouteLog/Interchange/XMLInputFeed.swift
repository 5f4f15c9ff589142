import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes an `XMLParser` reads, from a file or from memory, in chunks of at most
/// 128 KiB, and nothing more once ``stop()`` is called.
///
/// `XMLParser(contentsOf:)` reads the file itself, leaving no place to look at the
/// bytes before libxml2 does. This feed first passes the bytes before the root element
/// through an ``XMLDeclarationGuard``, which stops it at a DTD declaration that would
/// change what the document says, and ends the input the moment a reader refuses the
/// file: after a refusal nothing more is read, whatever the parser does.
final class XMLInputFeed: InputStream {
    private enum Source {
        case file(Int32)
        case memory(Data, position: Int)
    }

    private var source: Source
    private(set) var stopped = false
    /// Bytes handed to the parser so far.
    private(set) var bytesRead = 0
    private var declarations = XMLDeclarationGuard()

    /// Why the feed stopped itself (a refused declaration), with where it is.
    var refusal: XMLDeclarationGuard.Refusal? { declarations.refusal }

    /// Opens `url` for reading.
    /// - Throws: `.notFound` when it cannot be opened.
    init(contentsOf url: URL) throws {
        let descriptor = openForReading(url.path)
        guard descriptor >= 0 else {
            throw RouteLogError(.notFound, "Cannot read the file; check the path", path: url.path)
        }
        source = .file(descriptor)
        super.init(data: Data())
    }

    /// Feeds bytes already in memory.
    init(bytes: Data) {
        source = .memory(bytes, position: 0)
        super.init(data: Data())
    }

    deinit {
        if case .file(let descriptor) = source { closeDescriptor(descriptor) }
    }

    /// Ends the input: the parser's next read sees end of file.
    func stop() { stopped = true }

    override func open() {}
    override func close() {}
    override var hasBytesAvailable: Bool { !stopped }
    override var streamStatus: Stream.Status { stopped ? .atEnd : .open }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard !stopped, maxLength > 0 else { return 0 }
        let wanted = min(maxLength, 128 << 10)
        var count: Int
        switch source {
        case .file(let descriptor):
            repeat { count = readDescriptor(descriptor, buffer, wanted) } while count < 0 && errno == EINTR
            if count < 0 {
                stopped = true
                return -1
            }
        case .memory(let data, let position):
            count = min(wanted, data.count - position)
            data.withUnsafeBytes { raw in
                let start = raw.baseAddress!.advanced(by: position)
                buffer.update(from: start.assumingMemoryBound(to: UInt8.self), count: count)
            }
            source = .memory(data, position: position + count)
        }
        guard count > 0 else { return 0 }
        if !declarations.isDone {
            // Hand the parser only the bytes before a refused declaration.
            let passed = declarations.scan(UnsafeBufferPointer(start: buffer, count: count))
            if declarations.refusal != nil {
                stopped = true
                count = passed
            }
        }
        bytesRead += count
        return count
    }
}

// At file scope, where `open`, `read` and `close` are the C functions, not the
// stream's methods.
private func openForReading(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
