import Foundation

/// The files `import` reads: every FILE checked before the store is opened (a missing
/// one stops the command, naming it), and `-` read from standard input into a scratch
/// file that is handed to the importer like any other file.
struct ImportInput {
    /// What the importer reads, in the order given.
    private(set) var files: [URL] = []
    private var scratch: URL?

    /// How standard input is named in reports.
    static let standardInputName = "standard input"

    /// - Throws: ``CLIError``: a usage error for `-` given twice; a failure naming a FILE
    ///   that does not exist or is a directory, or standard input that cannot be read.
    init(_ paths: [String], command: CommandSpec, standardInput: FileHandle = .standardInput) throws {
        if paths.filter({ $0 == "-" }).count > 1 {
            throw CLIError.usage("'-' (standard input) is given more than once", command)
        }
        for path in paths where path != "-" { try Self.check(path) }
        for path in paths {
            if path == "-" {
                let url = FileManager.default.temporaryDirectory.appendingPathComponent("routelog-stdin-\(UUID().uuidString)")
                do {
                    try Self.copy(standardInput, to: url)
                } catch {
                    try? FileManager.default.removeItem(at: url)
                    throw CLIError.failure("cannot read standard input", path: nil, todo: "pipe a file into routelog import STORE -")
                }
                scratch = url
                files.append(url)
            } else {
                files.append(URL(fileURLWithPath: path))
            }
        }
    }

    /// Checks that `path` names a file.
    /// - Throws: ``CLIError`` naming a missing file or a directory.
    static func check(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError.failure("there is no such file", path: path, todo: "check the path; nothing was imported")
        }
        if isDirectory.boolValue {
            throw CLIError.failure("this is a directory, not a file", path: path,
                                   todo: "give the files inside it, like DIR/*.gpx; nothing was imported")
        }
    }

    /// Copies `input` to `url` in chunks: memory stays bounded whatever its size.
    private static func copy(_ input: FileHandle, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let output = try FileHandle(forWritingTo: url)
        defer { try? output.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }

    /// The name a report gives `file`: the path as given, or "(standard input)".
    func name(of file: URL) -> String {
        file == scratch ? Self.standardInputName : file.path
    }

    /// Removes the copy of standard input.
    func removeScratch() {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }
}
