// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Swift concurrency beyond serializingDecodable: download tasks, streams as AsyncSequences,
// serializers built by hand, Empty responses.
import Foundation
import TapedeckClient

struct Tick: Decodable, Sendable, Equatable {
    let n: Int
}

struct Ack: Decodable, Sendable, EmptyResponse {
    let ok: Bool
    static func emptyValue() -> Ack { Ack(ok: true) }
}

enum AsyncSequences {
    static func ticks(session: Session) async -> [Tick] {
        var ticks: [Tick] = []
        for await stream in session.streamRequest("https://api.example.com/ticks").streamTask().streamingDecodables(Tick.self) {
            switch stream.event {
            case let .stream(result):
                if case let .success(tick) = result { ticks.append(tick) }
            case .complete:
                break
            }
        }
        return ticks
    }

    static func text(session: Session) async -> String {
        var text = ""
        for await chunk in session.streamRequest("https://api.example.com/text").streamTask().streamingStrings() {
            if case let .stream(.success(piece)) = chunk.event { text += piece }
        }
        return text
    }

    static func ack(session: Session) async throws -> Ack {
        try await session.request("https://api.example.com/ack", method: .post)
            .serializingDecodable(Ack.self, automaticallyCancelling: true)
            .value
    }

    static func emptyAck(session: Session) async throws -> Ack {
        let serializer = DecodableResponseSerializer<Ack>(dataPreprocessor: PassthroughPreprocessor(), decoder: JSONDecoder(),
                                                          emptyResponseCodes: [204], emptyRequestMethods: [.head])
        return try await session.request("https://api.example.com/empty").serializingResponse(using: serializer).value
    }

    static func nothing(session: Session) async throws {
        let response: AFDataResponse<Empty> = await session.request("https://api.example.com/empty", method: .delete)
            .serializingDecodable(Empty.self).response
        _ = try response.result.get()
    }

    static func fileURL(session: Session) async throws -> URL {
        try await session.download("https://api.example.com/file").serializingDownloadedFileURL().value
    }

    static func latin1(session: Session, completion: @escaping @Sendable (String?) -> Void) {
        session.request("https://api.example.com/text").responseString(encoding: .isoLatin1) { completion($0.value) }
        _ = StringResponseSerializer(encoding: .utf8)
        _ = DataResponseSerializer(dataPreprocessor: GoogleXSSIPreprocessor(), emptyResponseCodes: [204, 205],
                                   emptyRequestMethods: [.head])
    }
}
