/// A route's stored metadata checked against every rule of format-spec.md ("Segment
/// records": metadata) without being decoded: the numbers read, the texts and fields
/// left as slices of the record's bytes. Checking a route's metadata this way allocates
/// nothing, so the index can vouch for 100,000 routes at open and decode each only when
/// a summary asks (``StoredMetadata/init(_:)`` makes the values from a view, and never
/// fails: every check is here).
struct MetadataView {
    typealias Field = FormatConstants.MetadataField

    var shiftMs: Int64
    var calories: Double?
    var distance: Double?
    /// The name's UTF-8 bytes.
    var name: ArraySlice<UInt8>?
    /// The extension's fields, each already checked: tag, length, value, in stored order.
    var extensionFields: ArraySlice<UInt8>
    /// The bytes the view was read from: stored metadata, or the index's in-memory form
    /// of it (``MetadataLayout/zeroShiftLeftOut``).
    private let bytes: ArraySlice<UInt8>

    /// How much of the format's rules a view checks.
    enum Checks {
        /// Every rule, the extension's fields included.
        case all
        /// The layout: flags, time shift, calories, distance, name and extension
        /// lengths; not the extension's fields (an IndexPutRun's metadata).
        case layout
        /// None: the bytes were checked when they came in.
        case none
    }

    /// Reads and checks one metadata from `r`.
    /// - Throws: ByteReader.Malformed naming the first rule broken.
    init(from r: inout ByteReader) throws {
        try self.init(from: &r, checking: .all)
    }

    /// Reads one metadata from `r`, checking its layout but not its extension's fields
    /// (format-spec.md, "Index records": IndexPutRun). Decoding what it accepts never
    /// fails: an extension field that cannot be read is left out.
    init(layoutOf r: inout ByteReader) throws {
        try self.init(from: &r, checking: .layout)
    }

    /// Reads metadata the index holds: bytes a view checked when they came in, or
    /// bytes ``StoredMetadata/write(to:)`` made of decoded metadata. Only their layout is
    /// read, no rule checked again: decoding and encoding again can lengthen what was
    /// stored (each byte of invalid UTF-8 becomes a three-byte replacement character),
    /// so a name or an extension may now be longer than a stored one may be.
    init(checked bytes: ArraySlice<UInt8>) {
        var r = ByteReader(bytes)
        guard let view = try? MetadataView(from: &r, checking: .none) else {
            preconditionFailure("metadata checked before does not read back")
        }
        self = view
    }

    private init(from r: inout ByteReader, checking: Checks) throws {
        let (layout, bytes) = try r.read { raw in
            let layout = try MetadataLayout(raw, limits: checking != .none)
            return (layout, layout.length)
        }
        func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
            bytes[(bytes.startIndex + range.lowerBound)..<(bytes.startIndex + range.upperBound)]
        }
        self.bytes = bytes
        shiftMs = layout.shiftMs
        calories = layout.calories
        distance = layout.distance
        name = layout.name.map(slice)
        extensionFields = slice(layout.extensionFields)
        if checking == .all {
            var fields = ByteReader(extensionFields)
            try Self.check(&fields)
        }
    }

    /// The stored bytes of this metadata: those it was read from, with a zero time shift
    /// put back where the index's in-memory form left it out.
    var storedBytes: [UInt8] {
        guard let flags = bytes.first, flags & MetadataLayout.zeroShiftLeftOut != 0 else { return Array(bytes) }
        return [flags & ~MetadataLayout.zeroShiftLeftOut] + [UInt8](repeating: 0, count: 8) + bytes.dropFirst()
    }

    /// Calls `body` with each extension field's tag (nil for one this version does not
    /// know), its raw tag, and its value, in stored order.
    func forEachField(_ body: (Field?, UInt64, ArraySlice<UInt8>) -> Void) {
        var r = ByteReader(extensionFields)
        // Checked when the view was made: these reads cannot fail.
        while !r.isAtEnd, let tag = try? r.varint(), let length = try? r.count(max: r.remaining),
              let value = try? r.bytes(length) {
            body(Field(rawValue: tag), tag, value)
        }
    }

    /// Checks every field of an extension: the limits of each kind, and the derived
    /// fields' values (format-spec.md, "Derived fields").
    private static func check(_ r: inout ByteReader) throws {
        var tags = 0
        var keys: [String] = []
        while !r.isAtEnd {
            let tag = try r.varint()
            let length = try r.count(max: r.remaining)
            let value = try r.bytes(length)
            switch Field(rawValue: tag) {
            case .activity:
                guard let code = value.first.flatMap(FormatConstants.ActivityCode.init(rawValue:)) else {
                    throw r.fail("unknown activity code")
                }
                if code == .custom {
                    guard value.count > 1, value.count - 1 <= FormatConstants.maxActivityNameBytes else { throw r.fail("activity name of \(value.count - 1) bytes") }
                }
            case .notes:
                guard value.count <= FormatConstants.maxNotesBytes else { throw r.fail("notes of \(value.count) bytes") }
            case .tag:
                guard tags < FormatConstants.maxTags, !value.isEmpty else { throw r.fail("more than \(FormatConstants.maxTags) tags, or an empty one") }
                guard value.count <= FormatConstants.maxTagBytes else { throw r.fail("tag of \(value.count) bytes") }
                tags += 1
            case .value:
                var pair = ByteReader(value)
                let keyLength = try pair.count(max: min(pair.remaining, FormatConstants.maxValueKeyBytes))
                // Keys compare as the strings they decode to (two byte sequences can make
                // one string), exactly as the decoded dictionary would.
                let key = String(decoding: try pair.bytes(keyLength), as: UTF8.self)
                guard keyLength > 0, pair.remaining <= FormatConstants.maxValueBytes, keys.count < FormatConstants.maxValues,
                      !keys.contains(key) else { throw r.fail("a value field that breaks the limits") }
                keys.append(key)
            case .uuid:
                guard value.count == 16 else { throw r.fail("uuid of \(value.count) bytes") }
            case .stats, .cells, .preview:
                try DerivedFields.check(Field(rawValue: tag)!, value)
            case nil:
                break
            }
        }
    }
}
