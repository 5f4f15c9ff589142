import Foundation

/// An NSKeyedArchiver archive read as plain data: the property list's `$objects`
/// graph, followed by UID, without instantiating any archived class. This is how
/// RouteLog reads archives of classes it does not have (the old app's route class,
/// CoreLocation's CLLocation), on any platform.
///
/// Keyed archives store every object once in `$objects`; a reference is a UID (an index
/// into `$objects`); each object dictionary names its class through `$class`, a UID of
/// a `{"$classname", "$classes"}` entry. Numbers and strings are stored directly.
struct KeyedArchive {
    private let objects: [Any]
    private let top: [String: Any]

    /// Parses a binary or XML keyed archive.
    /// - Throws: `.invalidArgument` when the bytes are not a property list or not a keyed archive.
    init(data: Data, source: String) throws {
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw RouteLogError(.invalidArgument,
                                "not a property list, so not an NSKeyedArchiver archive; "
                                    + "give the file the old app archived its routes into", path: source)
        }
        guard let root = plist as? [String: Any], let objects = root["$objects"] as? [Any],
              let top = root["$top"] as? [String: Any] else {
            throw RouteLogError(.invalidArgument, "a property list, but not an NSKeyedArchiver archive "
                                    + "(no $objects or $top); give the file the old app archived its routes into",
                                path: source)
        }
        self.objects = objects
        self.top = top
    }

    /// The archive's root object (`$top.root`, or the only entry of `$top`).
    var root: Any? {
        if let value = top["root"] { return resolve(value) }
        return top.count == 1 ? top.first.flatMap { resolve($0.value) } : nil
    }

    /// The index a UID holds. Foundation on Linux gives `_NSKeyedArchiverUID` objects
    /// (a stored `value`), Apple platforms a CF type whose description holds
    /// `value = N`, and XML archives a `{"CF$UID": N}` dictionary.
    static func uid(_ value: Any) -> Int? {
        if let dict = value as? [String: Any], dict.count == 1, let n = dict["CF$UID"] as? Int { return n }
        if value is String || value is NSNumber || value is [Any] || value is [String: Any] || value is Data {
            return nil
        }
        let typeName = String(describing: type(of: value))
        guard typeName.contains("KeyedArchiverUID") else { return nil }
        for child in Mirror(reflecting: value).children where child.label == "value" {
            if let n = child.value as? UInt32 { return Int(n) }
            if let n = child.value as? UInt64 { return Int(n) }
            if let n = child.value as? Int { return n }
        }
        let text = String(describing: value)
        if let range = text.range(of: "value = ") {
            return Int(text[range.upperBound...].prefix { $0.isNumber })
        }
        return nil
    }

    /// `value`, with a UID followed to its object; `nil` for `$null` or a bad UID.
    func resolve(_ value: Any) -> Any? {
        guard let index = Self.uid(value) else { return value }
        guard objects.indices.contains(index) else { return nil }
        let object = objects[index]
        if let text = object as? String, text == "$null" { return nil }
        return object
    }

    /// The object stored under `key` in an archived object, resolved.
    func value(_ object: [String: Any], _ key: String) -> Any? {
        object[key].flatMap(resolve)
    }

    /// The class name of an archived object ("NSMutableArray", "CLLocation").
    func className(of object: [String: Any]) -> String? {
        guard let ref = object["$class"], let entry = resolve(ref) as? [String: Any] else { return nil }
        return entry["$classname"] as? String
    }

    /// The elements of an archived NSArray/NSMutableArray/NSSet (resolved), or nil.
    func array(_ value: Any?) -> [Any]? {
        guard let object = value.flatMap(resolve) as? [String: Any],
              let elements = object["NS.objects"] as? [Any] else { return nil }
        return elements.compactMap(resolve)
    }

    /// A number stored inline or as an archived NSNumber.
    func number(_ value: Any?) -> Double? {
        guard let resolved = value.flatMap(resolve) else { return nil }
        if let n = resolved as? NSNumber { return n.doubleValue }
        if let n = resolved as? Double { return n }
        if let n = resolved as? Int { return Double(n) }
        if let text = string(resolved) { return Double(text.trimmingCharacters(in: .whitespaces)) }
        return nil
    }

    /// A string stored inline or as an archived NSString (`NS.string`).
    func string(_ value: Any?) -> String? {
        guard let resolved = value.flatMap(resolve) else { return nil }
        if let text = resolved as? String { return text }
        if let object = resolved as? [String: Any] {
            if let text = object["NS.string"] as? String { return text }
            if let bytes = object["NS.bytes"] as? Data { return String(data: bytes, encoding: .utf8) }
        }
        return nil
    }

    /// A date: an archived NSDate (`NS.time`, seconds since 2001), or a bare number of
    /// seconds since 2001 (how CLLocation archives its timestamp).
    func date(_ value: Any?) -> Date? {
        guard let resolved = value.flatMap(resolve) else { return nil }
        if let object = resolved as? [String: Any], let seconds = number(object["NS.time"]) {
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        if let seconds = number(resolved) { return Date(timeIntervalSinceReferenceDate: seconds) }
        return nil
    }
}
