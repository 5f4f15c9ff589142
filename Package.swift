// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "RouteLog",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "RouteLog", targets: ["RouteLog"]),
    ],
    targets: [
        // The system's liblz4, behind one module map. Only Codec/LZ4Block.swift imports it.
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]
        ),
        // Small C helpers the Swift Glibc module does not expose: OFD locks,
        // F_FULLFSYNC/fdatasync, and a hardware-accelerated CRC32C.
        .target(name: "CRouteLogSystem"),
        .target(
            name: "RouteLog",
            dependencies: ["CLZ4", "CRouteLogSystem"]
        ),
        // Reproducible synthetic routes for the demo, the tests and the benchmarks.
        .target(name: "RouteLogSamples", dependencies: ["RouteLog"]),
        .executableTarget(name: "routelog-demo", dependencies: ["RouteLog", "RouteLogSamples"]),
        .testTarget(
            name: "RouteLogTests",
            dependencies: ["RouteLog", "RouteLogSamples"]
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
            dependencies: ["RouteLog", "CSQLite"],
            path: "Benchmarks/Sources/routelog-bench"
        ),
        .testTarget(
            name: "RouteLogBenchTests",
            dependencies: ["routelog-bench"],
            path: "Benchmarks/Tests/RouteLogBenchTests"
        ),
    ]
)
