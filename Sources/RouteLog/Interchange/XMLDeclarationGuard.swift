/// Finds, in the bytes before a document's root element, the DTD declarations that
/// would change what the document says: `<!ENTITY` and `<!ATTLIST`.
///
/// FoundationXML's `XMLParser` (libxml2 with entity substitution on) tells its delegate
/// nothing about an internal entity: a reference to one is silently replaced by
/// nothing ("A&name;B" reads as "AB", or "A"). An `<!ATTLIST` gives elements default
/// attributes the file never writes on them (a `lat` on every point). Neither belongs
/// in GPX or TCX, so a file declaring either is refused before the parser sees the
/// declaration. Comments, processing instructions, `<!ELEMENT>`/`<!NOTATION>` and an
/// external DTD reference are let through (RouteLog never loads external DTDs).
///
/// The scan is a small state machine over the prolog's characters (single bytes, or
/// UTF-16 code units after a UTF-16 byte order mark or `<?` in UTF-16), so it costs
/// constant memory however long the prolog is, and it stops looking at the root
/// element's `<`.
struct XMLDeclarationGuard {
    /// A declaration that made the file unreadable, with where it starts.
    struct Refusal: Equatable {
        /// What the file declares, for a message.
        var what: String
        var line: Int
        var column: Int
    }

    private(set) var refusal: Refusal?
    /// True once the root element has started (or the prolog is not something this
    /// scan understands, which the parser then reports): nothing more to look at.
    private(set) var isDone = false

    private enum Width { case undecided, byte, utf16(bigEndian: Bool) }
    private enum State {
        case text, markup, comment(dashes: Int), instruction(question: Bool), doctype, declaration, subsetEnd
    }

    private var width = Width.undecided
    private var head: [UInt8] = []
    private var pendingByte: UInt8?
    private var state = State.text
    private var inSubset = false
    private var quote: UInt16?
    private var markup: [UInt8] = []
    private var markupLine = 1, markupColumn = 1
    private var line = 1, column = 0

    private static let candidates: [(text: [UInt8], kind: String?)] = [
        (Array("!--".utf8), nil), (Array("!DOCTYPE".utf8), nil), (Array("!ELEMENT".utf8), nil),
        (Array("!NOTATION".utf8), nil),
        (Array("!ENTITY".utf8), "an entity (<!ENTITY)"),
        (Array("!ATTLIST".utf8), "default attributes (<!ATTLIST)"),
    ]

    /// Scans the next bytes of the file; returns how many of them may reach the parser
    /// (all of them, unless a declaration was refused).
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        for index in bytes.indices {
            guard !isDone, refusal == nil else { return refusal == nil ? bytes.count : index }
            let byte = bytes[index]
            switch width {
            case .undecided:
                head.append(byte)
                guard head.count == 4 || (head.count == 2 && (head == [0xFE, 0xFF] || head == [0xFF, 0xFE])) else { continue }
                decideWidth()
                if refusal != nil { return 0 }  // not even the first bytes reach the parser
                let decided = head
                head = []
                for b in decided { feedByte(b) }
            default:
                feedByte(byte)
            }
        }
        return refusal == nil ? bytes.count : max(0, bytes.count - 1)
    }

    private mutating func decideWidth() {
        // UCS-4 ('<' or a byte order mark in four bytes): libxml2 on Linux crashes on
        // some such files, and RouteLog reads UTF-8 and UTF-16 only.
        if head.count == 4, head.filter({ $0 == 0 }).count >= 2, head.contains(0x3C) || head.contains(0xFE) {
            refusal = Refusal(what: "the file is UCS-4 (four bytes a character), which RouteLog does not read",
                              line: 1, column: 1)
            return
        }
        switch (head[0], head[1]) {
        case (0xFE, 0xFF), (0x00, 0x3C): width = .utf16(bigEndian: true)
        case (0xFF, 0xFE), (0x3C, 0x00): width = .utf16(bigEndian: false)
        default: width = .byte
        }
    }

    private mutating func feedByte(_ byte: UInt8) {
        switch width {
        case .utf16(let bigEndian):
            guard let first = pendingByte else {
                pendingByte = byte
                return
            }
            pendingByte = nil
            let unit = bigEndian ? UInt16(first) << 8 | UInt16(byte) : UInt16(byte) << 8 | UInt16(first)
            if unit == 0xFEFF { return }
            advance(unit, startsCharacter: !(0xDC00...0xDFFF).contains(unit))
        default:
            advance(UInt16(byte), startsCharacter: byte & 0xC0 != 0x80)
        }
    }

    private mutating func advance(_ unit: UInt16, startsCharacter: Bool) {
        if unit == 0x0A {
            line += 1
            column = 0
        } else if startsCharacter {
            column += 1
        }
        let ascii: UInt8? = unit < 0x80 ? UInt8(unit) : nil
        switch state {
        case .text:
            if ascii == UInt8(ascii: "<") {
                state = .markup
                markup = []
                markupLine = line
                markupColumn = column
            } else if inSubset, ascii == UInt8(ascii: "]") {
                inSubset = false
                state = .subsetEnd
            }
        case .markup:
            readMarkup(ascii)
        case .comment(let dashes):
            if ascii == UInt8(ascii: ">"), dashes >= 2 { state = .text } else {
                state = .comment(dashes: ascii == UInt8(ascii: "-") ? dashes + 1 : 0)
            }
        case .instruction(let question):
            if question, ascii == UInt8(ascii: ">") { state = .text } else {
                state = .instruction(question: ascii == UInt8(ascii: "?"))
            }
        case .doctype, .declaration:
            if let open = quote {
                if unit == open { quote = nil }
            } else if ascii == UInt8(ascii: "\"") || ascii == UInt8(ascii: "'") {
                quote = unit
            } else if ascii == UInt8(ascii: ">") {
                state = .text
            } else if case .doctype = state, ascii == UInt8(ascii: "[") {
                inSubset = true
                state = .text
            }
        case .subsetEnd:
            if ascii == UInt8(ascii: ">") { state = .text }
        }
    }

    private mutating func readMarkup(_ ascii: UInt8?) {
        guard let ascii else {
            isDone = true
            return
        }
        if markup.isEmpty {
            if ascii == UInt8(ascii: "?") {
                state = .instruction(question: false)
                return
            }
            if ascii != UInt8(ascii: "!") {
                // The root element (or markup the parser will refuse): the prolog is over.
                isDone = true
                return
            }
        }
        markup.append(ascii)
        let matching = Self.candidates.filter { $0.text.starts(with: markup) }
        guard !matching.isEmpty else {
            isDone = true
            return
        }
        guard let complete = matching.first(where: { $0.text == markup }) else { return }
        if let kind = complete.kind {
            refusal = Refusal(what: "the file's DOCTYPE declares \(kind)", line: markupLine, column: markupColumn)
        } else if markup == Array("!--".utf8) {
            state = .comment(dashes: 0)
        } else {
            quote = nil
            state = markup == Array("!DOCTYPE".utf8) ? .doctype : .declaration
        }
    }
}
