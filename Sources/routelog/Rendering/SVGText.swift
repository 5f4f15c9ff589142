import Foundation

/// Numbers and text as the pictures write them.
enum SVGText {
    /// A coordinate to a tenth of a pixel.
    static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Text safe inside an element or a double-quoted attribute; control characters
    /// (which XML forbids) are dropped.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case _ where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value): continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The font stack of every picture: whatever sans-serif the viewer has.
    static let font = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', 'DejaVu Sans', Arial, sans-serif"

    /// A width for `text` at `size` pixels, generous enough for the widest common sans
    /// fonts (DejaVu Sans is among the widest), so that boxes made from it hold the text.
    static func width(_ text: String, size: Double, bold: Bool = false) -> Double {
        Double(text.count) * size * (bold ? 0.68 : 0.62)
    }

    /// The largest 1, 2 or 5 times a power of ten that is at most `value`.
    static func niceBelow(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        let power = pow(10, floor(log10(value)))
        return [5.0, 2, 1].map { $0 * power }.first { $0 <= value * (1 + 1e-9) } ?? power
    }

    /// The smallest 1, 2 or 5 times a power of ten that is at least `value`.
    static func niceAbove(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        let power = pow(10, floor(log10(value)))
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= value * (1 - 1e-9) } ?? 10 * power
    }

    /// `12`, `2.5`, `0.25`: no trailing zeros.
    static func trimmed(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%g", value)
    }
}

/// A rectangle on a picture, for keeping labels off each other and off the marks.
struct Box: Equatable {
    var minX, minY, maxX, maxY: Double

    init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }

    /// The box of half-size `half` around a point.
    init(around p: (x: Double, y: Double), half: Double) {
        self.init(minX: p.x - half, minY: p.y - half, maxX: p.x + half, maxY: p.y + half)
    }

    /// Whether the two share any area once each is grown by `gap` pixels.
    func overlaps(_ other: Box, gap: Double = 0) -> Bool {
        minX - gap < other.maxX && other.minX - gap < maxX && minY - gap < other.maxY && other.minY - gap < maxY
    }

    /// Whether the box lies inside `other`.
    func isInside(_ other: Box) -> Bool {
        minX >= other.minX && maxX <= other.maxX && minY >= other.minY && maxY <= other.maxY
    }
}
