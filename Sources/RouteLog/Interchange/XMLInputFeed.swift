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
/// file: after a refusal nothing more is read, whatever the parser does. It also stops
/// before the `?>` of a processing instruction without data (``instructionHazard``),
/// which crashes FoundationXML on Linux wherever it stands in the file.
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
    private var instructions = GuardedXMLStream.InstructionScan()
    private var line = 1
    /// Set when the feed stopped before a processing instruction without data.
    private(set) var instructionHazard: InstructionHazard?

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
        // Every byte, root element included: libxml2 crashes FoundationXML on an empty
        // processing instruction wherever it stands (GuardedXMLStream, the same scan).
        for i in 0..<count {
            let byte = buffer[i]
            if let what = instructions.step(byte) {
                instructionHazard = InstructionHazard(offset: Int64(bytesRead + i), line: line, what: what)
                stopped = true
                count = i
                break
            }
            if byte == 0x0A { line += 1 }
        }
        bytesRead += count
        return count
    }
}

/// Where the feed stopped before an input that crashes the XML parser.
struct InstructionHazard: Equatable {
    /// Byte offset of the `>` that would have completed it.
    var offset: Int64
    /// 1-based line of that byte.
    var line: Int
    var what: String

    /// The refusal of a `kind` file (GPX) at `source`. It takes precedence over what the
    /// parser said after the feed stopped (a file cut short).
    func error(_ kind: String, source: String) -> RouteLogError {
        RouteLogError(.invalidArgument, "\(kind) refused at line \(line), byte \(offset): \(what); "
                          + "nothing from this file was imported", path: source, offset: offset)
    }
}

// At file scope, where `open`, `read` and `close` are the C functions, not the
// stream's methods.
private func openForReading(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
