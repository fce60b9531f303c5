#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

// Alamofire's `.af` extension point, so that `URLSessionConfiguration.af.default` and extensions
// user code wrote on it keep compiling; and the `headers` views of a configuration and a response.

/// The `.af` namespace of a type: `URLSessionConfiguration.af.default`. User code may add its own
/// members with `extension AlamofireExtension where ExtendedType == …`.
public struct AlamofireExtension<ExtendedType> {
    /// The value (or metatype) being extended.
    public private(set) var type: ExtendedType

    /// A namespace over `type`.
    public init(_ type: ExtendedType) {
        self.type = type
    }
}

/// A type with an `.af` namespace (``AlamofireExtension``), static and per instance.
public protocol AlamofireExtended {
    /// The type being extended.
    associatedtype ExtendedType

    /// The static namespace: `URLSessionConfiguration.af`.
    static var af: AlamofireExtension<ExtendedType>.Type { get set }
    /// The instance namespace.
    var af: AlamofireExtension<ExtendedType> { get set }
}

extension AlamofireExtended {
    /// The static namespace (setting it does nothing; it exists so that `mutating` extensions work).
    public static var af: AlamofireExtension<Self>.Type {
        get { AlamofireExtension<Self>.self }
        set {}
    }

    /// The instance namespace (setting it does nothing; it exists so that `mutating` extensions work).
    public var af: AlamofireExtension<Self> {
        get { AlamofireExtension(self) }
        set {}
    }
}

extension URLSessionConfiguration: AlamofireExtended {}

extension AlamofireExtension where ExtendedType: URLSessionConfiguration {
    /// `URLSessionConfiguration.default` with ``HTTPHeaders/default`` (Accept-Encoding,
    /// Accept-Language, User-Agent) as additional headers, as Alamofire's. This is the default of
    /// `Session(configuration:…)`.
    ///
    /// ```swift
    /// let configuration = URLSessionConfiguration.af.default
    /// configuration.timeoutIntervalForRequest = 10
    /// let session = Session(configuration: configuration)
    /// ```
    public static var `default`: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.headers = .default
        return configuration
    }

    /// `URLSessionConfiguration.ephemeral` with ``HTTPHeaders/default`` as additional headers.
    public static var ephemeral: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.headers = .default
        return configuration
    }
}

extension URLSessionConfiguration {
    /// The configuration's `httpAdditionalHeaders` as ``HTTPHeaders`` (sorted by name when read,
    /// since the underlying dictionary has no order).
    public var headers: HTTPHeaders {
        get { (httpAdditionalHeaders as? [String: String]).map(HTTPHeaders.init) ?? HTTPHeaders() }
        set { httpAdditionalHeaders = newValue.dictionary }
    }
}

extension HTTPURLResponse {
    /// The response's header fields as ``HTTPHeaders`` (sorted by name, since the underlying
    /// dictionary has no order).
    public var headers: HTTPHeaders {
        (allHeaderFields as? [String: String]).map(HTTPHeaders.init) ?? HTTPHeaders()
    }
}

extension URLRequestConvertible {
    /// The URLRequest, or nil when building it throws (the error is dropped).
    public var urlRequest: URLRequest? { try? asURLRequest() }
}
