public import Foundation

extension DataRequest {
    /// Waits for the response, serialized by `serializer`. Deterministic under simulation as long as
    /// a test awaits one result at a time (the Swift runtime schedules racing tasks, not Tapedeck).
    public func serializingResponse<Serializer: ResponseSerializer>(using serializer: Serializer) async -> ClientDataResponse<Serializer.SerializedObject> {
        await withCheckedContinuation { continuation in
            response(responseSerializer: serializer) { continuation.resume(returning: $0) }
        }
    }

    /// Waits for the response with the body as `Data` (see ``serializingResponse(using:)``).
    public func serializingData() async -> ClientDataResponse<Data> {
        await serializingResponse(using: DataResponseSerializer())
    }

    /// Waits for the response with the body as a `String` (`encoding` nil: from the response, else UTF-8).
    public func serializingString(encoding: String.Encoding? = nil) async -> ClientDataResponse<String> {
        await serializingResponse(using: StringResponseSerializer(encoding: encoding))
    }

    /// Waits for the response with the body decoded as `T` by `decoder`.
    public func serializingDecodable<T: Decodable & Sendable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) async -> ClientDataResponse<T> {
        await serializingResponse(using: DecodableResponseSerializer<T>(decoder: decoder))
    }
}
