import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The route file formats RouteLog imports, told apart by their content, never by
/// their file name.
///
/// - **FIT**: the first byte is a header size of 12 or more and bytes 8..<12 are ".FIT".
/// - **GPX** and **TCX**: XML whose root element is `<gpx>` or
///   `<TrainingCenterDatabase>` (any prefix). Before the root, a byte order mark
///   (UTF-8, or UTF-16 in either order), the XML declaration, comments, processing
///   instructions and a DOCTYPE are passed over.
///
/// ```swift
/// let kind = try RouteFileKind.detect(contentsOf: url)   // .fit
/// ```
public enum RouteFileKind: String, Sendable, Equatable, Hashable, CaseIterable {
    /// GPX 1.0 or 1.1.
    case gpx
    /// Garmin's Training Center Database XML, version 2.
    case tcx
    /// The binary Flexible and Interoperable Data Transfer format.
    case fit

    /// "GPX", "TCX", "FIT".
    public var name: String { rawValue.uppercased() }

    /// How many bytes from the start of a file ``detect(_:)`` looks at.
    public static let sniffLength = 65_536

    /// The format of a file whose first bytes (up to ``sniffLength``) are `head`, or nil
    /// when they are none of RouteLog's formats.
    public static func detect(_ head: Data) -> RouteFileKind? {
        let bytes = [UInt8](head.prefix(sniffLength))
        if bytes.count >= 12, bytes[0] >= 12, Array(bytes[8..<12]) == Array(".FIT".utf8) { return .fit }
        switch rootElement(xmlText(bytes)) {
        case "gpx": return .gpx
        case "TrainingCenterDatabase": return .tcx
        default: return nil
        }
    }

    /// The format of the file at `url`, from its first bytes. The file is opened without
    /// waiting and read only when it is a regular file (a symbolic link to one is followed).
    /// - Throws: ``RouteLogError`` `.notFound` when it cannot be read, `.invalidArgument`
    ///   for a directory, a FIFO, socket or device ("not a regular file"), or content
    ///   that is none of GPX, TCX and FIT.
    public static func detect(contentsOf url: URL) throws -> RouteFileKind {
        let file = try ImportInputFile.open(url, what: "route file")
        defer { _ = close(file.descriptor) }
        let head = ImportInputFile.readHead(file.descriptor, count: sniffLength)
        guard let kind = detect(head) else {
            throw RouteLogError(.invalidArgument, unknownMessage(head), path: url.path)
        }
        return kind
    }

    /// Why `head` is refused: "empty", or what it starts with.
    static func unknownMessage(_ head: Data) -> String {
        if head.isEmpty { return "The file is empty; nothing was imported" }
        return "Not a GPX, TCX or FIT file: it starts with neither a FIT header nor XML whose root is <gpx> or "
            + "<TrainingCenterDatabase>; nothing was imported"
    }

    /// The start of the file as text: UTF-16 when a byte order mark or the pattern of
    /// "<?" in UTF-16 says so, else UTF-8 (invalid bytes become U+FFFD).
    private static func xmlText(_ bytes: [UInt8]) -> Substring {
        func utf16(_ littleEndian: Bool, from start: Int) -> Substring {
            var units: [UInt16] = []
            units.reserveCapacity((bytes.count - start) / 2)
            var i = start
            while i + 1 < bytes.count {
                units.append(littleEndian ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8
                                          : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
                i += 2
            }
            return Substring(String(decoding: units, as: UTF16.self))
        }
        if bytes.starts(with: [0xFF, 0xFE]) { return utf16(true, from: 2) }
        if bytes.starts(with: [0xFE, 0xFF]) { return utf16(false, from: 2) }
        if bytes.starts(with: [0x3C, 0x00]) { return utf16(true, from: 0) }
        if bytes.starts(with: [0x00, 0x3C]) { return utf16(false, from: 0) }
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return Substring(String(decoding: bytes[start...], as: UTF8.self))
    }

    /// The local name of the first element, passing over what XML allows before it;
    /// nil when the text ends first or holds something else.
    static func rootElement(_ text: Substring) -> String? {
        var rest = text
        while true {
            // Character, not byte: "\r\n" is one Character, so isWhitespace and not == "\n".
            rest = rest.drop { $0.isWhitespace }
            guard rest.hasPrefix("<") else { return nil }
            if rest.hasPrefix("<?") {
                guard let end = rest.range(of: "?>") else { return nil }
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<!--") {
                guard let end = rest.range(of: "-->") else { return nil }
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<!DOCTYPE") {
                // An internal subset in brackets may hold '>' of its own. Every search
                // starts where the last ended, so many DOCTYPEs still cost one pass.
                guard var close = rest.firstIndex(of: ">") else { return nil }
                if let open = rest[..<close].firstIndex(of: "[") {
                    guard let end = rest[open...].firstIndex(of: "]"),
                          let after = rest[end...].firstIndex(of: ">") else { return nil }
                    close = after
                }
                rest = rest[rest.index(after: close)...]
            } else {
                let name = rest.dropFirst().prefix { !$0.isWhitespace && $0 != "/" && $0 != ">" }
                guard !name.isEmpty else { return nil }
                return String(name.split(separator: ":", omittingEmptySubsequences: false).last ?? name)
            }
        }
    }
}
