import Foundation

/// A route's editable metadata as stored: the app's fields, the time shift, and the
/// version 2 extension's tagged fields (format-spec.md, "Segment records": metadata).
struct StoredMetadata: Equatable, Sendable {
    var name: String?
    var calories: Double?
    var distance: Double?
    var shiftMs: Int64 = 0
    var activity: ActivityKind?
    var notes: String?
    var tags: [String] = []
    /// Key-value pairs in the order stored (written sorted by key).
    var values: [String: String] = [:]
    var uuid: UUID?
    /// Stats, grid cells and preview computed from the points at save (not the app's:
    /// ``routeMetadata`` leaves them out, and edits carry them unchanged).
    var derived = DerivedFields()
    /// Extension fields with tags this version does not know, as stored: written back
    /// unchanged, so a route edited here keeps what a newer writer gave it.
    var unknownFields: [UInt8] = []
    /// The stored bytes these values were decoded from, when decoding lost something.
    private var lossyOriginal = LossyOriginal()

    /// The bytes of metadata whose text was not UTF-8 (only a file from elsewhere holds
    /// such: RouteLog writes valid text). Each invalid byte decodes to U+FFFD, three bytes
    /// encoded again, so metadata written from the values could outgrow the format's
    /// limits: a name of 1,024 invalid bytes would become 3,072. While the values are
    /// still those the bytes decode to, ``write(to:)`` writes the bytes themselves, so a
    /// record written again from a decoded event (an index rewritten from a tombstone, a
    /// recording's start, a route) holds what was stored. Not part of equality: two
    /// metadata are equal when their values are.
    private struct LossyOriginal: Equatable, Sendable {
        var bytes: [UInt8]?
        static func == (_: LossyOriginal, _: LossyOriginal) -> Bool { true }
    }

    init(_ metadata: RouteMetadata, shiftMs: Int64 = 0) {
        name = metadata.name
        calories = metadata.calories
        distance = metadata.distance
        activity = metadata.activity
        notes = metadata.notes
        tags = metadata.tags
        values = metadata.values
        uuid = metadata.uuid
        self.shiftMs = shiftMs
    }

    var routeMetadata: RouteMetadata {
        RouteMetadata(name: name, calories: calories, distance: distance, activity: activity, notes: notes,
                      tags: tags, values: values, uuid: uuid)
    }

    private var hasExtension: Bool {
        activity != nil || notes != nil || !tags.isEmpty || !values.isEmpty || uuid != nil || !derived.isEmpty || !unknownFields.isEmpty
    }

    func write(to w: inout ByteWriter) {
        if let original = lossyOriginal.bytes, StoredMetadata(MetadataView(checked: original[...])) == self {
            w.append(contentsOf: original)
            return
        }
        typealias Flag = FormatConstants.MetadataFlag
        let nameBytes = name.map { Array($0.utf8) }
        w.u8((nameBytes == nil ? 0 : Flag.name) | (calories == nil ? 0 : Flag.calories) | (distance == nil ? 0 : Flag.distance)
             | (hasExtension ? Flag.extensionFields : 0))
        w.i64(shiftMs)
        if let calories { w.f64(calories) }
        if let distance { w.f64(distance) }
        if let nameBytes {
            w.u16(UInt16(nameBytes.count))
            w.append(contentsOf: nameBytes)
        }
        if hasExtension {
            let fields = extensionFields()
            w.varint(fields.count)
            w.append(contentsOf: fields)
        }
    }

