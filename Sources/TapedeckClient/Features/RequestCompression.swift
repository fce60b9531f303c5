public import Foundation
import TapedeckHTTP

/// Compresses a request's body with deflate before it is sent (Alamofire's
/// `DeflateRequestCompressor`): the body becomes a zlib stream (RFC 1950, what
/// `Content-Encoding: deflate` means) and the request says `Content-Encoding: deflate`. Only a body
/// held as data (`httpBody`) is compressed; a streamed one is sent as it is.
///
/// ```swift
/// let session = Session(interceptor: .deflateCompressor)
/// session.request("https://api.example.com/events", method: .post, parameters: events, encoder: JSONParameterEncoder.default)
/// // the body goes out deflated, with Content-Encoding: deflate
/// ```
public struct DeflateRequestCompressor: RequestInterceptor, Sendable {
    /// What to do when the request already names a `Content-Encoding`.
    public enum DuplicateHeaderBehavior: Sendable {
        /// Fail the request with ``DuplicateHeaderError`` (wrapped in `AFError.requestAdaptationFailed`).
        case error
        /// Compress the body anyway and replace the field.
        case replace
        /// Leave the request as it is.
        case skip
    }

    /// The error for a request that already names a `Content-Encoding` under ``DuplicateHeaderBehavior/error``.
    public struct DuplicateHeaderError: Error, Sendable {}

    /// What happens to a request that already names a `Content-Encoding`.
    public let duplicateHeaderBehavior: DuplicateHeaderBehavior
    /// Whether a body is compressed (every body, unless told otherwise).
    public let shouldCompressBodyData: @Sendable (_ bodyData: Data) -> Bool

    /// A compressor; `shouldCompressBodyData` may skip small bodies, say.
    public init(duplicateHeaderBehavior: DuplicateHeaderBehavior = .error,
                shouldCompressBodyData: @escaping @Sendable (_ bodyData: Data) -> Bool = { _ in true }) {
        self.duplicateHeaderBehavior = duplicateHeaderBehavior
        self.shouldCompressBodyData = shouldCompressBodyData
    }

    /// The request with its body deflated and `Content-Encoding: deflate`, as the behaviours say.
    public func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        guard let body = urlRequest.httpBody, shouldCompressBodyData(body) else {
            completion(.success(urlRequest))
            return
        }
        if urlRequest.value(forHTTPHeaderField: "Content-Encoding") != nil {
            switch duplicateHeaderBehavior {
            case .error:
                completion(.failure(DuplicateHeaderError()))
                return
            case .skip:
                completion(.success(urlRequest))
                return
            case .replace:
                break
            }
        }
        var compressed = urlRequest
        do {
            compressed.httpBody = try Zlib.compress(body, format: .zlib)
        } catch {
            completion(.failure(error))
            return
        }
        compressed.setValue("deflate", forHTTPHeaderField: "Content-Encoding")
        completion(.success(compressed))
    }
}

extension RequestInterceptor where Self == DeflateRequestCompressor {
    /// A ``DeflateRequestCompressor`` with the default behaviours.
    public static var deflateCompressor: DeflateRequestCompressor { DeflateRequestCompressor() }

    /// A ``DeflateRequestCompressor`` with these behaviours.
    public static func deflateCompressor(duplicateHeaderBehavior: DeflateRequestCompressor.DuplicateHeaderBehavior = .error,
                                         shouldCompressBodyData: @escaping @Sendable (_ bodyData: Data) -> Bool = { _ in true })
        -> DeflateRequestCompressor {
        DeflateRequestCompressor(duplicateHeaderBehavior: duplicateHeaderBehavior, shouldCompressBodyData: shouldCompressBodyData)
    }
}

/// What Alamofire says about itself (`AFInfo`): the version of Alamofire's API this client follows,
/// for the `User-Agent` strings apps build from it.
///
/// ```swift
/// let agent = "MyApp/2.1 Alamofire/\(AFInfo.version)"   // "MyApp/2.1 Alamofire/5.12.0"
/// ```
public enum AFInfo {
    /// The Alamofire version whose API and behaviour this client matches.
    public static let version = "5.12.0"
}
