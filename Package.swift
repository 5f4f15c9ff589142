// swift-tools-version:6.0
import Foundation
import PackageDescription

// `make` sets ROUTELOG_OPTIMIZED_LIBRARY=1: its debug builds (the tests' among them)
// then compile the library and the sample generator with -O, as apps ship them, and the
// tests run in well under half the time. Everything else stays a debug
// build. Without the variable (a package that depends on RouteLog, or Xcode) the
// manifest names no compiler flags at all.
let optimizedLibrary: [SwiftSetting] =
    ProcessInfo.processInfo.environment["ROUTELOG_OPTIMIZED_LIBRARY"] == "1" ? [.unsafeFlags(["-O"])] : []

let package = Package(
    name: "RouteLog",
    // The oldest systems RouteLog builds for (README, "Apple platforms"): the releases
    // fitness apps still support. Nothing in the package needs newer ones; locks go
    // through StateLock (Synchronization's Mutex would need iOS 18 / watchOS 11).
    platforms: [.iOS(.v16), .watchOS(.v9), .macOS(.v13), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "RouteLog", targets: ["RouteLog"]),
    ],
    targets: [
        // The system's liblz4, behind one module map, on systems without Apple's
        // Compression framework; only Codec/LZ4Block+LibLZ4.swift imports it. Apple builds
        // never look for it (nor for pkg-config): they use Codec/LZ4Block+Compression.swift.
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]
        ),
        // Small C helpers the Swift Glibc module does not expose: OFD locks,
        // F_FULLFSYNC/F_BARRIERFSYNC/fdatasync, data protection classes, and a
        // hardware-accelerated CRC32C.
        .target(name: "CRouteLogSystem"),
        .target(
            name: "RouteLog",
            dependencies: [
                .target(name: "CLZ4", condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi])),
                "CRouteLogSystem",
            ],
            swiftSettings: optimizedLibrary
        ),
        // Reproducible synthetic routes for the demo, the tests and the benchmarks.
        .target(name: "RouteLogSamples", dependencies: ["RouteLog"], swiftSettings: optimizedLibrary),
        .executableTarget(name: "routelog-demo", dependencies: ["RouteLog", "RouteLogSamples"]),
        // The inspector CLI: a thin layer over the public API, one file per command.
        .executableTarget(name: "routelog", dependencies: ["RouteLog"]),
        // Test-only: holds a store for writing until killed, so the CLI's tests can
        // meet a writer in another process.
        .executableTarget(name: "routelog-test-holder", dependencies: ["RouteLog"]),
        // The writer the kill test runs and kills (Tests/RouteLogTests/KillTests.swift).
        // Test-only: in no product.
        .executableTarget(
            name: "routelog-crash-worker",
            dependencies: ["RouteLog", "RouteLogSamples"],
            path: "Tests/CrashWorker"
        ),
        // Depends on routelog-test-recorder and routelog-crash-worker so that building
        // the tests builds them: the recording crash tests and the kill test run and kill them.
        .testTarget(
            name: "RouteLogTests",
            dependencies: ["RouteLog", "RouteLogSamples", "routelog-test-recorder", "routelog-crash-worker"]
        ),
        // Depends on both executables so that building the tests builds them: the
        // tests run them as subprocesses.
        .testTarget(
            name: "RoutelogCLITests",
            dependencies: ["routelog", "routelog-test-holder", "RouteLog", "RouteLogSamples"],
            exclude: ["Golden"]  // read by path, so that ROUTELOG_UPDATE_GOLDEN=1 can rewrite them
        ),
        // Writes README.md's ```swift blocks as functions (Tests/ReadmeExamples), so that
        // the test build compiles the README's examples: `swift run readme-examples`.
        .executableTarget(name: "readme-examples", path: "tools/readme-examples"),
        // The README's examples, compiled (and the runnable ones run), and a check that
        // the generated file is the README's. Depends on readme-examples for its
        // extractor, which it imports.
        .testTarget(
            name: "ReadmeExamplesTests",
            dependencies: ["RouteLog", "RouteLogSamples", "readme-examples"],
            path: "Tests/ReadmeExamples"
        ),
        // The benchmark and its baselines. SQLite is linked here only, never by RouteLog.
        .systemLibrary(
            name: "CSQLite",
            path: "Benchmarks/Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .executableTarget(
            name: "routelog-bench",
            dependencies: ["RouteLog", "RouteLogSamples", "CSQLite"],
            path: "Benchmarks/Sources/routelog-bench"
        ),
        .testTarget(
            name: "RouteLogBenchTests",
            dependencies: ["routelog-bench"],
            path: "Benchmarks/Tests/RouteLogBenchTests"
        ),
        // A process that records a walk, for the recording crash tests to kill (test-only).
        .executableTarget(
            name: "routelog-test-recorder",
            dependencies: ["RouteLog", "RouteLogSamples"],
            path: "Tests/RecordingProcess"
        ),
        // Measures recording flushes and the bytes of recorded routes.
        .executableTarget(
            name: "routelog-recording-bench",
            dependencies: ["RouteLog", "RouteLogSamples"],
            path: "Benchmarks/Sources/routelog-recording-bench"
        ),
    ]
)
