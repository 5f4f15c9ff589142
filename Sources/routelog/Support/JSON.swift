import Foundation

/// A JSON value whose objects keep their keys in the order written, so that `--json`
/// output reads in the order the README documents and never changes between runs.
indirect enum JSON: Sendable, Equatable {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    case number(Double)
    case integer(Int64)
    case bool(Bool)
    case null

    static func == (lhs: JSON, rhs: JSON) -> Bool { lhs.rendered() == rhs.rendered() }

    /// Wraps an optional: nil becomes `null`.
    static func number(_ value: Double?) -> JSON { value.map { .number($0) } ?? .null }
    static func string(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
    static func integer<I: BinaryInteger>(_ value: I?) -> JSON { value.map { .integer(Int64($0)) } ?? .null }

    /// A number rounded to `digits` decimals, so that derived values (distances,
    /// speeds) print the same on every platform.
    static func rounded(_ value: Double, _ digits: Int) -> JSON {
        let scale = pow(10, Double(digits))
        return .number((value * scale).rounded() / scale)
    }

    private var isScalar: Bool {
        switch self {
        case .object(let members): return members.isEmpty
        case .array(let elements): return elements.isEmpty
        default: return true
        }
    }

    /// Pretty-printed with two-space indents; an object or array holding only scalars
    /// stays on one line (a point, a split, a bounding box).
    func rendered(indent: String = "") -> String {
        switch self {
        case .object(let members):
            if members.isEmpty { return "{}" }
            if members.allSatisfy({ $0.1.isScalar }) {
                return "{" + members.map { "\(Self.quoted($0.0)): \($0.1.rendered())" }.joined(separator: ", ") + "}"
            }
            let inner = indent + "  "
            return "{\n" + members.map { "\(inner)\(Self.quoted($0.0)): \($0.1.rendered(indent: inner))" }
                .joined(separator: ",\n") + "\n\(indent)}"
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            if elements.allSatisfy(\.isScalar) {
                return "[" + elements.map { $0.rendered() }.joined(separator: ", ") + "]"
            }
            let inner = indent + "  "
            return "[\n" + elements.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .string(let text): return Self.quoted(text)
        case .number(let value):
            guard value.isFinite else { return "null" }
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return "\(value)"
        case .integer(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
