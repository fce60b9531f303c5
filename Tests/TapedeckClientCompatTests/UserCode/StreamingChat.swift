// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Streaming: the shapes LLM and server-sent-event clients give `streamRequest` — an async
// sequence of text pieces parsed as SSE, a raw stream re-split into JSON lines, a stateful
// DataStreamSerializer, an AsyncThrowingStream bridge cancelled on termination.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

struct ChatPrompt: Encodable, Sendable {
    let model: String
    let prompt: String
    let stream: Bool
}

struct ChatDelta: Decodable, Sendable, Equatable {
    let token: String
}

enum ChatStreamError: Error, Equatable {
    case http(Int)
    case transport(String)
}

enum StreamingChat {
    /// POSTs the prompt as JSON and collects the `data:` payloads of the event stream until `[DONE]`.
    static func completion(for prompt: String, session: Session = AF) async throws -> [String] {
        let request = session.streamRequest(
            "https://api.example.com/v1/chat", method: .post,
            parameters: ChatPrompt(model: "tiny", prompt: prompt, stream: true), encoder: JSONParameterEncoder.default,
            headers: [.authorization(bearerToken: "sk-test"), .accept("text/event-stream")])
            .validate(statusCode: [200])
        var tokens: [String] = []
        for await piece in request.streamTask().streamingStrings() {
            if let text = piece.value {
                for line in text.split(separator: "\n") where line.hasPrefix("data: ") {
                    let payload = line.dropFirst("data: ".count)
                    if payload == "[DONE]" { return tokens }
                    if let delta = try? JSONDecoder().decode(ChatDelta.self, from: Data(payload.utf8)) { tokens.append(delta.token) }
                }
            }
            if let error = piece.completion?.error {
                if case let .responseValidationFailed(reason: .unacceptableStatusCode(code)) = error { throw ChatStreamError.http(code) }
                throw ChatStreamError.transport("\(error)")
            }
        }
        return tokens
    }

    /// A raw stream whose pieces may cut a JSON line anywhere: buffered and split on newlines.
    /// The request body is set by the trailing request modifier.
    static func generate(_ prompt: String, session: Session = AF, onLine: @escaping @Sendable (ChatDelta) -> Void,
                         onEnd: @escaping @Sendable (AFError?) -> Void) -> DataStreamRequest {
        let buffer = LineBuffer()
        return session.streamRequest("https://api.example.com/api/generate", method: .post) { request in
            request.httpBody = try JSONEncoder().encode(ChatPrompt(model: "tiny", prompt: prompt, stream: true))
            request.timeoutInterval = 300
        }
        .validate()
        .responseStream { stream in
            switch stream.event {
            case let .stream(result):
                switch result {
                case let .success(data):
                    for line in buffer.append(data) {
                        if let delta = try? JSONDecoder().decode(ChatDelta.self, from: line) { onLine(delta) }
                    }
                }
            case let .complete(completion):
                onEnd(completion.error)
            }
        }
    }

    /// The same stream as an AsyncThrowingStream; stopping early cancels the request.
    static func tokens(for prompt: String, session: Session = AF) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            let request = session.streamRequest("https://api.example.com/v1/chat", method: .post,
                                                parameters: ChatPrompt(model: "tiny", prompt: prompt, stream: true),
                                                encoder: JSONParameterEncoder.default)
                .responseStream(using: EventSourceSerializer()) { stream in
                    switch stream.event {
                    case let .stream(.success(events)):
                        for event in events where event != "[DONE]" {
                            if let delta = try? JSONDecoder().decode(ChatDelta.self, from: Data(event.utf8)) { continuation.yield(delta.token) }
                        }
                    case let .stream(.failure(error)):
                        continuation.finish(throwing: error)
                    case let .complete(completion):
                        continuation.finish(throwing: completion.error)
                    }
                }
            continuation.onTermination = { _ in request.cancel() }
        }
    }
}

/// Keeps a partial line between pieces; a class, as app code writes it.
final class LineBuffer: @unchecked Sendable {
    private var pending = Data()
    private let lock = NSLock()

    /// Every complete line the piece finished.
    func append(_ data: Data) -> [Data] {
        lock.lock()
        defer { lock.unlock() }
        pending.append(data)
        var lines: [Data] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(pending[pending.startIndex..<newline])
            pending = Data(pending[pending.index(after: newline)...])
        }
        return lines
    }
}

/// A server-sent-event parser kept across pieces: each piece gives the `data:` payloads of the
/// events it completed.
final class EventSourceSerializer: DataStreamSerializer, @unchecked Sendable {
    private var text = ""

    func serialize(_ data: Data) throws -> [String] {
        text += String(decoding: data, as: UTF8.self)
        var payloads: [String] = []
        while let end = text.range(of: "\n\n") {
            let event = text[text.startIndex..<end.lowerBound]
            text = String(text[end.upperBound...])
            for line in event.split(separator: "\n") where line.hasPrefix("data:") {
                payloads.append(line.dropFirst("data:".count).trimmingCharacters(in: .whitespaces))
            }
        }
        return payloads
    }
}
