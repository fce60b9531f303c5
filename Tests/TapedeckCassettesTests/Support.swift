import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP

/// A fresh directory under the system's temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The repository's `fixtures/` directory.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("fixtures")

/// A cassette with one of everything the format must keep: JSON, binary, gzip wire bytes, a
/// decoded body with Content-Encoding kept, a request body from a stream, a transport error,
/// timings, a redirect.
func sampleCassette() throws -> Cassette {
    let json = Data(#"{"id":1,"name":"Ada","tags":["a","b"]}"#.utf8)
    let binary = Data((0..<300).map { UInt8(($0 * 37 + 11) % 256) })
    let gzipped = try Zlib.compress(Data(#"{"compressed":true}"#.utf8), format: .gzip)
    func timings(_ wait: Int) -> ExchangeTimings {
        ExchangeTimings(connect: .milliseconds(3), send: .microseconds(250), wait: .milliseconds(wait), receive: .microseconds(1_500))
    }
    return Cassette(interactions: [
        Interaction(index: 0, startedDateTime: "2026-11-21T10:00:00.000Z",
                    request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/users/1?b=2&a=1")!,
                                             headers: [HeaderField("Accept", "application/json")]),
                    outcome: .response(RecordedResponse(status: 200, statusText: "OK",
                                                        headers: [HeaderField("Content-Type", "application/json")], body: json)),
                    timings: timings(40)),
        Interaction(index: 1, startedDateTime: "2026-11-21T10:00:01.000Z",
                    request: RecordedRequest(method: "POST", url: URL(string: "http://api.test/upload")!,
                                             headers: [HeaderField("Content-Type", "application/octet-stream")], body: binary),
                    outcome: .response(RecordedResponse(status: 201, headers: [HeaderField("Content-Type", "image/png")], body: binary)),
                    timings: timings(12)),
        Interaction(index: 2, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/gzip")!),
                    outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json"),
                                                                               HeaderField("Content-Encoding", "gzip")],
                                                        body: gzipped, bodyForm: .wire))),
        Interaction(index: 3, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/decoded")!),
                    outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Encoding", "gzip")],
                                                        body: Data("already decoded".utf8), bodyForm: .decoded))),
        Interaction(index: 4, request: RecordedRequest(method: "GET", url: URL(string: "http://down.test/")!),
                    outcome: .failure(RecordedFailure(code: URLError.cannotConnectToHost.rawValue, message: "Could not connect to the server.")),
                    timings: ExchangeTimings(connect: .milliseconds(20), wait: .zero)),
        Interaction(index: 5, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/old")!),
                    outcome: .response(RecordedResponse(status: 302, headers: [HeaderField("Location", "/users/1")]))),
    ])
}

/// The `tapedeck` executable built beside the test bundle.
func tapedeckExecutable() throws -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent("tapedeck")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
    }
    let fallback = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("tapedeck")
    try #require(FileManager.default.isExecutableFile(atPath: fallback.path), "build the tapedeck product first (swift build)")
    return fallback
}
