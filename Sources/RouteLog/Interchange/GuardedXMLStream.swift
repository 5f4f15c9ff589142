import Foundation

/// The bytes of an XML file handed to FoundationXML's `XMLParser` in chunks, watched for
/// input that crashes the parser on Linux instead of failing.
///
/// The one such input known: a processing instruction without data (`<?x?>`, or only
/// blanks after its target). libxml2 reports it with a NULL data pointer, which
/// FoundationXML reads as a C string. The stream stops before the `?>` that would
/// complete it, so the parser never sees it, and records ``hazard`` for the reader to
/// report. The scan ignores NUL bytes, so ASCII patterns are also found in UTF-16; it
/// does not know comments or CDATA, so such a pattern there refuses a file libxml2
/// could have read. Memory: one chunk, whatever the file's size.
final class GuardedXMLStream: InputStream {
    /// What was found and the byte offset where the stream stopped.
    struct Hazard: Equatable {
        var offset: Int64
        var what: String
    }

    private(set) var hazard: Hazard?
    /// A read error of the underlying file, if reading stopped because of one.
    private(set) var readError: Error?
    private let nextChunk: (Int) throws -> Data
    private let closeHandle: () -> Void
    private var status: Stream.Status = .notOpen
    private var offset: Int64 = 0
    private var scan = InstructionScan()

    init(bytes data: Data) {
        var cursor = data.startIndex
        nextChunk = { want in
            let end = data.index(cursor, offsetBy: min(want, data.endIndex - cursor))
            defer { cursor = end }
            return data[cursor..<end]
        }
        closeHandle = {}
        super.init(data: Data())
    }

    /// - Throws: When the file cannot be opened.
    init(file url: URL) throws {
        let handle = try FileHandle(forReadingFrom: url)
        nextChunk = { want in try handle.read(upToCount: want) ?? Data() }
        closeHandle = { try? handle.close() }
        super.init(data: Data())
    }

    deinit { closeHandle() }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var hasBytesAvailable: Bool { status == .open }
    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                            length len: UnsafeMutablePointer<Int>) -> Bool { false }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard status == .open, hazard == nil, length > 0 else { return 0 }
        let chunk: Data
        do {
            chunk = try nextChunk(length)
        } catch {
            readError = error
            status = .atEnd
            return 0
        }
        guard !chunk.isEmpty else {
            status = .atEnd
            return 0
        }
        var count = 0
        for byte in chunk {
            if let what = scan.step(byte) {
                hazard = Hazard(offset: offset, what: what)
                break
            }
            buffer[count] = byte
            count += 1
            offset += 1
        }
        return count
    }

    /// Finds the end of a processing instruction whose data is empty.
    struct InstructionScan {
        private enum State { case text, lessThan, target, targetQuestion, blanks, blanksQuestion, data, dataQuestion }
        private var state = State.text
        static let hazard = "a processing instruction without data (such as <?x?>), which the XML parser on this "
            + "platform cannot read"

        /// The hazard this byte would complete, or nil.
        mutating func step(_ byte: UInt8) -> String? {
            if byte == 0 { return nil }
            let blank = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
            let question = byte == UInt8(ascii: "?"), greater = byte == UInt8(ascii: ">")
            switch state {
            case .text:
                if byte == UInt8(ascii: "<") { state = .lessThan }
            case .lessThan:
                state = question ? .target : byte == UInt8(ascii: "<") ? .lessThan : .text
            case .target:
                state = question ? .targetQuestion : blank ? .blanks : .target
            case .targetQuestion:
                if greater { return Self.hazard }
                state = question ? .targetQuestion : blank ? .blanks : .target
            case .blanks:
                state = question ? .blanksQuestion : blank ? .blanks : .data
            case .blanksQuestion:
                if greater { return Self.hazard }
                state = question ? .dataQuestion : .data
            case .data:
                state = question ? .dataQuestion : .data
            case .dataQuestion:
                state = greater ? .text : question ? .dataQuestion : .data
            }
            return nil
        }
    }
}
