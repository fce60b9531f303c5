import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import HTTPTypes
import TapedeckHTTP

/// UserCode/StreamingChat.swift: streaming code written for Alamofire (SSE over `streamTask()`,
/// a raw stream re-split into lines, a stateful serializer, an AsyncThrowingStream bridge) against
/// the simulated backend, with pieces that cut events and lines anywhere.
@Suite("Compat: streaming code written for Alamofire")
struct StreamingTests {
    /// An event stream of `tokens` then `[DONE]`, cut into pieces of `cut` bytes (the last shorter;
    /// nil: one event per piece).
    static func eventStream(_ tokens: [String], cut: Int?) -> ResponsePlan {
        let events = tokens.map { "data: {\"token\":\"\($0)\"}\n\n" } + ["data: [DONE]\n\n"]
        let text = events.joined()
        var plan = ResponsePlan(status: 200, headers: [("Content-Type", "text/event-stream")], body: Data(text.utf8))
        plan.chunkSizes = cut.map { cut in stride(from: 0, to: text.utf8.count, by: cut).map { min(cut, text.utf8.count - $0) } }
            ?? events.map(\.utf8.count)
        return plan
    }

    @Test("an SSE chat over streamTask().streamingStrings(): the POSTed JSON, every token, stopping at [DONE]")
    func chatOverStreamTask() async throws {
        let backend = SimulatedBackend()
        // One event per piece: the code splits each piece into lines, as such clients assume.
        backend.serve(path: "/v1/chat") { _ in Self.eventStream(["Hel", "lo", "!"], cut: nil) }
        let tokens = try await backend.withTransport { try await StreamingChat.completion(for: "hi") }
        #expect(tokens == ["Hel", "lo", "!"])
        let sent = try #require(backend.requests.first)
        #expect(sent.method == .post)
        #expect(sent.headerFields[.authorization] == "Bearer sk-test")
        let body = try JSONSerialization.jsonObject(with: sent.body ?? Data()) as? [String: Any]
        #expect(body?["prompt"] as? String == "hi" && body?["stream"] as? Bool == true)
    }

    @Test("a 429 on the chat stream throws the app's own error with the status, from the completion")
    func chatRefused() async throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/v1/chat") { _ in .json(429, #"{"error":"slow down"}"#) }
        await #expect(throws: ChatStreamError.http(429)) {
            try await backend.withTransport { try await StreamingChat.completion(for: "hi") }
        }
    }

    @Test("a raw stream cut mid-line: the app's buffer puts the JSON lines back together; the body came from the modifier")
    func rawLinesAcrossPieces() throws {
        let backend = SimulatedBackend()
        let text = #"{"token":"a"}"# + "\n" + #"{"token":"bc"}"# + "\n" + #"{"token":"d"}"# + "\n"
        backend.serve(path: "/api/generate") { _ in
            var plan = ResponsePlan(status: 200, headers: [("Content-Type", "application/x-ndjson")], body: Data(text.utf8))
            plan.chunkSizes = [5, 12, 1, 20, text.utf8.count - 38]
            return plan
        }
        let lines = Box<[String]>([]), ended = Box<String?>(nil)
        try backend.withTransport {
            let session = Session()
            _ = StreamingChat.generate("hi", session: session, onLine: { delta in lines.mutate { $0.append(delta.token) } },
                                       onEnd: { error in ended.value = error.map { "\($0)" } ?? "ok" })
            try backend.run()
        }
        #expect(lines.value == ["a", "bc", "d"])
        #expect(ended.value == "ok")
        let sent = try #require(backend.requests.first)
        #expect(String(decoding: sent.body ?? Data(), as: UTF8.self).contains(#""prompt":"hi""#))
    }

    @Test("a stateful SSE serializer behind an AsyncThrowingStream: events split across pieces arrive whole")
    func serializerBridge() async throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/v1/chat") { _ in Self.eventStream(["one", "two", "three"], cut: 7) }
        let stream = backend.withTransport { StreamingChat.tokens(for: "count") }
        try backend.run()
        var tokens: [String] = []
        for try await token in stream { tokens.append(token) }
        #expect(tokens == ["one", "two", "three"])
    }
}

/// Alamofire's async sequences of a request's steps: its URLRequests, cURL commands, response
/// heads and progress, each ended when the request finished.
@Suite("Compat: a request's steps as async sequences")
struct RequestSequencesTests {
    @Test("urlRequests, cURLDescriptions, httpResponses and downloadProgress of a retried request, each in order")
    func sequences() async throws {
        let backend = SimulatedBackend()
        let calls = Box(0)
        backend.serve(path: "/flaky") { _ in
            calls.mutate { $0 += 1 }
            return calls.value == 1 ? .json(503, #"{"busy":true}"#) : .json(200, #"{"ok":true}"#)
        }
        let (requests, commands, statuses, progress) = await backend.withTransport {
            let session = Session(interceptor: RetryPolicy(retryLimit: 1, exponentialBackoffBase: 2, exponentialBackoffScale: 0.1))
            let request = session.request("https://api.example.com/flaky").validate()
            let urls = request.urlRequests(), curls = request.cURLDescriptions(), heads = request.httpResponses()
            let progress = request.downloadProgress()
            _ = await request.serializingData().response
            var requests: [String] = [], commands: [String] = [], statuses: [Int] = [], counts: [Int64] = []
            for await url in urls { requests.append(url.url?.path ?? "?") }
            for await command in curls { commands.append(command) }
            for await head in heads { statuses.append(head.statusCode) }
            for await step in progress { counts.append(step.completedUnitCount) }
            return (requests, commands, statuses, counts)
        }
        #expect(requests == ["/flaky", "/flaky"])
        #expect(commands.count == 2 && commands.allSatisfy { $0.hasPrefix("$ curl") && $0.contains("https://api.example.com/flaky") })
        #expect(statuses == [503, 200])
        #expect(!progress.isEmpty && progress.last == Int64(#"{"ok":true}"#.utf8.count))
        #expect(request(convertible: backend))
    }

    /// `convertible` is public, as in Alamofire: what an app's retrier or logger reads the route from.
    private func request(convertible backend: SimulatedBackend) -> Bool {
        backend.withTransport {
            let request = Session().request("https://api.example.com/flaky")
            return (try? request.convertible.asURLRequest().url?.path) == "/flaky"
        }
    }
}

/// UserCode/SecureSession.swift: a session with a trust manager and cachers, set up as apps do.
@Suite("Compat: sessions set up with trust managers and cachers")
struct SecureSessionTests {
    @Test("the app's session keeps its trust manager and answers through the backend")
    func secureSession() async throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/me") { _ in .json(200, #"{"name":"Ada"}"#) }
        let (profile, evaluator) = try await backend.withTransport {
            let session = SecureAPI.makeSession()
            return (try await SecureAPI.profile(using: session), session.serverTrustManager?.evaluators["api.example.com"] as? PinnedHostsTrust)
        }
        #expect(profile == #"{"name":"Ada"}"#)
        #expect(evaluator?.hosts == ["api.example.com"])
    }
}
