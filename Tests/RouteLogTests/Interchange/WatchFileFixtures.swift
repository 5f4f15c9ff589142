import Foundation
@testable import RouteLog

/// The real FIT and TCX files in `../shared/data/{fit,tcx}` (see SOURCES.md there). They
/// are read in place and never copied into the project (their licences differ); when
/// the folder is absent, the tests that need them are disabled with a note.
enum WatchFileFixtures {
    static let shared = Fixtures.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
    static let fitDirectory = shared.appendingPathComponent("fit")
    static let tcxDirectory = shared.appendingPathComponent("tcx")

    static let available: Bool = {
        let found = FileManager.default.fileExists(atPath: fitDirectory.appendingPathComponent("SOURCES.md").path)
            && FileManager.default.fileExists(atPath: tcxDirectory.appendingPathComponent("SOURCES.md").path)
        if !found {
            print("note: \(shared.path)/fit and /tcx are absent: the tests of real FIT and TCX files are skipped")
        }
        return found
    }()

    static let fitdecodeAvailable = available && PythonReaders.available("fitdecode")

    static func fit(_ name: String) -> URL { fitDirectory.appendingPathComponent(name) }
    static func tcx(_ name: String) -> URL { tcxDirectory.appendingPathComponent(name) }

    /// The names of the files with `suffix` in `directory`, sorted.
    static func names(in directory: URL, suffix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(suffix) }.sorted()
    }
}
