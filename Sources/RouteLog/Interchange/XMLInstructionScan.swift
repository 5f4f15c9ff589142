/// Finds, byte by byte, the end of a processing instruction whose data is empty
/// (`<?x?>`, or only blanks after its target).
///
/// libxml2 reports such an instruction with a NULL data pointer, which FoundationXML on
/// Linux reads as a C string and crashes. ``XMLInputFeed`` runs every byte of a file
/// through this scan and stops before the `?>` that would complete one, so the parser
/// never sees it. NUL bytes are passed over, so ASCII patterns are also found in
/// UTF-16; the scan does not know comments or CDATA, so such a pattern there refuses a
/// file libxml2 could have read.
///
/// In a UTF-16 file the scan reads code units, two bytes at a time: a byte of a
/// character past ASCII is no ASCII character, though it may look like one (the `20` of
/// U+2078 is no blank, so `<?` U+2078 `?>` has no data).
struct XMLInstructionScan {
    private enum State { case text, lessThan, target, targetQuestion, blanks, blanksQuestion, data, dataQuestion }
    private var state = State.text
    /// The byte order of a UTF-16 file; nil for a file of single bytes.
    private let utf16BigEndian: Bool?
    /// A UTF-16 code unit's first byte, until its second comes.
    private var firstByte: UInt8?
    static let hazard = "a processing instruction without data (such as <?x?>), which the XML parser on this "
        + "platform cannot read"

    /// A scan of a file of single bytes, or, with `utf16BigEndian`, of UTF-16 code units
    /// in that byte order from its first byte on.
    init(utf16BigEndian: Bool? = nil) {
        self.utf16BigEndian = utf16BigEndian
    }

    /// The hazard this byte would complete, or nil.
    mutating func step(_ byte: UInt8) -> String? {
        guard let bigEndian = utf16BigEndian else { return character(byte) }
        guard let first = firstByte else {
            firstByte = byte
            return nil
        }
        firstByte = nil
        let unit = bigEndian ? UInt16(first) << 8 | UInt16(byte) : UInt16(byte) << 8 | UInt16(first)
        // A character past ASCII counts as a letter: part of a name or of data.
        return character(unit < 0x80 ? UInt8(unit) : UInt8(ascii: "a"))
    }

    /// The hazard this character (ASCII, or a letter standing for any other) would complete.
    private mutating func character(_ byte: UInt8) -> String? {
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