    /// The extension's fields: the known ones in tag order, then the unknown ones.
    private func extensionFields() -> [UInt8] {
        typealias Field = FormatConstants.MetadataField
        var w = ByteWriter(capacity: 64)
        func field(_ tag: Field, _ value: [UInt8]) {
            w.varint(tag.rawValue)
            w.varint(value.count)
            w.append(contentsOf: value)
        }
        if let activity {
            switch activity {
            case .walk: field(.activity, [FormatConstants.ActivityCode.walk.rawValue])
            case .run: field(.activity, [FormatConstants.ActivityCode.run.rawValue])
            case .hike: field(.activity, [FormatConstants.ActivityCode.hike.rawValue])
            case .ride: field(.activity, [FormatConstants.ActivityCode.ride.rawValue])
            case .swim: field(.activity, [FormatConstants.ActivityCode.swim.rawValue])
            case .other: field(.activity, [FormatConstants.ActivityCode.other.rawValue])
            case .custom(let name): field(.activity, [FormatConstants.ActivityCode.custom.rawValue] + Array(name.utf8))
            }
        }
        if let notes { field(.notes, Array(notes.utf8)) }
        for tag in tags { field(.tag, Array(tag.utf8)) }
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            var pair = ByteWriter(capacity: key.utf8.count + value.utf8.count + 2)
            pair.varint(key.utf8.count)
            pair.append(contentsOf: Array(key.utf8))
            pair.append(contentsOf: Array(value.utf8))
            field(.value, pair.bytes)
        }
        if let uuid { field(.uuid, withUnsafeBytes(of: uuid.uuid) { Array($0) }) }
        derived.write(field)
        w.append(contentsOf: unknownFields)
        return w.bytes
    }

    /// Takes, as a replay applies a MetadataEdit of these values to a route of metadata
    /// `current`, each derived field of `current` these lack (format-spec.md, "Derived
    /// fields"), unless that would make metadata larger than the format accepts. True
    /// when it took any.
    mutating func takeDerivedFields(of current: StoredMetadata) -> Bool {
        var merged = self
        guard merged.derived.takeMissing(from: current.derived), (try? merged.checkStorable()) != nil else { return false }
        self = merged
        return true
    }

    /// Checks that these values, encoded, are metadata a reader accepts: the app's
    /// fields are checked by ``RouteValidation``, but the whole extension (with derived
    /// fields, and fields a newer writer stored that this version keeps unknown) has a
    /// limit of its own, and invalid UTF-8 read from a file comes back longer.
    /// - Throws: `.invalidArgument` naming the rule the encoded bytes would break.
    func checkStorable() throws {
        var w = ByteWriter(capacity: 256)
        write(to: &w)
        var r = ByteReader(w.bytes)
        do {
            _ = try MetadataView(from: &r)
        } catch let malformed as ByteReader.Malformed {
            throw RouteLogError.invalid("metadata: stored, it would break the format's limits (\(malformed.reason)); nothing was written")
        }
    }

    /// Reads one metadata from `r`.
    /// - Throws: ByteReader.Malformed naming the first rule broken (``MetadataView``
    ///   holds every check).
    init(from r: inout ByteReader) throws {
        self.init(try MetadataView(from: &r))
    }

    /// The values of a view. Cannot fail: a fully checked view holds nothing that
    /// does not decode, and of a layout-only one (an IndexPutRun's) a field that cannot
    /// be read is left out.
    /// `summaryOnly` leaves out what a ``RouteSummary`` does not show (notes, values,
    /// grid cells, unknown fields): for listing, which makes one for every route.
    init(_ view: MetadataView, summaryOnly: Bool = false) {
        shiftMs = view.shiftMs
        calories = view.calories
        distance = view.distance
        // Text that is not UTF-8 decodes with replacement characters: the stored bytes
        // are then kept, so that they can be written again as they are.
        var lossy = false
        func text(_ bytes: ArraySlice<UInt8>) -> String {
            if let valid = String(validating: bytes, as: UTF8.self) { return valid }
            lossy = true
            return String(decoding: bytes, as: UTF8.self)
        }
        name = view.name.map(text)
        view.forEachField { field, tag, value in
            if summaryOnly, field == nil || field == .notes || field == .value || field == .cells { return }
            switch field {
            case .activity:
                // Checked by a full view; a run's layout-only view may hold anything.
                guard let code = value.first.flatMap(FormatConstants.ActivityCode.init(rawValue:)) else { return }
                switch code {
                case .custom: activity = .custom(text(value.dropFirst()))
                case .walk: activity = .walk
                case .run: activity = .run
                case .hike: activity = .hike
                case .ride: activity = .ride
                case .swim: activity = .swim
                case .other: activity = .other
                }
            case .notes: notes = text(value)
            case .tag: tags.append(text(value))
            case .value:
                var pair = ByteReader(value)
                // Checked by the view: a key of 1...64 bytes, then the value.
                guard let keyLength = try? pair.count(max: pair.remaining), let key = try? pair.bytes(keyLength),
                      let valueText = try? pair.bytes(pair.remaining) else { return }
                values[text(key)] = text(valueText)
            case .uuid:
                guard value.count == 16 else { return }
                // Copied as 16 bytes, with no array made: listing makes one for every route.
                var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &bytes) { out in value.withUnsafeBytes { out.copyMemory(from: $0) } }
                uuid = UUID(uuid: bytes)
            case .stats, .cells, .preview:
                derived.decode(field!, value)
            case nil:
                var bytes = ByteWriter(capacity: value.count + 4)
                bytes.varint(tag)
                bytes.varint(value.count)
                bytes.append(contentsOf: value)
                unknownFields += bytes.bytes
            }
        }
        if lossy && !summaryOnly { lossyOriginal.bytes = view.storedBytes }
    }
}
