/// Text from a store or a file (route names, file names, messages quoting a file's
/// content) made safe to print on a terminal, the way git quotes odd paths.
///
/// A name is data, and data can hold characters a terminal obeys: CR and LF break a
/// table's rows, ESC and the C1 control CSI (U+009B) start escape sequences that move
/// the cursor, recolour or retitle the window, and the bidi controls (U+202E and
/// friends) make text read in an order other than the one stored. Human output passes
/// every such value through ``quoted(_:)``; JSON output has its own escaping.
enum TerminalText {
    /// `text` as it is when it holds nothing a terminal would act on (and does not
    /// begin with a double quote); otherwise in double quotes, with `\"`, `\\`, `\t`,
    /// `\n`, `\r` and `\u{XX}` escapes: `"Walk\r\nHome"`, `"\u{1B}[31mred"`.
    ///
    /// A quoted value always begins with `"` and a raw one never does, so a name that
    /// looks like an escaped one can never pass for it.
    static func quoted(_ text: String) -> String {
        guard text.first == "\"" || text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default:
                if needsEscape(scalar) {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Control characters (C0, DEL, C1), the bidi controls and the Unicode line and
    /// paragraph separators.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        case 0x2028, 0x2029: return true
        default: return false
        }
    }
}
