import Foundation

/// An NSKeyedArchiver archive read as plain data: the property list's `$objects`
/// graph, followed by UID, without instantiating any archived class. This is how
/// RouteLog reads archives of classes it does not have (the old app's route class,
/// CoreLocation's CLLocation), on any platform.
///
/// Keyed archives store every object once in `$objects`; a reference is a UID (an index
/// into `$objects`); each object dictionary names its class through `$class`, a UID of
/// a `{"$classname", "$classes"}` entry. Numbers and strings are stored directly.
///
/// The binary property list is read in place (``BinaryPropertyList``): an object is
/// decoded when it is followed, and a value here is the index of a property-list
/// object. XML archives are converted to binary first, and only up to
/// ``xmlArchiveBytes`` (Foundation builds their whole graph to convert them).
struct KeyedArchive {
    let plist: BinaryPropertyList
    private let objects: BinaryPropertyList.References
    private let top: ArchivedObject
    private let keyNames = KeyNames()
    private let work: Work

    /// Key strings already decoded, by object: an archive writes each key once and
    /// every location refers to it, so a million locations decode nine strings.
    final class KeyNames {
        var names: [Int: String] = [:]
    }

    /// What decoding may still cost, in dictionary entries read and bytes of text
    /// decoded: ``workPerByte`` for each byte of the file, and ``workFloor`` more. An
    /// object is decoded again each time it is referred to, and a reference takes a
    /// few bytes, so without a bound a location of 256 keys referred to a million times
    /// (a 4 MB file) cost 256 million entries read, a minute. An archive NSKeyedArchiver
    /// wrote refers to each location once or a few times, and decodes below one unit a
    /// byte (two when every location is one object repeated).
    final class Work {
        var left: Int
        init(fileBytes: Int) { left = KeyedArchive.workFloor + KeyedArchive.workPerByte * fileBytes }
    }

    /// Dictionary entries and bytes of text decoded for each byte of the archive.
    static let workPerByte = 8
    /// Entries and bytes every archive may decode, however small.
    static let workFloor = 1 << 20

    /// XML archives larger than this are refused (8 MiB).
    static let xmlArchiveBytes = 8 << 20
    /// Keys of an archived object: more is not a route, a location or a collection.
    static let objectKeys = 256

    /// The key/value references of one archived object (a dictionary in `$objects`).
    struct ArchivedObject {
        var keys: [String]
        var values: [Int]
        subscript(key: String) -> Int? { keys.firstIndex(of: key).map { values[$0] } }
    }

    /// Parses a binary keyed archive (or an XML one, converted first).
    /// - Throws: `.invalidArgument` when the bytes are not a property list or not a keyed archive.
    init(_ bytes: MappedBytes, source: String) throws {
        let notArchive = RouteLogError(.invalidArgument, "not a property list, so not an NSKeyedArchiver archive; "
                                           + "give the file the old app archived its routes into", path: source)
        var file = bytes
        if !bytes.bytes.starts(with: Array("bplist".utf8)) {
            guard bytes.bytes.count <= Self.xmlArchiveBytes else {
                throw RouteLogError(.invalidArgument, "not a binary property list, and larger than an XML archive "
                                        + "RouteLog converts (\(Self.xmlArchiveBytes >> 20) MiB); convert it to binary "
                                        + "first (plutil -convert binary1 FILE)", path: source)
            }
            let data = Data(bytes.bytes)
            guard let graph = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
                  let binary = try? PropertyListSerialization.data(fromPropertyList: graph, format: .binary, options: 0)
            else { throw notArchive }
            file = MappedBytes(copying: binary)
        }
        do {
            plist = try BinaryPropertyList(file, source: source)
        } catch { throw notArchive }
        let work = Work(fileBytes: file.bytes.count)
        self.work = work
        let noArchive = RouteLogError(.invalidArgument, "a property list, but not an NSKeyedArchiver archive "
                                          + "(no $objects or $top); give the file the old app archived its routes into",
                                      path: source)
        guard let root = try Self.dictionary(plist, plist.topObject, source: source, names: keyNames, work: work),
              let objectsRef = root["$objects"], case .array(let objects) = try plist.object(objectsRef),
              let topRef = root["$top"], let top = try Self.dictionary(plist, topRef, source: source, names: keyNames, work: work)
        else { throw noArchive }
        self.objects = objects
        self.top = top
    }

    /// Takes `units` of decoding from the archive's ``Work`` for the object at `index`.
    /// - Throws: `.invalidArgument` naming the object's offset once the work runs out.
    private static func charge(_ units: Int, _ work: Work, _ plist: BinaryPropertyList, object index: Int) throws {
        work.left -= units
        guard work.left < 0 else { return }
        throw RouteLogError(.invalidArgument, "archive refused: its objects are referred to more often than an archive of "
                                + "\(plist.file.bytes.count) bytes needs (more than \(workPerByte) dictionary entries and "
                                + "bytes of text decoded a byte); this is not the old app's archive; nothing was migrated",
                            path: plist.source, offset: plist.offset(of: index).map(Int64.init))
    }

    private func charge(_ units: Int, object index: Int) throws { try Self.charge(units, work, plist, object: index) }

