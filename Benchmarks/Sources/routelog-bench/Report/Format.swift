import Foundation

/// Numbers as people read them: durations in the unit that suits them.
enum Format {
    static func seconds(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "-" }
        switch value {
        case ..<1e-3: return "\(decimal(value * 1e6, value < 1e-4 ? 1 : 0)) µs"
        case ..<1: return "\(decimal(value * 1e3, value < 1e-2 ? 2 : value < 0.1 ? 1 : 0)) ms"
        default: return "\(decimal(value, 2)) s"
        }
    }

    /// Milliseconds with sensible precision, for tables and CSV headers in ms.
    static func ms(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "-" }
        let ms = value * 1e3
        return decimal(ms, ms < 1 ? 3 : ms < 10 ? 2 : ms < 100 ? 1 : 0)
    }

    static func decimal(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "-" }
        return String(format: "%.\(digits)f", value)
    }

    static func count(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0, i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return String(out.reversed())
    }

    static func megabytes(_ bytes: Int64) -> String { decimal(Double(bytes) / 1_048_576, 0) }
}
