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
/// bytes before libxml2 does. This feed first reads ahead the file's head (4 KiB, or
/// more until the root element starts or the scan gives up) and passes the bytes before
/// the root element through an ``XMLDeclarationGuard``, which refuses an encoding
/// RouteLog does not read (libxml2 crashes on some) and a DTD declaration that would
/// change what the document says: a refused head reaches the parser not at all, a
/// declaration refused later stops the input before it. The feed ends the input the
/// moment a reader refuses the file: after a refusal nothing more is read, whatever the
/// parser does. It also stops before the `?>` of a processing instruction without data
/// (``instructionHazard``), which crashes FoundationXML on Linux wherever it stands,
/// and before a character libxml2 cannot convert from the file's encoding
/// (``XMLCharacterCheck``), on which it crashes near the start of a file.
final class XMLInputFeed: InputStream {
    private enum Source {
        case file(Int32)
        case memory(Data, position: Int)
    }

    /// How much of the head is read ahead before the parser sees any of it.
    static let headLength = 4096

    private var source: Source
    private(set) var stopped = false
    /// Bytes handed to the parser so far.
    private(set) var bytesRead = 0
    /// The errno of a failed read, when reading stopped because of one.
    private(set) var readError: Int32?
    private var declarations = XMLDeclarationGuard()
    private var instructions = XMLInstructionScan()
    private var characters = XMLCharacterCheck(.unchecked)
    private var characterRefusal: XMLDeclarationGuard.Refusal?
    private var line = 1
    /// The head, read ahead and scanned, not yet handed to the parser.
    private var pending: [UInt8] = []
    private var primed = false
    /// Set when the feed stopped before a processing instruction without data.
    private(set) var instructionHazard: InstructionHazard?

    /// Why the feed stopped itself (a refused encoding or declaration), with where it is.
    var refusal: XMLDeclarationGuard.Refusal? { declarations.refusal ?? characterRefusal }

    /// Opens `url` for reading (``ImportInputFile``: never waiting, a regular file only).
    /// - Parameter what: how errors name the file ("GPX file").
    /// - Throws: `.notFound` when it cannot be opened, `.invalidArgument` for a
    ///   directory or a FIFO, socket or device.
    init(contentsOf url: URL, what: String = "file") throws {
        source = .file(try ImportInputFile.open(url, what: what).descriptor)
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
        if !primed {
            primed = true
            readHead()
            if stopped { return readError == nil ? 0 : -1 }
            characters = XMLCharacterCheck(for: declarations)
            instructions = XMLInstructionScan(utf16BigEndian: declarations.utf16BigEndian)
        }
        var count: Int
        if !pending.isEmpty {
            count = min(maxLength, pending.count)
            pending.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: count) }
            pending.removeFirst(count)
        } else {
            count = readSource(buffer, min(maxLength, 128 << 10))
            if count < 0 { return -1 }
            guard count > 0 else { return 0 }
            if !declarations.isDone {
                // Hand the parser only the bytes before a refused declaration.
                let passed = declarations.scan(UnsafeBufferPointer(start: buffer, count: count))
                if declarations.refusal != nil {
                    stopped = true
                    count = passed
                }
            }
        }
        if let invalid = characters.firstInvalid(in: UnsafeBufferPointer(start: buffer, count: count)) {
            characterRefusal = XMLDeclarationGuard.Refusal(what: invalid.what, line: line, column: 0,
                                                           reason: .encoding, offset: invalid.offset)
            stopped = true
            count = max(0, Int(invalid.offset) - bytesRead)
        }
        // Every byte, root element included: libxml2 crashes FoundationXML on an empty
        // processing instruction wherever it stands.
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

    /// Reads the head ahead into `pending` and scans it; a refusal there stops the feed
    /// before the parser has seen a byte.
    private func readHead() {
        var head = [UInt8](repeating: 0, count: Self.headLength)
        var filled = 0
        while true {
            if filled == head.count {
                guard !declarations.isDone, declarations.refusal == nil,
                      head.count < 16 * Self.headLength else { break }
                head.append(contentsOf: repeatElement(0, count: Self.headLength))
            }
            let count = head.withUnsafeMutableBufferPointer { all in
                readSource(all.baseAddress! + filled, all.count - filled)
            }
            if count < 0 { return }
            if count == 0 { break }
            let start = filled
            _ = head.withUnsafeBufferPointer { declarations.scan(UnsafeBufferPointer(rebasing: $0[start..<start + count])) }
            filled += count
            if declarations.refusal != nil {
                stopped = true
                return
            }
        }
        pending = Array(head[0..<filled])
    }

    /// Reads up to `wanted` bytes from the file or memory; -1 (and ``readError``, and the
    /// feed stopped) when the file cannot be read.
    private func readSource(_ buffer: UnsafeMutablePointer<UInt8>, _ wanted: Int) -> Int {
        switch source {
        case .file(let descriptor):
            var count: Int
            repeat { count = readDescriptor(descriptor, buffer, wanted) } while count < 0 && errno == EINTR
            if count < 0 {
                readError = errno
                stopped = true
            }
            return count
        case .memory(let data, let position):
            let count = min(wanted, data.count - position)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { raw in
                let start = raw.baseAddress!.advanced(by: position)
                buffer.update(from: start.assumingMemoryBound(to: UInt8.self), count: count)
            }
            source = .memory(data, position: position + count)
            return count
        }
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

// At file scope, where `read` and `close` are the C functions, not the
// stream's methods.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