    /// The keys and value references of property-list object `index`, if it is a dictionary.
    private static func dictionary(_ plist: BinaryPropertyList, _ index: Int, source: String,
                                   names: KeyNames, work: Work) throws -> ArchivedObject? {
        guard case .dictionary(let keys, let values) = try plist.object(index) else { return nil }
        guard keys.count <= objectKeys else {
            throw RouteLogError(.invalidArgument, "an archived object with \(keys.count) keys, more than any route or "
                                    + "location has (\(objectKeys)); this is not the old app's archive", path: source)
        }
        try charge(keys.count, work, plist, object: index)
        var object = ArchivedObject(keys: [], values: [])
        object.keys.reserveCapacity(keys.count)
        object.values.reserveCapacity(keys.count)
        for i in 0..<keys.count {
            let key = try plist.reference(keys, i)
            if let name = names.names[key] {
                object.keys.append(name)
            } else {
                guard case .string(let range, let encoding) = try plist.object(key) else { continue }
                let name = range.count <= 256 ? plist.text(range, encoding) : ""
                try charge(name.utf8.count, work, plist, object: key)
                // Bounded, whatever the file: past 4,096 distinct keys, decode each time.
                if names.names.count < 4096 { names.names[key] = name }
                object.keys.append(name)
            }
            object.values.append(try plist.reference(values, i))
        }
        return object
    }

    /// The archive's root object (`$top.root`, or the only entry of `$top`).
    func root() throws -> Int? {
        if let value = top["root"] { return try resolve(value) }
        return top.keys.count == 1 ? try resolve(top.values[0]) : nil
    }

    /// `value`, with a UID followed to its object in `$objects`; nil for `$null` or a
    /// UID past the end.
    func resolve(_ value: Int) throws -> Int? {
        let index: Int
        switch try plist.object(value) {
        case .uid(let uid):
            index = uid
        case .dictionary(let keys, let values) where keys.count == 1:
            // An XML archive's UID, if the conversion kept it a `{"CF$UID": N}` dictionary.
            guard case .string(let range, let encoding) = try plist.object(plist.reference(keys, 0)),
                  plist.text(range, encoding, equals: Array("CF$UID".utf8)),
                  case .integer(let uid) = try plist.object(plist.reference(values, 0)), uid >= 0 else { return value }
            index = Int(uid)
        default:
            return value
        }
        guard index < objects.count else { return nil }
        let target = try plist.reference(objects, index)
        if case .string(let range, let encoding) = try plist.object(target),
           plist.text(range, encoding, equals: Array("$null".utf8)) { return nil }
        return target
    }

    /// The archived object `value` resolves to, if it is a dictionary.
    func object(_ value: Int?) throws -> ArchivedObject? {
        guard let value, let resolved = try resolve(value) else { return nil }
        return try Self.dictionary(plist, resolved, source: plist.source, names: keyNames, work: work)
    }

    /// The class name of an archived object ("NSMutableArray", "CLLocation").
    func className(of object: ArchivedObject) throws -> String? {
        guard let entry = try self.object(object["$class"]), let name = entry["$classname"] else { return nil }
        return try string(name)
    }

    /// The element references of an archived NSArray/NSMutableArray/NSSet (`NS.objects`),
    /// unresolved (each may be a UID), or nil.
    func array(_ value: Int?) throws -> BinaryPropertyList.References? {
        guard let object = try object(value), let elements = object["NS.objects"],
              case .array(let references) = try plist.object(elements) else { return nil }
        return references
    }

    /// Element `index` of an array, resolved.
    func element(_ references: BinaryPropertyList.References, _ index: Int) throws -> Int? {
        try resolve(plist.reference(references, index))
    }

    /// A number stored inline or as an archived NSNumber, or decimal text (``XSDNumber``).
    func number(_ value: Int?) throws -> Double? {
        guard let value, let resolved = try resolve(value) else { return nil }
        switch try plist.object(resolved) {
        case .integer(let n): return Double(n)
        case .real(let n): return n
        case .bool(let b): return b ? 1 : 0
        case .string(let range, let encoding):
            guard range.count <= 256 else { return nil }
            try charge(range.count, object: resolved)
            return XSDNumber.parse(plist.text(range, encoding))
        default: return nil
        }
    }

    /// A string stored inline or as an archived NSString (`NS.string`, `NS.bytes`).
    func string(_ value: Int?) throws -> String? {
        guard let value, let resolved = try resolve(value) else { return nil }
        switch try plist.object(resolved) {
        case .string(let range, let encoding):
            try charge(range.count, object: resolved)
            return plist.text(range, encoding)
        case .dictionary:
            guard let object = try self.object(resolved) else { return nil }
            if let text = object["NS.string"], case .string(let range, let encoding) = try plist.object(text) {
                try charge(range.count, object: text)
                return plist.text(range, encoding)
            }
            if let data = object["NS.bytes"], case .data(let range) = try plist.object(data) {
                try charge(range.count, object: data)
                return String(decoding: UnsafeRawBufferPointer(rebasing: plist.file.bytes[range]), as: UTF8.self)
            }
            return nil
        default:
            return nil
        }
    }

    /// A date: an archived NSDate (`NS.time`, seconds since 2001), or a bare number of
    /// seconds since 2001 (how CLLocation archives its timestamp).
    func date(_ value: Int?) throws -> Date? {
        guard let value, let resolved = try resolve(value) else { return nil }
        let object = try plist.object(resolved)
        if case .date(let seconds) = object { return Date(timeIntervalSinceReferenceDate: seconds) }
        if case .dictionary = object, let archived = try self.object(resolved), let time = archived["NS.time"] {
            return try number(time).map { Date(timeIntervalSinceReferenceDate: $0) }
        }
        return try number(resolved).map { Date(timeIntervalSinceReferenceDate: $0) }
    }
}
