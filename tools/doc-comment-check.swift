// Fails when a public symbol of RouteLog has no `///` doc comment, or throws without a
// `- Throws:` line in it. Reads symbol graphs of the built module (`make doc-check`
// extracts them), so it sees exactly the public API of this platform's build.
//
//   swift tools/doc-comment-check.swift DIRECTORY [PACKAGE_ROOT]
//
// Prints one line per offender (`path:line: symbol: what is missing`) and exits 1 when
// there is any. Symbols the compiler synthesizes (Codable's init(from:), Hashable's
// hashValue, a raw-value enum's init(rawValue:)) have no source and are not checked.
import Foundation

struct SymbolGraph: Decodable {
    struct Symbol: Decodable {
        struct Identifier: Decodable { let precise: String }
        struct Kind: Decodable { let identifier: String }
        struct Fragment: Decodable { let kind: String; let spelling: String }
        struct DocComment: Decodable {
            struct Line: Decodable { let text: String }
            let lines: [Line]
        }
        struct Location: Decodable {
            struct Position: Decodable { let line: Int }
            let uri: String
            let position: Position
        }

        let identifier: Identifier
        let kind: Kind
        let pathComponents: [String]
        let accessLevel: String
        let declarationFragments: [Fragment]?
        let docComment: DocComment?
        let location: Location?
    }

    let symbols: [Symbol]
}

let arguments = CommandLine.arguments.dropFirst()
guard let directory = arguments.first else {
    FileHandle.standardError.write(Data("usage: swift tools/doc-comment-check.swift SYMBOL_GRAPH_DIRECTORY [PACKAGE_ROOT]\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: arguments.dropFirst().first ?? FileManager.default.currentDirectoryPath).standardizedFileURL.path

let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
    .filter { $0.hasSuffix(".symbols.json") }.sorted()
guard !files.isEmpty else {
    FileHandle.standardError.write(Data("doc-comment-check: no symbol graphs in \(directory) (run make symbol-graphs)\n".utf8))
    exit(2)
}

var offenders: [(path: String, line: Int, text: String)] = []
var checked = 0
for file in files {
    let data = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file))
    let graph = try JSONDecoder().decode(SymbolGraph.self, from: data)
    for symbol in graph.symbols where symbol.accessLevel == "public" || symbol.accessLevel == "open" {
        guard let location = symbol.location, !symbol.identifier.precise.contains("::SYNTHESIZED::") else { continue }
        checked += 1
        var path = URL(string: location.uri)?.path ?? location.uri
        if path.hasPrefix(root + "/") { path.removeFirst(root.count + 1) }
        let line = location.position.line + 1
        let place = "\(path):\(line): \(symbol.pathComponents.joined(separator: "."))"
        let text = (symbol.docComment?.lines ?? []).map(\.text).joined(separator: "\n")
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            offenders.append((path, line, "\(place): no doc comment"))
            continue
        }
        let throwing = (symbol.declarationFragments ?? []).contains {
            $0.kind == "keyword" && ($0.spelling == "throws" || $0.spelling == "rethrows")
        }
        if throwing, text.range(of: "- Throws:", options: .caseInsensitive) == nil {
            offenders.append((path, line, "\(place): throws, but its doc comment has no `- Throws:` line"))
        }
    }
}

for offender in offenders.sorted(by: { ($0.path, $0.line) < ($1.path, $1.line) }) { print(offender.text) }
if offenders.isEmpty {
    print("doc-comment-check: all \(checked) public symbols have doc comments, and every throwing one says what it throws")
} else {
    print("doc-comment-check: \(offenders.count) of \(checked) public symbols need a doc comment or a `- Throws:` line")
    exit(1)
}
