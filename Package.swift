// swift-tools-version:6.0
import PackageDescription

// Modules follow the layers of docs/architecture.md; each imports only layers below it, and lists
// every module it imports (nothing reaches a module through another's dependencies).
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
        .library(name: "TapedeckProvider", targets: ["TapedeckProvider"]),
        .library(name: "TapedeckScenarios", targets: ["TapedeckScenarios"]),
        .library(name: "TapedeckTesting", targets: ["TapedeckTesting"]),
        .library(name: "TapedeckServer", targets: ["TapedeckServer"]),
        .executable(name: "tapedeck", targets: ["TapedeckCLI"]),
        .executable(name: "tapedeck-bench", targets: ["TapedeckBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // TLS to an `https` upstream for the recording proxy's own upstream client (docs/server.md).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // `swift package generate-documentation` (DocC); see .ci/run and docs/architecture.md.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Layer 1: virtual time, live and simulated schedulers, traces, determinism checks.
        .target(
            name: "TapedeckScheduling",
            dependencies: [.product(name: "HeapModule", package: "swift-collections")]
        ),
        // The system zlib (Debian: zlib1g-dev), with a shim for its macros.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The system brotli and zstd libraries: `br` and `zstd` bodies decoded as Debian's libcurl
        // decodes them for URLSession, and encoded again after redaction.
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // glibc's thread CPU affinity calls (declared only under _GNU_SOURCE), for CPUPinning.
        .systemLibrary(name: "CAffinity"),
        // Layer 2: request/response values, the responder protocol, metrics, zlib and content codings.
        .target(
            name: "TapedeckHTTP",
            dependencies: ["TapedeckScheduling", "CZlib", "CBrotli", "CZstd", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // Layer 3: cassettes — HAR 1.2 (+ gzip), crash-safe journal, matching, redaction, replay.
        .target(
            name: "TapedeckCassettes",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", .product(name: "HTTPTypes", package: "swift-http-types"),
                // Other tools' YAML cassettes (vcrpy, VCR, go-vcr), read by `tapedeck cassette import`.
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // Layer 3: the simulated network (routes, latency, timeouts, redirects, faults, metrics).
        // A sibling of the cassettes: neither imports the other.
        .target(
            name: "TapedeckNetwork",
            dependencies: ["TapedeckScheduling", "TapedeckHTTP", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // Layer 4: the URLProtocol bridge and the harness that hands out URLSessions.
        .target(
            name: "TapedeckBridge",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckNetwork",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Layer 3: the Alamofire-shaped client pipeline (over layers 1–2 only; never imports the bridge).
        .target(
            name: "TapedeckClient",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Layer 4 (over the client): a Moya-shaped provider — targets, endpoints, plugins, stubs on
        // the scheduler's clock, in-flight de-duplication (swift-log for the logger plugin).
        .target(
            name: "TapedeckProvider",
            dependencies: [
                "TapedeckScheduling", "TapedeckClient",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Layer 5: scenarios — files (YAML/JSON) describing traffic, client, script, faults and
        // expectations; the runner, outcomes, timelines and reports.
        .target(
            name: "TapedeckScenarios",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckCassettes", "TapedeckNetwork", "TapedeckBridge", "TapedeckClient",
                "TapedeckProvider", "CAffinity",
                .product(name: "Yams", package: "Yams"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Layer 6: test integration — Swift Testing traits and XCTest helpers binding a test to a cassette or a scenario
        // (and TapedeckClient's default transport to the tape, so Alamofire-style `Session()` / `AF` use it).
        .target(
            name: "TapedeckTesting",
            dependencies: ["TapedeckScheduling", "TapedeckNetwork", "TapedeckBridge", "TapedeckCassettes", "TapedeckClient", "TapedeckScenarios"]
        ),
        // Layer 6: record and replay over real sockets (SwiftNIO): the replay server with socket
        // faults and the recording reverse proxy behind `tapedeck serve` / `tapedeck record`.
        .target(
            name: "TapedeckServer",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckCassettes", "TapedeckScenarios",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Layer 7: the command-line tool (thin: parse, call the libraries, print).
        .executableTarget(
            name: "TapedeckCLI",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckCassettes", "TapedeckScenarios", "TapedeckServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Support (not products).
        // A real HTTP server on loopback, for recording tests, fixture recording and benchmarks.
        .target(
            name: "TapedeckLoopback",
            dependencies: [
                "TapedeckHTTP",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/Support/TapedeckLoopback"
        ),
        // Helpers several test targets share: temporary directories, fixtures/, a sample cassette, the built CLI.
        .target(
            name: "TapedeckTestSupport",
            dependencies: ["TapedeckHTTP", "TapedeckCassettes"],
            path: "Tests/Support/TapedeckTestSupport"
        ),
        // The simulated servers and default transport the client compatibility suites run user code against.
        .target(
            name: "TapedeckSimulatedBackend",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckNetwork", "TapedeckBridge", "TapedeckClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/Support/TapedeckSimulatedBackend"
        ),
        // Benchmarks: one entry point, `tools/bench NAME`.
        .executableTarget(
            name: "TapedeckBench",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckNetwork", "TapedeckBridge", "TapedeckCassettes",
                "TapedeckClient", "TapedeckScenarios", "TapedeckLoopback",
            ],
            path: "Benchmarks/TapedeckBench"
        ),
        // Re-records the committed fixture cassettes from the loopback server: `tools/regenerate-fixtures`.
        .executableTarget(
            name: "TapedeckFixtures",
            dependencies: ["TapedeckCassettes", "TapedeckTesting", "TapedeckLoopback"],
            path: "tools/TapedeckFixtures"
        ),

        // Tests, one target per module.
        .testTarget(name: "TapedeckSchedulingTests", dependencies: ["TapedeckScheduling"]),
        .testTarget(
            name: "TapedeckHTTPTests",
            dependencies: ["TapedeckHTTP", "TapedeckTestSupport", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // The recording tests drive the recorder through TapedeckTesting's `Tape` against the loopback server.
        .testTarget(
            name: "TapedeckCassettesTests",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckNetwork", "TapedeckBridge", "TapedeckCassettes",
                "TapedeckTesting", "TapedeckLoopback", "TapedeckTestSupport",
            ]
        ),
        .testTarget(
            name: "TapedeckNetworkTests",
            dependencies: ["TapedeckScheduling", "TapedeckHTTP", "TapedeckNetwork"]
        ),
        .testTarget(
            name: "TapedeckBridgeTests",
            dependencies: ["TapedeckScheduling", "TapedeckHTTP", "TapedeckNetwork", "TapedeckBridge", "TapedeckTestSupport"]
        ),
        .testTarget(
            name: "TapedeckClientTests",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckNetwork", "TapedeckBridge", "TapedeckClient",
                "TapedeckLoopback",
            ]
        ),
        .testTarget(
            name: "TapedeckProviderTests",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckNetwork", "TapedeckBridge", "TapedeckClient", "TapedeckProvider",
                "TapedeckLoopback", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Source compatibility with Alamofire 5: user code written in Alamofire's idiom (UserCode/, which
        // imports only Foundation and TapedeckClient) run against the simulated network.
        .testTarget(
            name: "TapedeckClientCompatTests",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckNetwork", "TapedeckBridge", "TapedeckClient", "TapedeckTesting",
                "TapedeckSimulatedBackend", .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // Cassettes the `.cassette` trait finds beside the test files (by path, not as resources).
            exclude: ["Cassettes"]
        ),
        // The same promise for apps still in the Swift 5 language mode (most Alamofire apps): their
        // idioms — mutating captured locals in handlers, main-actor state in handlers, `Error`
        // without `any` — compile against TapedeckClient as they do against Alamofire.
        .testTarget(
            name: "TapedeckClientSwift5Tests",
            dependencies: ["TapedeckClient", "TapedeckSimulatedBackend", "TapedeckHTTP"],
            // The app code here draws the warnings Alamofire 5.12 gives the same code in Swift 5 mode
            // (a mutable interceptor conforming to Sendable, main-actor state set in a handler); what
            // this target pins is that it compiles and behaves, so those expected warnings are off.
            swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-suppress-warnings"])]
        ),
        // Moya 15 app code in the Swift 5 language mode (as most Moya apps are) against TapedeckProvider.
        .testTarget(
            name: "TapedeckProviderSwift5Tests",
            dependencies: ["TapedeckProvider", "TapedeckClient", "TapedeckSimulatedBackend", "TapedeckHTTP"],
            // As for TapedeckClientSwift5Tests: the warnings Moya gives the same code are off.
            swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-suppress-warnings"])]
        ),
        .testTarget(
            name: "TapedeckTestingTests",
            dependencies: [
                "TapedeckTesting", "TapedeckCassettes", "TapedeckClient", "TapedeckProvider", "TapedeckScenarios", "TapedeckBridge",
                "TapedeckNetwork", "TapedeckScheduling", "TapedeckLoopback", "TapedeckTestSupport",
            ],
            // Cassettes and scenarios the traits find beside the test files (by path, not as resources).
            exclude: ["Cassettes", "Scenarios"]
        ),
        // Scenario files used as test data live in Files/ (read by path from #filePath, not as resources).
        .testTarget(
            name: "TapedeckScenariosTests",
            dependencies: [
                "TapedeckScenarios", "TapedeckScheduling", "TapedeckHTTP", "TapedeckCassettes", "TapedeckNetwork", "TapedeckBridge",
                "TapedeckClient", "TapedeckTestSupport",
            ],
            exclude: ["Files"]
        ),
        // The server over real sockets: `tapedeck record`/`serve` as child processes, curl and URLSession as clients.
        .testTarget(
            name: "TapedeckServerTests",
            dependencies: [
                "TapedeckServer", "TapedeckCLI", "TapedeckHTTP", "TapedeckCassettes", "TapedeckScenarios", "TapedeckTesting",
                "TapedeckBridge", "TapedeckNetwork", "TapedeckScheduling", "TapedeckLoopback", "TapedeckTestSupport",
            ]
        ),
        // Every Swift snippet of README.md, docs/*.md and the DocC articles and `///` examples, compiled;
        // those that run on the simulated network or in a temporary directory are run, with what their
        // text claims asserted. Cassettes and a scenario the traits find beside the test files.
        .testTarget(
            name: "TapedeckDocSnippetsTests",
            dependencies: [
                "TapedeckScheduling", "TapedeckHTTP", "TapedeckCassettes", "TapedeckNetwork", "TapedeckBridge", "TapedeckClient",
                "TapedeckProvider", "TapedeckScenarios", "TapedeckTesting", "TapedeckServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Cassettes", "Scenarios"]
        ),
        // The CLI is a dependency so that its tests can run the built `tapedeck` as a child process.
        .testTarget(
            name: "TapedeckCLITests",
            dependencies: ["TapedeckCLI", "TapedeckHTTP", "TapedeckCassettes", "TapedeckScenarios", "TapedeckTestSupport"]
        ),
    ]
)

// Upcoming features for our own code; the Swift 5 compatibility suite is written as apps write it.
for target in package.targets where target.type != .system && !target.name.hasSuffix("Swift5Tests") {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
