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

/// What a `tapedeck` process left: its exit status and both outputs.
package struct ProcessRun: Sendable {
    package var status: Int32
    package var output: String
    package var errors: String
}

/// Runs the built `tapedeck` with `arguments` (in `directory`, if given; with `environment` added
/// to this process's) and waits for it.
/// Standard error goes to a temporary file, so neither stream can fill a pipe and block the child.
package func runTapedeck(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> ProcessRun {
    let process = Process()
    process.executableURL = try tapedeckExecutable()
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
    }
    let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errorFile) }
    let errors = try FileHandle(forWritingTo: errorFile)
    defer { try? errors.close() }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try launch(process)
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessRun(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                      errors: String(decoding: (try? Data(contentsOf: errorFile)) ?? Data(), as: UTF8.self))
}
