import Foundation

/// Writes the Swift file that holds the README's examples, one function each.
///
/// The code is the README's, with three mechanical changes so that it compiles in a
/// function without warnings: `import` lines move to the top of the file, a line that
/// only names a value (`s.stats?.movingTime  // seconds moving`) is assigned to `_`, and
/// each name a line declares and no later line names (and each `var`) is read once
/// (`_ = name`) when its statement ends.
enum ReadmeExampleSource {
    /// Where the generated file lives, from the package root.
    static let outputPath = "Tests/ReadmeExamples/ReadmeExamples.swift"
    static let regenerate = "ROUTELOG_UPDATE_GOLDEN=1 swift test --filter ReadmeExamples (or swift run readme-examples)"

    /// The generated file for `readme`.
    /// - Throws: `ReadmeExampleError` when the README's directives cannot be read.
    static func generate(readme: String) throws -> String {
        let examples = try ReadmeExampleBlocks.parse(readme)
        var imports: Set<String> = ["Foundation", "RouteLog"]
        for example in examples where example.treatment != .appleOnly {
            if case .skip = example.treatment { continue }
            imports.formUnion(hoistedImports(example.code))
        }
        var out = """
            // Generated from README.md by `swift run readme-examples`: do not edit. After
            // changing a ```swift block of the README or the comments before it, run
            // \(regenerate).
            //
            // Each ```swift block is the body of one function, after the context its
            // `<!-- example-context: ... -->` comment gives. The code is the README's, except that
            // imports move to the top, a line that only names a value is assigned to `_`, and
            // each name declared and not used later (and each var) is read once (`_ = name`),
            // so that it compiles without warnings.

            """
        let skipped = examples.compactMap { example -> String? in
            guard case .skip(let reason) = example.treatment else { return nil }
            return "// - readmeExample\(example.number) (\(example.section)): \(reason)"
        }
        if !skipped.isEmpty {
            out += "//\n// Not compiled:\n" + skipped.joined(separator: "\n") + "\n"
        }
        out += "\n" + imports.sorted().map { "import \($0)\n" }.joined()
        for example in examples {
            if case .skip = example.treatment { continue }
            out += "\n" + function(example)
        }
        out += """

            /// The examples ReadmeExamplesRunTests runs; the others are only compiled.
            let readmeExamplesToRun: [RunnableReadmeExample] = [

            """
        for example in examples where example.treatment == .run {
            out += "    RunnableReadmeExample(number: \(example.number), section: \(literal(example.section)), run: readmeExample\(example.number)),\n"
        }
        return out + "]\n"
    }

    static func function(_ example: ReadmeExample) -> String {
        var text = example.section.isEmpty ? "" : "// \(example.section)\n"
        if example.treatment == .appleOnly {
            text = "#if canImport(CoreLocation)\n" + hoistedImports(example.code).sorted().map { "import \($0)\n" }.joined() + text
        }
        text += "func readmeExample\(example.number)() async throws {\n"
        if let context = example.context {
            text += "    \(context)\n"
        }
        for line in body(example.code) {
            text += line.isEmpty ? "\n" : "    \(line)\n"
        }
        text += "}\n"
        return example.treatment == .appleOnly ? text + "#endif\n" : text
    }

    static func hoistedImports(_ code: [String]) -> Set<String> {
        Set(code.compactMap { line in
            let words = line.split(separator: " ")
            return words.count == 2 && words[0] == "import" ? String(words[1]) : nil
        })
    }

    /// The block's lines with the changes the type's comment lists.
    static func body(_ code: [String]) -> [String] {
        var out: [String] = []
        var open: [Character] = []  // the brackets open at the start of the current line
        var declared: [(name: String, indent: Substring, depth: Int)] = []
        for (index, line) in code.enumerated() where hoistedImports([line]).isEmpty {
            let statement = codePart(line)
            let trimmed = statement.trimmingCharacters(in: .whitespaces)
            let indent = line.prefix { $0 == " " }
            let startsStatement = open.last.map { $0 == "{" } ?? true
            if startsStatement && trimmed.wholeMatch(of: valueOnly) != nil {
                out.append(indent + "_ = " + line.dropFirst(indent.count))
            } else {
                out.append(line)
            }
            if startsStatement, let match = trimmed.firstMatch(of: declaration),
               match.1 == "var" || !isMentioned(String(match.2), in: code.dropFirst(index + 1)) {
                declared.append((String(match.2), indent, open.count))
            }
            for character in statement {
                switch character {
                case "(", "[", "{": open.append(character)
                case ")", "]", "}": _ = open.popLast()
                default: break
                }
            }
            let next = code.dropFirst(index + 1).first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            let continues = next?.trimmingCharacters(in: .whitespaces).hasPrefix(".") ?? false
            while let last = declared.last, open.count <= last.depth, !continues {
                out.append(last.indent + "_ = " + last.name)
                declared.removeLast()
            }
        }
        return out
    }

    /// `name.member?.member`: a line that shows a value and does nothing with it.
    nonisolated(unsafe) static let valueOnly = /[A-Za-z_][A-Za-z0-9_]*([?!]?\.[A-Za-z_][A-Za-z0-9_]*)+[?!]?/
    /// `let name =` or `var name:` at the start of a statement.
    nonisolated(unsafe) static let declaration = /^(let|var) +([A-Za-z_][A-Za-z0-9_]*) *[:=]/

    /// Whether a later line names `name`: then a `let` is used. (A `var` gets `_ = name`
    /// all the same: a later line may only write to it.)
    static func isMentioned(_ name: String, in lines: ArraySlice<String>) -> Bool {
        lines.contains { line in
            // A word after a dot is a member (`recording.id`), not the name.
            var word = "", afterDot = false
            for character in codePart(line) + " " {
                if character.isLetter || character.isNumber || character == "_" {
                    word.append(character)
                    continue
                }
                if word == name && !afterDot { return true }
                afterDot = character == "."
                word = ""
            }
            return false
        }
    }

    /// The line without a trailing `//` comment and without the insides of string literals.
    static func codePart(_ line: String) -> String {
        var out = ""
        var inString = false
        var previous: Character = " "
        for character in line {
            if character == "\"" && previous != "\\" { inString.toggle(); out.append(character) }
            else if !inString && character == "/" && previous == "/" { out.removeLast(); break }
            else if !inString { out.append(character) }
            previous = character
        }
        return out
    }

    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
