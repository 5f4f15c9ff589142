import Foundation
@testable import RouteLog

/// The Python packages `make test` installs into `.build/pyenv` (tools/requirements-test.txt):
/// independent readers that check RouteLog's output. A test that needs one asks
/// ``PythonReaders/available(_:)`` and skips with the note it prints when the answer is no.
enum PythonReaders {
    static let python = Fixtures.packageRoot.appendingPathComponent(".build/pyenv/bin/python3")

    private static let cache = NSLock()
    nonisolated(unsafe) private static var known: [String: Bool] = [:]

    /// True when the virtual environment exists and `module` imports in it; prints why not otherwise.
    static func available(_ module: String) -> Bool {
        cache.lock()
        defer { cache.unlock() }
        if let answer = known[module] { return answer }
        var answer = false
        if FileManager.default.isExecutableFile(atPath: python.path) {
            answer = (try? run(["-c", "import \(module)"]))?.status == 0
        }
        if !answer {
            print("note: the Python package \(module) is not in \(python.path) (run `make pyenv`); the tests that read with it are skipped")
        }
        known[module] = answer
        return answer
    }

    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs the environment's python3 with `arguments`.
    static func run(_ arguments: [String], input: Data? = nil) throws -> Result {
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        // Read both pipes before waiting, so a chatty script cannot fill one and block.
        let errors = Thread.detachedResult { err.fileHandleForReading.readDataToEndOfFile() }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                      errors: String(decoding: errors.value, as: UTF8.self))
    }

    /// Runs `script` (Python source) with `arguments` in sys.argv[1:]; throws with its
    /// standard error when it fails.
    static func script(_ script: String, _ arguments: [String] = []) throws -> String {
        let result = try run(["-c", script] + arguments)
        guard result.status == 0 else {
            throw RouteLogError.invalid("the Python check failed (status \(result.status)): \(result.errors)")
        }
        return result.output
    }
}

extension Thread {
    /// Runs `work` on a new thread; `value` waits for its result.
    final class DetachedResult<T>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: T?
        fileprivate func set(_ value: T) { result = value; done.signal() }
        var value: T { done.wait(); done.signal(); return result! }
    }

    static func detachedResult<T>(_ work: @escaping @Sendable () -> T) -> DetachedResult<T> {
        let box = DetachedResult<T>()
        let thread = Thread { box.set(work()) }
        thread.start()
        return box
    }
}
