import Foundation

/// One ```swift block of the README, with what the `<!-- example... -->` comments just
/// before it say about it.
struct ReadmeExample: Equatable {
    /// How the test build treats a block.
    enum Treatment: Equatable {
        /// Compiled and run against a scratch folder.
        case run
        /// Compiled, never run (`<!-- example: compile-only -->`).
        case compileOnly
        /// Compiled only where CoreLocation exists (`<!-- example: apple-only -->`).
        case appleOnly
        /// Not compiled, for the reason given (`<!-- example: skip, REASON -->`).
        case skip(reason: String)
    }

    /// 1 for the README's first ```swift block, and so on.
    var number: Int
    /// The 1-based README line of the opening fence (for error messages only: the
    /// generated file leaves line numbers out, so that prose edits above a block do not
    /// change it).
    var line: Int
    /// The title of the heading the block is under.
    var section: String
    /// The code of `<!-- example-context: ... -->`, placed before the block.
    var context: String?
    var treatment: Treatment
    /// The block's lines, without the fences and the fence's indentation.
    var code: [String]
}

/// A README that the extractor cannot read: names the line and what is wrong.
struct ReadmeExampleError: Error, CustomStringConvertible {
    var line: Int
    var message: String
    var description: String { "line \(line): \(message)" }
}

/// Finds the README's ```swift blocks and the directives before them.
///
/// A directive is a whole line `<!-- example-context: CODE -->` or `<!-- example: WORD -->`
/// (WORD is `compile-only`, `apple-only` or `skip, REASON`); the directives of a block are
/// the lines right before its opening fence. A directive anywhere else is an error, so
/// that a context never silently goes missing.
enum ReadmeExampleBlocks {
    static let contextPrefix = "<!-- example-context:"
    static let directivePrefix = "<!-- example:"
    static let commentEnd = "-->"

    /// Every ```swift block of `readme`, in order.
    /// - Throws: `ReadmeExampleError` for an unterminated block, an unknown directive, or
    ///   a directive not followed by a ```swift block.
    static func parse(_ readme: String) throws -> [ReadmeExample] {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var examples: [ReadmeExample] = []
        var section = ""
        var pending: (line: Int, context: String?, treatment: ReadmeExample.Treatment?)?
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let indent = line.prefix { $0 == " " }.count
            if trimmed.hasPrefix("```") {
                let ticks = trimmed.prefix { $0 == "`" }.count
                let language = trimmed.dropFirst(ticks).trimmingCharacters(in: .whitespaces)
                guard let close = lines[(index + 1)...].firstIndex(where: { isClosingFence($0, ticks: ticks) }) else {
                    throw ReadmeExampleError(line: index + 1, message: "a code block that is never closed")
                }
                if language == "swift" {
                    let code = lines[(index + 1)..<close].map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
                    examples.append(ReadmeExample(number: examples.count + 1, line: index + 1, section: section,
                                                  context: pending?.context, treatment: pending?.treatment ?? .run, code: code))
                } else if let pending {
                    throw ReadmeExampleError(line: pending.line, message: "an example directive before a ```\(language) block, not a ```swift one")
                }
                pending = nil
                index = close + 1
                continue
            }
            if trimmed.hasPrefix(contextPrefix) || trimmed.hasPrefix(directivePrefix) {
                var directive = pending ?? (line: index + 1, context: nil, treatment: nil)
                try read(trimmed, line: index + 1, into: &directive)
                pending = directive
            } else if let pending {
                throw ReadmeExampleError(line: pending.line, message: "an example directive that is not right before a ```swift block")
            } else if trimmed.hasPrefix("#") {
                section = String(trimmed.drop { $0 == "#" }).trimmingCharacters(in: .whitespaces)
            }
            index += 1
        }
        if let pending {
            throw ReadmeExampleError(line: pending.line, message: "an example directive at the end of the file")
        }
        return examples
    }

    static func isClosingFence(_ line: String, ticks: Int) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.count >= ticks && trimmed.allSatisfy { $0 == "`" }
    }

    static func read(_ comment: String, line: Int,
                     into directive: inout (line: Int, context: String?, treatment: ReadmeExample.Treatment?)) throws {
        guard comment.hasSuffix(commentEnd) else {
            throw ReadmeExampleError(line: line, message: "an example directive must be one line ending in -->")
        }
        let isContext = comment.hasPrefix(contextPrefix)
        let body = comment.dropFirst(isContext ? contextPrefix.count : directivePrefix.count)
            .dropLast(commentEnd.count).trimmingCharacters(in: .whitespaces)
        if isContext {
            guard directive.context == nil, !body.isEmpty else {
                throw ReadmeExampleError(line: line, message: "a block takes one example-context, not empty")
            }
            directive.context = body
            return
        }
        guard directive.treatment == nil else {
            throw ReadmeExampleError(line: line, message: "a block takes one `<!-- example: ... -->` directive")
        }
        switch body {
        case "compile-only": directive.treatment = .compileOnly
        case "apple-only": directive.treatment = .appleOnly
        default:
            guard body.hasPrefix("skip,"), case let reason = body.dropFirst(5).trimmingCharacters(in: .whitespaces), !reason.isEmpty else {
                throw ReadmeExampleError(line: line, message: "unknown directive `\(body)`: say compile-only, apple-only or skip, REASON")
            }
            directive.treatment = .skip(reason: reason)
        }
    }
}
