/// Escaping for the text formats RouteLog writes.
enum TextEscaping {
    /// Text safe inside an XML element or a double-quoted attribute, that an XML parser
    /// reads back exactly as it was.
    ///
    /// A parser changes some characters even in escaped text: CR and CR LF become LF
    /// (end-of-line handling), and in attributes tab, CR and LF become spaces; XML 1.1
    /// also turns NEL (U+0085) and U+2028 into line ends. So tab, LF and CR, the C1
    /// controls with DEL (U+007F...U+009F) and U+2028 are written as character
    /// references, which a parser returns as they are. Characters XML 1.0 cannot carry
    /// at all, even as references (the C0 controls other than tab, LF and CR; U+FFFE
    /// and U+FFFF), are dropped.
    static func xml(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r", "\u{7F}"..."\u{9F}", "\u{2028}":
                out += "&#x" + String(scalar.value, radix: 16, uppercase: true) + ";"
            default:
                if scalar.value >= 0x20, scalar.value != 0xFFFE, scalar.value != 0xFFFF {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A JSON string literal, quotes included (RFC 8259).
    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
