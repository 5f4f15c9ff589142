import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files `import` reads: every FILE checked before the store is opened (a missing
/// one, or one that is not a regular file, stops the command, naming it), and `-` read
/// from standard input into a scratch file that is handed to the importer like any
/// other file.
struct ImportInput {
    /// What the importer reads, in the order given.
    private(set) var files: [URL] = []
    private var scratch: URL?

    /// How standard input is named in reports.
    static let standardInputName = "standard input"

    /// - Throws: ``CLIError``: a usage error for `-` given twice; a failure naming a FILE
    ///   that does not exist or is not a regular file, or standard input that cannot be read.
    init(_ paths: [String], command: CommandSpec, standardInput: FileHandle = .standardInput) throws {
        if paths.filter({ $0 == "-" }).count > 1 {
            throw CLIError.usage("'-' (standard input) is given more than once", command)
        }
        for path in paths where path != "-" {
            try Self.check(path, otherwise: "give '-' and redirect it into routelog (routelog import STORE - < FILE)")
        }
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

    /// Checks that `path` names a regular file (a symbolic link to one is followed). A
    /// FIFO, a device or a socket is refused before anything opens it: reading one
    /// could block for ever while the store's writer lock is held, and the format check
    /// would take the first bytes the importer needs (`/dev/stdin` read twice).
    /// - Parameter otherwise: how to read such a path instead, for the advice.
    /// - Throws: ``CLIError`` naming a missing file, a directory or another kind of file.
    static func check(_ path: String, otherwise: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CLIError.failure("there is no such file", path: path, todo: "check the path; nothing was imported")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return
        case S_IFDIR:
            throw CLIError.failure("this is a directory, not a file", path: path,
                                   todo: "give the files inside it, like DIR/*.gpx; nothing was imported")
        case let kind:
            let what = kind == S_IFIFO ? "a FIFO (named pipe)" : kind == S_IFSOCK ? "a socket" : "a device"
            throw CLIError.failure("this is \(what), not a regular file, and reading it could wait for ever", path: path,
                                   todo: "\(otherwise); nothing was imported")
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
