// swift-tools-version:6.0
import PackageDescription

// Modules follow the layers of docs/architecture.md; each imports only layers below it.
let package = Package(
    name: "Tapedeck",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TapedeckScheduling", targets: ["TapedeckScheduling"]),
        .library(name: "TapedeckHTTP", targets: ["TapedeckHTTP"]),
        .library(name: "TapedeckCassettes", targets: ["TapedeckCassettes"]),
        .library(name: "TapedeckNetwork", targets: ["TapedeckNetwork"]),
        .library(name: "TapedeckBridge", targets: ["TapedeckBridge"]),
        .library(name: "TapedeckClient", targets: ["TapedeckClient"]),
        .library(name: "TapedeckTesting", targets: ["TapedeckTesting"]),
        .executable(name: "tapedeck", targets: ["TapedeckCLI"]),
        .executable(name: "tapedeck-bench", targets: ["TapedeckBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // Layer 1: virtual time, live and simulated schedulers, traces, determinism checks.
        .target(
            name: "TapedeckScheduling",
            dependencies: [
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        // The system zlib (Debian: zlib1g-dev), with a shim for its macros.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Layer 2: request/response values, the responder protocol, metrics, zlib and content codings.
        .target(
            name: "TapedeckHTTP",
            dependencies: [
                "TapedeckScheduling", "CZlib",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Layer 3: cassettes — HAR 1.2 (+ gzip), crash-safe journal, matching, redaction, replay.
        .target(name: "TapedeckCassettes", dependencies: ["TapedeckHTTP"]),
        // Layer 4: the simulated network (routes, latency, timeouts, redirects, faults, metrics).
        .target(name: "TapedeckNetwork", dependencies: ["TapedeckHTTP"]),
        // Layer 5: the URLProtocol bridge and the harness that hands out URLSessions.
        .target(
            name: "TapedeckBridge",
            dependencies: ["TapedeckNetwork", .product(name: "DequeModule", package: "swift-collections")]
        ),
        // Layer 6: the Alamofire-shaped client pipeline (never imports the bridge).
        .target(
            name: "TapedeckClient",
            dependencies: [
                "TapedeckHTTP",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Layer 8: test integration — a Swift Testing trait and an XCTest helper binding a test to a cassette.
        .target(
            name: "TapedeckTesting",
            dependencies: ["TapedeckScheduling", "TapedeckNetwork", "TapedeckBridge", "TapedeckCassettes"]
        ),
        // Support (not a product): a real HTTP server on loopback, for recording tests and benchmarks.
        .target(
            name: "TapedeckLoopback",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird"), "TapedeckHTTP"],
            path: "Tests/Support/TapedeckLoopback"
        ),
        // Layer 9: the command-line tool (thin: parse, call the libraries, print).
        .executableTarget(
            name: "TapedeckCLI",
            dependencies: [
                "TapedeckBridge", "TapedeckCassettes",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks: one entry point, `tools/bench NAME`.
        .executableTarget(
            name: "TapedeckBench",
            dependencies: ["TapedeckBridge", "TapedeckCassettes", "TapedeckClient", "TapedeckLoopback"],
            path: "Benchmarks/TapedeckBench"
        ),
        .testTarget(name: "TapedeckSchedulingTests", dependencies: ["TapedeckScheduling"]),
        .testTarget(name: "TapedeckHTTPTests", dependencies: ["TapedeckHTTP"]),
        // The CLI is a dependency so that the crash-recovery test can run it as a child process.
        .testTarget(
            name: "TapedeckCassettesTests",
            dependencies: ["TapedeckCassettes", "TapedeckBridge", "TapedeckCLI", "TapedeckTesting", "TapedeckLoopback", "TapedeckClient"],
            // Cassettes the `.cassette` trait finds beside the test files (by path, not as resources).
            exclude: ["Cassettes"]
        ),
        .testTarget(name: "TapedeckNetworkTests", dependencies: ["TapedeckNetwork"]),
        .testTarget(name: "TapedeckBridgeTests", dependencies: ["TapedeckBridge"]),
        .testTarget(name: "TapedeckClientTests", dependencies: ["TapedeckClient", "TapedeckBridge", "TapedeckLoopback"]),
    ]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
