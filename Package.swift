// swift-tools-version:6.0
import PackageDescription

// Modules follow the layers of docs/architecture.md; each imports only layers below it.
let package = Package(
    name: "Tapedeck",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TapedeckScheduling", targets: ["TapedeckScheduling"]),
        .executable(name: "tapedeck", targets: ["TapedeckCLI"]),
        .executable(name: "tapedeck-bench", targets: ["TapedeckBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        // Layer 9: the command-line tool (thin: parse, call the libraries, print).
        .executableTarget(
            name: "TapedeckCLI",
            dependencies: [
                "TapedeckScheduling",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks: one entry point, `tools/bench NAME`.
        .executableTarget(
            name: "TapedeckBench",
            dependencies: ["TapedeckScheduling"],
            path: "Benchmarks/TapedeckBench"
        ),
        .testTarget(name: "TapedeckSchedulingTests", dependencies: ["TapedeckScheduling"]),
    ]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
