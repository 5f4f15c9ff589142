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
///
/// It also counts the markup whose names libxml2 keeps but a reader's delegate never
/// sees, and stops the file past a count no GPX or TCX file needs (libxml2 2.9 looks a
/// name up in a table whose buckets stop growing, and checks each attribute of a start
/// tag against all the others, so many of them cost time quadratic in their number,
/// all of it spent before the delegate could refuse): processing instructions (a
/// thousand), different namespace declarations (`xmlns:p="…"` and `xmlns="…"`, a
/// thousand: a prefix and URL, told apart by a hash of them; one repeated on every
/// point costs nothing), and attributes in one start tag (a thousand). A `<` ends what
/// the scan took for a start tag, since no tag holds one: text in a comment, a CDATA
/// section or a DOCTYPE literal that looks like a tag never hides what follows.
/// 1,600,000 processing instructions took 39 s; one start tag of 300,000 attributes,
/// 20 s.
struct XMLInstructionScan {
    private enum State { case text, lessThan, target, targetQuestion, blanks, blanksQuestion, data, dataQuestion }
    private var state = State.text
    static let markupLimit = 1_000
    private var instructions = 0
    /// Inside a start tag: its attributes so far, the quote of an open value, and how
    /// much of `xmlns:` the current attribute's name has matched (nil: not at a name).
    private var inTag = false, attributes = 0, quote: UInt8?, xmlnsMatched: Int?
    /// The hash (FNV-1a) of the namespace declaration being read, prefix and value, and
    /// the different declarations seen: libxml2 pays for a new prefix or URL, not for one
    /// repeated on every track point.
    private var declaration: UInt64?, declarations = Set<UInt64>()
    private static let xmlns = Array("xmlns:".utf8)
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
        if inTag { return tagCharacter(byte, blank: blank) }
        switch state {
        case .text:
            if byte == UInt8(ascii: "<") { state = .lessThan }
        case .lessThan:
            if question {
                instructions += 1
                if instructions > Self.markupLimit { return Self.tooMany("processing instructions", "one or two") }
            } else if byte != UInt8(ascii: "<"), byte != UInt8(ascii: "!"), byte != UInt8(ascii: "/"), !blank {
                // A start tag's name begins.
                inTag = true
                attributes = 0
                quote = nil
                xmlnsMatched = nil
                declaration = nil
            }
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

    /// A character inside a start tag: its attributes are counted (an `=` outside a
    /// quoted value), and so are the `xmlns:` declarations at the start of a name.
    private mutating func tagCharacter(_ byte: UInt8, blank: Bool) -> String? {
        // No start tag, not even a quoted value in one, holds a '<' (XML forbids it in
        // attribute values): a '<' here means the tag was none (text in a comment, a
        // CDATA section or a DOCTYPE literal), and the scan starts over at it.
        if byte == UInt8(ascii: "<") {
            inTag = false
            quote = nil
            declaration = nil
            state = .lessThan
            return nil
        }
        if let open = quote {
            if byte == open {
                quote = nil
                if let hash = declaration {
                    declaration = nil
                    declarations.insert(hash)
                    if declarations.count > Self.markupLimit {
                        return Self.tooMany("different namespace declarations", "a few")
                    }
                }
            } else if let hash = declaration {
                declaration = (hash ^ UInt64(byte)) &* 0x100000001b3
            }
            return nil
        }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            quote = byte
        case UInt8(ascii: ">"):
            inTag = false
        case UInt8(ascii: "="):
            xmlnsMatched = nil
            attributes += 1
            if attributes > Self.markupLimit { return Self.tooMany("attributes in one start tag", "a few") }
        case _ where blank:
            xmlnsMatched = 0
        default:
            if let hash = declaration, xmlnsMatched == nil {
                declaration = (hash ^ UInt64(byte)) &* 0x100000001b3  // a prefix's name
                break
            }
            guard let matched = xmlnsMatched else { break }
            guard byte == Self.xmlns[matched] else {
                xmlnsMatched = nil
                declaration = nil  // "xmlnsx": no declaration
                break
            }
            xmlnsMatched = matched + 1 < Self.xmlns.count ? matched + 1 : nil
            // "xmlns" read: a declaration, of a prefix (':' next) or the default namespace ('=').
            if matched + 1 == Self.xmlns.count - 1 { declaration = 0xcbf29ce484222325 }
            if matched + 1 == Self.xmlns.count { declaration = (declaration! ^ 0x3A) &* 0x100000001b3 }
        }
        return nil
    }

    private static func tooMany(_ what: String, _ usual: String) -> String {
        "more than \(ImportLimits.grouped(markupLimit)) \(what), where GPX and TCX files use \(usual) (the XML "
            + "parser's time grows with the square of their number)"
    }
}
