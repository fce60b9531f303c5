public import Foundation
public import TapedeckScheduling

// A stream's handlers: raw pieces, text, decoded values, or any DataStreamSerializer — each on a
// scheduler queue (nil: the session's default response queue) or on the queue standing for a
// DispatchQueue, as Alamofire's `on: .main`.

extension DataStreamRequest {
    /// Hands every piece over as it arrived, then the completion.
    ///
    /// ```swift
    /// session.streamRequest("http://api.test/feed").responseStream { stream in
    ///     if let piece = stream.value { buffer.append(piece) }
    /// }
    /// ```
    @preconcurrency
    @discardableResult
    public func responseStream(on queue: (any SchedulerQueue)? = nil, stream: @escaping Handler<Data, Never>) -> Self {
        appendRawStream(on: queue, stream: stream)
        return self
    }

    /// Hands every piece over as `serializer` makes it (on the serializationQueue), then the completion.
    @preconcurrency
    @discardableResult
    public func responseStream<Serializer: DataStreamSerializer>(
        using serializer: Serializer, on queue: (any SchedulerQueue)? = nil, stream: @escaping Handler<Serializer.SerializedObject, ClientError>
    ) -> Self {
        appendSerializedStream(on: queue, serializer: serializer, stream: stream)
        return self
    }

    /// Hands every piece over as UTF-8 text (made on the serializationQueue; monitors see each), then the completion.
    @preconcurrency
    @discardableResult
    public func responseStreamString(on queue: (any SchedulerQueue)? = nil, stream: @escaping Handler<String, Never>) -> Self {
        appendStringStream(on: queue, stream: stream)
        return self
    }

    /// Hands every piece over decoded as a `T` (one document per piece; a piece that does not
    /// decode is a `.failure`), then the completion.
    @preconcurrency
    @discardableResult
    public func responseStreamDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self, on queue: (any SchedulerQueue)? = nil, using decoder: any DataDecoder = JSONDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor(), stream: @escaping Handler<T, ClientError>
    ) -> Self {
        responseStream(using: DecodableStreamSerializer<T>(decoder: decoder, dataPreprocessor: preprocessor), on: queue, stream: stream)
    }

    // MARK: on the queue standing for a DispatchQueue

    /// `responseStream(on:stream:)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseStream(on queue: DispatchQueue, stream: @escaping Handler<Data, Never>) -> Self {
        responseStream(on: self.queue(standingFor: queue), stream: stream)
    }

    /// `responseStream(using:on:stream:)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseStream<Serializer: DataStreamSerializer>(
        using serializer: Serializer, on queue: DispatchQueue, stream: @escaping Handler<Serializer.SerializedObject, ClientError>
    ) -> Self {
        responseStream(using: serializer, on: self.queue(standingFor: queue), stream: stream)
    }

    /// `responseStreamString(on:stream:)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseStreamString(on queue: DispatchQueue, stream: @escaping Handler<String, Never>) -> Self {
        responseStreamString(on: self.queue(standingFor: queue), stream: stream)
    }

    /// `responseStreamDecodable(of:on:using:preprocessor:stream:)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseStreamDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self, on queue: DispatchQueue, using decoder: any DataDecoder = JSONDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor(), stream: @escaping Handler<T, ClientError>
    ) -> Self {
        responseStreamDecodable(of: type, on: self.queue(standingFor: queue), using: decoder, preprocessor: preprocessor, stream: stream)
    }
}
