package import Foundation

/// The repository's root directory (found from this file's place in it).
package let repositoryDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()   // TapedeckTestSupport
    .deletingLastPathComponent()   // Support
    .deletingLastPathComponent()   // Tests
    .deletingLastPathComponent()

/// The repository's `fixtures/` directory.
package let fixturesDirectory = repositoryDirectory.appendingPathComponent("fixtures")

/// The `tapedeck` executable could not be found beside the test bundle.
package struct ExecutableNotBuilt: Error, CustomStringConvertible {
    package let name: String
    package var description: String { "'\(name)' is not built beside the tests: run `swift build` first" }
}

/// The `tapedeck` executable built beside the test bundle.
package func tapedeckExecutable() throws -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent("tapedeck")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
    }
    let fallback = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("tapedeck")
    guard FileManager.default.isExecutableFile(atPath: fallback.path) else { throw ExecutableNotBuilt(name: "tapedeck") }
    return fallback
}
