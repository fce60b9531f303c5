public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The body as `Data`.
public final class DataResponseSerializer: ResponseSerializer {
    /// What is done to the data first.
    public let dataPreprocessor: any DataPreprocessor
    /// Status codes for which an empty body is fine.
    public let emptyResponseCodes: Set<Int>
    /// Methods for which an empty body is fine.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// A serializer returning the (preprocessed) body.
    public init(
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// The body; an allowed empty body is empty `Data`.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> Data {
        guard let data = try nonEmptyData(request: request, response: response, data: data, error: error) else { return Data() }
        return try dataPreprocessor.preprocess(data)
    }
}

/// The body as a `String`, in the response's charset (UTF-8 when it names none, or the given encoding).
public final class StringResponseSerializer: ResponseSerializer {
    /// What is done to the data first.
    public let dataPreprocessor: any DataPreprocessor
    /// The encoding to use (nil: the response's charset, else UTF-8).
    public let encoding: String.Encoding?
    /// Status codes for which an empty body is fine.
    public let emptyResponseCodes: Set<Int>
    /// Methods for which an empty body is fine.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// A serializer decoding text with `encoding`.
    public init(
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor, encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.encoding = encoding
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// The body as text; an allowed empty body is "".
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> String {
        guard let raw = try nonEmptyData(request: request, response: response, data: data, error: error) else { return "" }
        let data = try dataPreprocessor.preprocess(raw)
        let chosen = encoding ?? Self.encoding(named: response?.textEncodingName) ?? .utf8
        guard let string = String(data: data, encoding: chosen) else {
            throw ClientError.responseSerializationFailed(reason: .stringSerializationFailed(encoding: chosen))
        }
        return string
    }

    static func encoding(named name: String?) -> String.Encoding? {
        switch name?.lowercased() {
        case "utf-8", "utf8": return .utf8
        case "iso-8859-1", "latin1": return .isoLatin1
        case "us-ascii", "ascii": return .ascii
        case "utf-16": return .utf16
        default: return nil
        }
    }
}

/// The body as a ``ClientJSON`` value; an allowed empty body is `.null`.
public final class JSONResponseSerializer: ResponseSerializer {
    /// What it produces through ``ResponseSerializer`` (a value that crosses queues).
    public typealias SerializedObject = ClientJSON

    /// What is done to the data first.
    public let dataPreprocessor: any DataPreprocessor
    /// Status codes for which an empty body is fine.
    public let emptyResponseCodes: Set<Int>
    /// Methods for which an empty body is fine.
    public let emptyRequestMethods: Set<HTTPMethod>
    /// `JSONSerialization`'s options for the `Any` form of `serialize` (`.allowFragments` by
    /// default, as Alamofire's); the ``ClientJSON`` form always allows fragments.
    public let options: JSONSerialization.ReadingOptions

    /// A serializer producing ``ClientJSON`` (and, called directly, Foundation's objects).
    public init(
        dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods,
        options: JSONSerialization.ReadingOptions = .allowFragments
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
        self.options = options
    }

    /// The body as ``ClientJSON``; an allowed empty body is ``ClientJSON/null``. What the
    /// session's handlers get (`responseDecodable(of: ClientJSON.self)`, a generic serializer's
    /// caller); a direct call without a type asked for gets the `Any` form instead.
    @_disfavoredOverload
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> ClientJSON {
        guard let raw = try nonEmptyData(request: request, response: response, data: data, error: error) else { return .null }
        let data = try dataPreprocessor.preprocess(raw)
        do {
            return try JSONDecoder().decode(ClientJSON.self, from: data)
        } catch {
            throw ClientError.responseSerializationFailed(reason: .jsonSerializationFailed(error: error))
        }
    }

    /// The body as Alamofire's serializer returns it: `JSONSerialization`'s objects (`[String:
    /// Any]`, `[Any]`, `String`, `NSNumber`, `NSNull`; an allowed empty body is `NSNull`). An app's
    /// own serializer wrapping this one (SwiftyJSON's `JSON(json)`, an `as? [String: Any]`) gets
    /// what it got from Alamofire. Not Sendable: use it on the queue that called it.
    ///
    /// ```swift
    /// let json = try JSONResponseSerializer().serialize(request: nil, response: response, data: data, error: nil)
    /// let name = (json as? [String: Any])?["name"] as? String
    /// ```
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> Any {
        guard let raw = try nonEmptyData(request: request, response: response, data: data, error: error) else { return NSNull() }
        let data = try dataPreprocessor.preprocess(raw)
        do {
            return try JSONSerialization.jsonObject(with: data, options: options)
        } catch {
            throw ClientError.responseSerializationFailed(reason: .jsonSerializationFailed(error: error))
        }
    }
}

/// The body decoded by a ``DataDecoder`` (a `JSONDecoder` by default).
public final class DecodableResponseSerializer<T: Decodable & Sendable>: ResponseSerializer {
    /// What is done to the data first.
    public let dataPreprocessor: any DataPreprocessor
    /// The decoder used.
    public let decoder: any DataDecoder
    /// Status codes for which an empty body is fine.
    public let emptyResponseCodes: Set<Int>
    /// Methods for which an empty body is fine.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// A serializer decoding with `decoder`.
    public init(
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.decoder = decoder
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// The body decoded as `T`; an allowed empty body is `T.emptyValue()` when `T` is an
    /// ``EmptyResponse``, else an error. A decoder's error is a decoding failure; a preprocessor's
    /// is thrown as it is.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> T {
        guard let data = try nonEmptyData(request: request, response: response, data: data, error: error) else {
            guard let empty = T.self as? any EmptyResponse.Type, let value = empty.emptyValue() as? T else {
                throw ClientError.responseSerializationFailed(reason: .invalidEmptyResponse(type: "\(T.self)"))
            }
            return value
        }
        // As Alamofire: the preprocessor's error is its own (the request reports it as a
        // custom serialization failure, a ClientError as it is), only the decoder's is a
        // decoding failure.
        let preprocessed = try dataPreprocessor.preprocess(data)
        do {
            return try decoder.decode(T.self, from: preprocessed)
        } catch {
            throw ClientError.responseSerializationFailed(reason: .decodingFailed(error: error))
        }
    }
}

extension DataResponseSerializerProtocol where Self == DataResponseSerializer {
    /// A ``DataResponseSerializer`` with the defaults.
    public static var data: DataResponseSerializer { DataResponseSerializer() }

    /// A ``DataResponseSerializer`` with these settings.
    public static func data(
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DataResponseSerializer {
        DataResponseSerializer(dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods)
    }
}

extension DataResponseSerializerProtocol where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer`` with the defaults.
    public static var string: StringResponseSerializer { StringResponseSerializer() }

    /// A ``StringResponseSerializer`` with these settings.
    public static func string(
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor, encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> StringResponseSerializer {
        StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods)
    }
}

extension DataResponseSerializerProtocol {
    /// A ``DecodableResponseSerializer`` for `type` with these settings.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type, dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> Self where Self == DecodableResponseSerializer<T> {
        DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods)
    }
}
