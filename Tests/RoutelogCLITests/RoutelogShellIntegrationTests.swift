import Foundation
import Testing

/// Completions, the manual page and `make install`, checked with the real tools.
@Suite struct RoutelogShellIntegrationTests {
    /// The path of `tool` when it is installed.
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CLI.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLI.Result(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                          stderr: String(decoding: errors, as: UTF8.self))
    }

    @Test func bashCompletesCommandsOptionsAndValues() throws {
        let script = try CLI.run(["completions", "bash"]).stdout
        let dir = ScratchDirectory()
        let file = dir.path("routelog.bash")
        try Data(script.utf8).write(to: file)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let result = try Self.run("/bin/bash", ["-c", "source '\(file.path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _routelog; printf '%s\\n' \"${COMPREPLY[@]}\""])
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["routelog", "ch"]) == ["chart"])
        #expect(try complete(["routelog", "ls", "s.routelog", "--so"]) == ["--sort"])
        #expect(try complete(["routelog", "ls", "s.routelog", "--sort", "d"]) == ["date", "distance", "duration"])
        #expect(try complete(["routelog", "dump", "s", "1", "--format", "g"]) == ["gpx", "geojson"])
        #expect(try complete(["routelog", "export", "s", "d", "--format", "c"]) == ["csv"])
        #expect(try complete(["routelog", "completions", "--h"]) == ["--help"])
    }

    @Test(.enabled(if: tool("zsh") != nil || tool("fish") != nil, "needs zsh or fish (apt-get install zsh fish)"))
    func zshAndFishComplete() throws {
        let dir = ScratchDirectory()
        if let zsh = Self.tool("zsh") {
            let file = dir.path("_routelog")
            try Data(try CLI.run(["completions", "zsh"]).stdout.utf8).write(to: file)
            let result = try Self.run(zsh, ["-n", file.path])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        }
        if let zsh = Self.tool("zsh") {
            // A real interactive zsh in a pseudo-terminal, with compinit and our function
            // on its fpath, is sent a line and a TAB; what it lists or fills in is read back.
            let functions = dir.path("site-functions")
            try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
            try Data(try CLI.run(["completions", "zsh"]).stdout.utf8).write(to: functions.appendingPathComponent("_routelog"))
            let driver = dir.path("drive.zsh")
            try Data(Self.zshDriver.utf8).write(to: driver)
            for (line, expected) in [("routelog ls s.routelog --sort d", "date      distance  duration"),
                                     ("routelog ch", "routelog chart "),
                                     ("routelog dump s 1 --format g", "geojson  gpx"),
                                     ("routelog render s 1 --pri", "--privacy-zone ")] {
                let result = try Self.run(zsh, ["-f", driver.path, functions.path, line + "\t", expected])
                #expect(result.stdout.hasPrefix("COMPLETION-SEEN"), "zsh completing '\(line)' did not show '\(expected)': \(result.stdout.suffix(300))")
            }
        }
        if let fish = Self.tool("fish") {
            let file = dir.path("routelog.fish")
            try Data(try CLI.run(["completions", "fish"]).stdout.utf8).write(to: file)
            let result = try Self.run(fish, ["-c", "source '\(file.path)'; complete -C 'routelog ls s --sort d'; complete -C 'routelog ren'"])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            let words = result.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }
            #expect(words == ["date", "distance", "duration", "render"], "\(result.stdout)")
        }
        #expect(try CLI.run(["completions", "tcsh"]).stderr.hasPrefix("routelog: unknown shell 'tcsh': use bash, zsh or fish"))
    }

    /// Drives an interactive zsh: $1 the completion functions' folder, $2 the keys to
    /// send, $3 the text to wait for (up to 20 s); prints COMPLETION-SEEN first when it appears.
    static let zshDriver = """
    zmodload zsh/zpty
    zpty z 'TERM=dumb zsh -f -i'
    zpty -w z "fpath=($1 \\$fpath); autoload -Uz compinit; compinit -u -D; PROMPT='P> '"
    zpty -w z 'unsetopt AUTO_MENU; setopt AUTO_LIST'
    zpty -n -w z "$2"
    out=""
    for i in {1..100}; do
        while zpty -r -t z line; do out+=$line; done
        [[ "$out" == *"$3"* ]] && { print COMPLETION-SEEN; break }
        sleep 0.2
    done
    print -r -- "$out"
    zpty -d z
    """

    @Test func theManualPageIsTheRepositorysCopyAndFormatsWithoutWarnings() throws {
        let page = try CLI.run(["--man"]).stdout
        let file = CLI.packageRoot.appendingPathComponent("man/routelog.1")
        #expect(page == (try String(contentsOf: file, encoding: .utf8)),
                "man/routelog.1 is out of date: .build/debug/routelog --man > man/routelog.1")
        let overview = try CLI.run(["--help"]).stdout
        for name in RoutelogReadmeHelpTests.commandNames(overview) {
            #expect(page.contains(".SS \(name)\n"), "the manual describes \(name)")
        }
        guard let groff = Self.tool("groff") else {
            print("note: groff is missing (apt-get install groff-base); the manual page is not formatted here")
            return
        }
        let formatted = try Self.run(groff, ["-man", "-Tutf8", "-ww", "-z", file.path])
        #expect(formatted.status == 0 && formatted.stderr.isEmpty, "groff warns: \(formatted.stderr)")
        if let man = Self.tool("man") {
            let shown = try Self.run(man, ["-l", file.path], environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("NAME") && shown.stdout.contains("RouteLog store, edit it safely"), "\(shown.stdout.prefix(300))")
            #expect(shown.stdout.contains("--privacy-zone"))
        }
    }

    @Test(.enabled(if: tool("make") != nil, "needs make"))
    func makeInstallPutsTheBinaryTheManualAndTheCompletionsUnderPrefix() throws {
        let dir = ScratchDirectory()
        let prefix = dir.path("prefix")
        let result = try Self.run(Self.tool("make")!, ["-s", "-C", CLI.packageRoot.path, "install-files",
                                                       "PREFIX=\(prefix.path)", "BIN=\(CLI.executable.path)"])
        #expect(result.status == 0, "\(result.stderr)")
        for file in ["bin/routelog", "share/man/man1/routelog.1", "share/bash-completion/completions/routelog",
                     "share/zsh/site-functions/_routelog", "share/fish/vendor_completions.d/routelog.fish"] {
            let path = prefix.appendingPathComponent(file).path
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size > 100, "\(file) installed")
        }
        #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/routelog").path))
        let installed = try Self.run(prefix.appendingPathComponent("bin/routelog").path, ["--version"])
        #expect(installed.stdout.hasPrefix("routelog "))
    }
}
