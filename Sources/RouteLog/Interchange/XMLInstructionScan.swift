/// Finds, byte by byte, the end of a processing instruction whose data is empty
/// (`<?x?>`, or only blanks after its target).
///
/// libxml2 reports such an instruction with a NULL data pointer, which FoundationXML on
/// Linux reads as a C string and crashes. ``XMLInputFeed`` runs every byte of a file
/// through this scan and stops before the `?>` that would complete one, so the parser
/// never sees it. NUL bytes are passed over, so ASCII patterns are also found in
/// UTF-16; the scan does not know comments or CDATA, so such a pattern there refuses a
/// file libxml2 could have read.
struct XMLInstructionScan {
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
