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
        // The writer the kill test runs and kills (Tests/RouteLogTests/KillTests.swift).
        // Test-only: in no product.
        .executableTarget(
            name: "routelog-crash-worker",
            dependencies: ["RouteLog", "RouteLogSamples"],
            path: "Tests/CrashWorker"
        ),
        .testTarget(
            name: "RouteLogTests",
            dependencies: ["RouteLog", "RouteLogSamples", "routelog-crash-worker"]
        ),
    ]
)
