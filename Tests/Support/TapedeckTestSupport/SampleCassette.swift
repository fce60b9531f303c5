import Foundation
package import TapedeckCassettes
import TapedeckHTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cassette with one of everything the format must keep: JSON, binary, gzip wire bytes, a
/// decoded body with Content-Encoding kept, a request body from a stream, a transport error,
/// timings, a redirect.
package func sampleCassette() throws -> Cassette {
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
