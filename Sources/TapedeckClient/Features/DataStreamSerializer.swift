public import Foundation

/// Turns each piece of a streamed body into a value, as it arrives (Alamofire's
/// `DataStreamSerializer`). A ``DataStreamRequest`` calls ``serialize(_:)`` once per piece, in
/// order, on the session's serializationQueue; nothing is buffered between pieces, so a value split
/// across two pieces fails to decode (a serializer that is a class may keep what it has seen and
/// split the stream itself, as SSE parsers do — the calls are serial).
///
/// ```swift
/// struct Lines: DataStreamSerializer {
///     func serialize(_ data: Data) throws -> [String] {
///         String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
///     }
/// }
/// session.streamRequest("http://api.test/log").responseStream(using: Lines()) { stream in print(stream.value ?? []) }
/// ```
public protocol DataStreamSerializer<SerializedObject>: Sendable {
    /// The value each piece becomes.
    associatedtype SerializedObject: Sendable

    /// The value of one piece of the body; a throw becomes that piece's failure.
    func serialize(_ data: Data) throws -> SerializedObject
}

/// Decodes each piece of a stream as a `T` (one JSON document per piece, say).
public struct DecodableStreamSerializer<T: Decodable & Sendable>: DataStreamSerializer {
    /// Decodes each piece.
    public let decoder: any DataDecoder
    /// Runs on each piece before it is decoded.
    public let dataPreprocessor: any DataPreprocessor

    /// A serializer decoding with `decoder` (a `JSONDecoder` by default) after `dataPreprocessor`.
    public init(decoder: any DataDecoder = JSONDecoder(), dataPreprocessor: any DataPreprocessor = PassthroughPreprocessor()) {
        self.decoder = decoder
        self.dataPreprocessor = dataPreprocessor
    }

    /// The piece decoded as `T`; a decoding error is `responseSerializationFailed(.decodingFailed)`.
    public func serialize(_ data: Data) throws -> T {
        let processed = try dataPreprocessor.preprocess(data)
        do {
            return try decoder.decode(T.self, from: processed)
        } catch {
            throw ClientError.responseSerializationFailed(reason: .decodingFailed(error: error))
        }
    }
}

/// Hands each piece over as it came.
public struct PassthroughStreamSerializer: DataStreamSerializer {
    /// The serializer.
    public init() {}

    /// `data`, unchanged.
    public func serialize(_ data: Data) throws -> Data { data }
}

/// Hands each piece over as UTF-8 text (a character split across two pieces is replaced in both).
public struct StringStreamSerializer: DataStreamSerializer {
    /// The serializer.
    public init() {}

    /// The piece read as UTF-8, invalid bytes replaced.
    public func serialize(_ data: Data) throws -> String { String(decoding: data, as: UTF8.self) }
}

extension DataStreamSerializer {
    /// A ``DecodableStreamSerializer`` of `type`.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type, decoder: any DataDecoder = JSONDecoder(), dataPreprocessor: any DataPreprocessor = PassthroughPreprocessor()
    ) -> Self where Self == DecodableStreamSerializer<T> {
        DecodableStreamSerializer<T>(decoder: decoder, dataPreprocessor: dataPreprocessor)
    }
}

extension DataStreamSerializer where Self == PassthroughStreamSerializer {
    /// A ``PassthroughStreamSerializer``.
    public static var passthrough: PassthroughStreamSerializer { PassthroughStreamSerializer() }
}

extension DataStreamSerializer where Self == StringStreamSerializer {
    /// A ``StringStreamSerializer``.
    public static var string: StringStreamSerializer { StringStreamSerializer() }
}
