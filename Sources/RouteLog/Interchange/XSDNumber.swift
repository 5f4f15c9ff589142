/// Numbers written the way XML Schema writes them, and nothing else.
///
/// GPX 1.1 declares its coordinates, elevation and course `xsd:decimal`; the extensions
/// RouteLog reads declare theirs `xsd:double` or integer types. Real writers put
/// exponents in coordinates too (JPX writes `lon="-9.0E-4"`), so every number is read
/// in one grammar, the finite part of `xsd:double`'s lexical space, which holds
/// `xsd:decimal`'s and the integers':
///
/// ```
/// number := [+-]? (digits ("." digits?)? | "." digits) ([eE] [+-]? digits)?
/// ```
///
/// with XML white space (space, tab, CR, LF) allowed around it, as the types'
/// `whiteSpace="collapse"` facet says. Swift's `Double(_:)` reads more than that
/// (`0x1p4`, `inf`, `nan`), so the text is checked against the grammar first.
/// `INF`, `-INF` and `NaN` are `xsd:double` values, but not ones RouteLog can store:
/// they are refused like any other text.
enum XSDNumber {
    /// The value of `text`, or nil when it is not a finite number in the grammar.
    static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { bytes -> Double? in
            func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
            func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
            var start = 0, end = bytes.count
            while start < end, isSpace(bytes[start]) { start += 1 }
            while end > start, isSpace(bytes[end - 1]) { end -= 1 }
            var i = start
            if i < end, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
            let integerStart = i
            while i < end, isDigit(bytes[i]) { i += 1 }
            var digits = i - integerStart
            if i < end, bytes[i] == 0x2E {
                i += 1
                let fractionStart = i
                while i < end, isDigit(bytes[i]) { i += 1 }
                digits += i - fractionStart
            }
            guard digits > 0 else { return nil }
            if i < end, bytes[i] == 0x65 || bytes[i] == 0x45 {
                i += 1
                if i < end, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
                let exponentStart = i
                while i < end, isDigit(bytes[i]) { i += 1 }
                guard i > exponentStart else { return nil }
            }
            guard i == end else { return nil }
            // The grammar is a subset of what Double(_:) reads, and Double(_:) rounds
            // correctly; a huge exponent gives infinity, which is refused.
            let number = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            guard let value = Double(number), value.isFinite else { return nil }
            return value
        }
    }
}
