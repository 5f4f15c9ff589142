/// Finds, anywhere in a file, the characters libxml2 cannot convert from the file's
/// encoding: an unpaired UTF-16 surrogate, a byte windows-1252 leaves undefined, a byte
/// over 0x7F in a file declared US-ASCII.
///
/// libxml2 on Linux crashes (a NULL read in `xmlParseChunk` or `xmlSwitchToEncoding`)
/// when such a character lies in the first bytes it converts, and reports an error
/// further on; ``XMLInputFeed`` stops before the first one wherever it is, so the file
/// is refused the same way whatever its length. UTF-8 and ISO-8859-1 go through
/// libxml2's own decoders, which fail cleanly (or cannot fail), and are not checked.
struct XMLCharacterCheck {
    enum Encoding: Equatable {
        case unchecked
        case utf16(bigEndian: Bool)
        case windows1252
        case ascii
    }

    /// A character that cannot be converted, at `offset` bytes from the file's start.
    struct Invalid: Equatable {
        var offset: Int64
        var what: String
    }

    let encoding: Encoding
    /// Bytes checked so far.
    private var offset: Int64 = 0
    private var firstByte: UInt8?
    /// Offset of a high surrogate waiting for its low one.
    private var highSurrogateOffset: Int64?

    init(_ encoding: Encoding) { self.encoding = encoding }

    /// The encoding to check for a file whose prolog `declarations` has read.
    init(for declarations: XMLDeclarationGuard) {
        if let bigEndian = declarations.utf16BigEndian {
            self.init(.utf16(bigEndian: bigEndian))
        } else if !declarations.declaredEncodings.isDisjoint(with: ["windows-1252", "cp1252"]) {
            self.init(.windows1252)
        } else if !declarations.declaredEncodings.isDisjoint(with: ["us-ascii", "ascii"]) {
            self.init(.ascii)
        } else {
            self.init(.unchecked)
        }
    }

    /// The first character of `bytes` (the file's next bytes) that cannot be converted,
    /// or nil. Once one is found, nothing after it is checked.
    mutating func firstInvalid(in bytes: UnsafeBufferPointer<UInt8>) -> Invalid? {
        switch encoding {
        case .unchecked:
            offset += Int64(bytes.count)
            return nil
        case .windows1252:
            for (index, byte) in bytes.enumerated() where Self.undefinedIn1252.contains(byte) {
                return Invalid(offset: offset + Int64(index),
                               what: "has the byte 0x\(String(byte, radix: 16, uppercase: true)), which "
                                   + "windows-1252 leaves undefined, at byte \(offset + Int64(index))")
            }
            offset += Int64(bytes.count)
            return nil
        case .ascii:
            // A UTF-8 byte order mark before the declaration is not text.
            for (index, byte) in bytes.enumerated() where byte > 0x7F
                && !(offset + Int64(index) < 3 && [0xEF, 0xBB, 0xBF][Int(offset) + index] == byte) {
                return Invalid(offset: offset + Int64(index),
                               what: "is declared US-ASCII but has the byte 0x\(String(byte, radix: 16, uppercase: true)) "
                                   + "at byte \(offset + Int64(index))")
            }
            offset += Int64(bytes.count)
            return nil
        case .utf16(let bigEndian):
            for byte in bytes {
                defer { offset += 1 }
                guard let first = firstByte else {
                    firstByte = byte
                    continue
                }
                firstByte = nil
                let unit = bigEndian ? UInt16(first) << 8 | UInt16(byte) : UInt16(byte) << 8 | UInt16(first)
                let unitOffset = offset - 1
                if let high = highSurrogateOffset {
                    highSurrogateOffset = nil
                    if !(0xDC00...0xDFFF).contains(unit) { return Self.unpaired(at: high) }
                } else if (0xD800...0xDBFF).contains(unit) {
                    highSurrogateOffset = unitOffset
                } else if (0xDC00...0xDFFF).contains(unit) {
                    return Self.unpaired(at: unitOffset)
                }
            }
            return nil
        }
    }

    private static func unpaired(at offset: Int64) -> Invalid {
        Invalid(offset: offset, what: "has an unpaired UTF-16 surrogate at byte \(offset)")
    }

    /// The five bytes windows-1252 assigns no character.
    static let undefinedIn1252: Set<UInt8> = [0x81, 0x8D, 0x8F, 0x90, 0x9D]
}
