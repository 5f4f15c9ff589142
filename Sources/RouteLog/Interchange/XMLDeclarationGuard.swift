/// Finds, in the bytes before a document's root element, what RouteLog refuses before
/// libxml2 reads it: the DTD declarations that would change what the document says
/// (`<!ENTITY` and `<!ATTLIST`), and every encoding other than those it reads.
///
/// Encodings: libxml2 on Linux crashes (a NULL read in `xmlParseChunk` or
/// `xmlSwitchToEncoding`) on files in UCS-4 or EBCDIC, recognised from their first four
/// bytes, and on UTF-16 files whose XML declaration names UCS-4, UTF-32 or UTF-7. So the
/// first four bytes must not be UCS-4 or EBCDIC, and the declaration's `encoding`, read
/// here in single bytes or UTF-16 alike, must be one of ``readableEncodings``.
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
    /// What made the file unreadable, with where it starts.
    struct Refusal: Equatable {
        enum Reason: Equatable {
            /// A DTD declaration that changes the document's text.
            case declaration
            /// An encoding RouteLog does not read.
            case encoding
        }

        /// What the file declares or is, for a message.
        var what: String
        var line: Int
        var column: Int
        var reason = Reason.declaration
        /// The byte offset of what was refused, when it lies past the declaration.
        var offset: Int64?

        /// The error a reader of `kind` files ("GPX", "TCX") throws for this refusal.
        func error(_ kind: String, source: String) -> RouteLogError {
            switch reason {
            case .encoding:
                return RouteLogError(.invalidArgument, "The \(kind) file \(what); convert it to UTF-8. "
                                         + "Nothing from this file was imported", path: source, offset: offset)
            case .declaration:
                return RouteLogError(.invalidArgument,
                                     "\(kind) refused at line \(line), column \(column): \(what), whose text "
                                         + "XMLParser would silently drop or make up; RouteLog reads no DTD, "
                                         + "so nothing from this file was imported", path: source)
            }
        }
    }

    /// The encodings an XML declaration may name (compared ignoring case).
    static let readableEncodings: Set<String> = [
        "utf-8", "utf8", "utf-16", "utf-16le", "utf-16be", "iso-8859-1", "latin1", "iso-latin-1",
        "us-ascii", "ascii", "windows-1252", "cp1252",
    ]
    /// The first four bytes by which libxml2 recognises UCS-4: '<' or a byte order mark
    /// in each of the four byte orders.
    static let ucs4Signatures: Set<[UInt8]> = [
        [0x00, 0x00, 0x00, 0x3C], [0x3C, 0x00, 0x00, 0x00], [0x00, 0x00, 0x3C, 0x00], [0x00, 0x3C, 0x00, 0x00],
        [0x00, 0x00, 0xFE, 0xFF], [0xFF, 0xFE, 0x00, 0x00], [0x00, 0x00, 0xFF, 0xFE], [0xFE, 0xFF, 0x00, 0x00],
    ]
    /// The longest XML declaration read; a longer one is refused (a real one is under 100
    /// characters).
    static let maximumDeclarationLength = 1024

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
    /// The characters of the processing instruction being read (non-ASCII ones as 0x80),
    /// while it may be the XML declaration.
    private var instruction: [UInt8]?

    /// The encodings the XML declaration names (lowercased), as read and accepted.
    private(set) var declaredEncodings: Set<String> = []
    /// Whether the file is UTF-16 (from its byte order mark or its first '<'), and its
    /// byte order; nil while undecided or for single-byte files.
    var utf16BigEndian: Bool? {
        if case .utf16(let bigEndian) = width { return bigEndian }
        return nil
    }

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
                guard head.count == 4 else { continue }
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
        // UCS-4 ('<' or a byte order mark in four bytes) and EBCDIC ("<?xm" in EBCDIC):
        // libxml2 on Linux crashes on such files, and RouteLog reads UTF-8 and UTF-16 only.
        // A UTF-32 little-endian byte order mark starts like UTF-16's, so two bytes
        // decide only when a file is that short.
        if Self.ucs4Signatures.contains(head) {
            refusal = Refusal(what: "is UCS-4 (four bytes a character), which RouteLog does not read", line: 1, column: 1, reason: .encoding)
            return
        }
        if head == [0x4C, 0x6F, 0xA7, 0x94] {
            refusal = Refusal(what: "is EBCDIC, which RouteLog does not read", line: 1, column: 1, reason: .encoding)
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
            if question, ascii == UInt8(ascii: ">") {
                state = .text
                instruction = nil
            } else {
                state = .instruction(question: ascii == UInt8(ascii: "?"))
                if instruction != nil, startsCharacter {
                    readDeclaration(ascii ?? 0x80)
                    if ascii == UInt8(ascii: "\"") || ascii == UInt8(ascii: "'") { checkDeclaration() }
                }
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

    /// Keeps the characters of an instruction while it may be the XML declaration.
    private mutating func readDeclaration(_ character: UInt8) {
        guard var text = instruction else { return }
        instruction = nil  // no copy while appending
        text.append(character)
        if text.count >= 4, !text.starts(with: Array("xml".utf8)) || !Self.isBlank(text[3]) {
            return  // another instruction: nothing to check
        }
        if text.count > Self.maximumDeclarationLength {
            refusal = Refusal(what: "has an XML declaration longer than \(Self.maximumDeclarationLength) characters",
                              line: markupLine, column: markupColumn, reason: .encoding)
            return
        }
        instruction = text
    }

    /// Refuses the XML declaration read so far if it names an encoding RouteLog does not
    /// read. Called at each quote, so a value is judged the moment it is complete, even
    /// in a declaration that never ends (libxml2 switches encodings on the attribute
    /// alone); every `encoding` value in it counts, not only the first.
    private mutating func checkDeclaration() {
        guard let text = instruction, text.count >= 4 else { return }
        for name in Self.declaredEncodings(text) {
            let shown = String(decoding: name.map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            let lowercased = shown.lowercased()
            guard name.allSatisfy({ $0 < 0x80 }), Self.readableEncodings.contains(lowercased) else {
                refusal = Refusal(what: "declares the encoding \"\(shown)\", which RouteLog does not read",
                                  line: markupLine, column: markupColumn, reason: .encoding)
                return
            }
            if case .byte = width, lowercased.hasPrefix("utf-16") {
                // libxml2 would switch to UTF-16 in mid-file, and crashes on what it then
                // cannot convert.
                refusal = Refusal(what: "declares the encoding \"\(shown)\" but is written in single bytes",
                                  line: markupLine, column: markupColumn, reason: .encoding)
                return
            }
            declaredEncodings.insert(lowercased)
        }
    }

    /// Every complete `encoding="…"` value in an XML declaration's characters.
    static func declaredEncodings(_ text: [UInt8]) -> [[UInt8]] {
        let key = Array("encoding".utf8)
        var values: [[UInt8]] = []
        var start = 0
        while start + key.count <= text.count {
            defer { start += 1 }
            guard text[start] == key[0], text[start..<start + key.count].elementsEqual(key) else { continue }
            var index = start + key.count
            while index < text.count, isBlank(text[index]) || text[index] == UInt8(ascii: "=") { index += 1 }
            guard index < text.count, text[index] == UInt8(ascii: "\"") || text[index] == UInt8(ascii: "'") else {
                continue
            }
            let quote = text[index]
            guard let end = text[(index + 1)...].firstIndex(of: quote) else { continue }
            values.append(Array(text[(index + 1)..<end]))
        }
        return values
    }

    private static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private mutating func readMarkup(_ ascii: UInt8?) {
        guard let ascii else {
            isDone = true
            return
        }
        if markup.isEmpty {
            if ascii == UInt8(ascii: "?") {
                state = .instruction(question: false)
                instruction = []
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
