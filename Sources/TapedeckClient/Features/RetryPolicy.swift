public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
import TapedeckHTTP

/// Retries idempotent requests that failed with a listed status code or URLError, with exponential
/// backoff: delay = base ^ retryCount × scale (0.5 s, 1 s, 2 s, ... with the defaults). The delay
/// runs on the Session's scheduler, so under simulation a minute of backoff costs no wall time.
///
/// ```swift
/// let session = Session(provider: harness, scheduler: scheduler,
///                       interceptor: RetryPolicy(retryLimit: 3, retryableHTTPStatusCodes: [503]))
/// // A 503 is retried after 0.5 s, 1 s and 2 s of virtual time, then delivered.
/// ```
open class RetryPolicy: RequestInterceptor, @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable; subclasses must keep it that way.

    /// Two retries.
    public static let defaultRetryLimit: UInt = 2
    /// Delays grow as powers of 2.
    public static let defaultExponentialBackoffBase: UInt = 2
    /// Half a second for the first retry.
    public static let defaultExponentialBackoffScale: Double = 0.5
    /// The idempotent methods: DELETE, GET, HEAD, OPTIONS, PUT, TRACE.
    public static let defaultRetryableHTTPMethods: Set<HTTPMethod> = [.delete, .get, .head, .options, .put, .trace]
    /// 408, 500, 502, 503 and 504.
    public static let defaultRetryableHTTPStatusCodes: Set<Int> = [408, 500, 502, 503, 504]
    /// The URLError codes of transient failures (lost connections, timeouts, DNS, TLS dates, …).
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .backgroundSessionInUseByAnotherProcess, .backgroundSessionWasDisconnected, .badServerResponse,
        .callIsActive, .cannotConnectToHost, .cannotFindHost, .cannotLoadFromNetwork, .dataNotAllowed,
        .dnsLookupFailed, .downloadDecodingFailedMidStream, .downloadDecodingFailedToComplete,
        .internationalRoamingOff, .networkConnectionLost, .notConnectedToInternet,
        .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateNotYetValid, .timedOut,
    ]

    /// How many retries a request gets.
    public let retryLimit: UInt
    /// The base of the exponential backoff (at least 2).
    public let exponentialBackoffBase: UInt
    /// The delay of the first retry, in seconds; later ones are multiplied by the base.
    public let exponentialBackoffScale: Double
    /// Methods that may be retried.
    public let retryableHTTPMethods: Set<HTTPMethod>
    /// Status codes that call for a retry.
    public let retryableHTTPStatusCodes: Set<Int>
    /// URLError codes that call for a retry.
    public let retryableURLErrorCodes: Set<URLError.Code>
    /// Wait what the response's `Retry-After` says, when it says it, instead of the backoff
    /// (Tapedeck's opt-in; Alamofire ignores `Retry-After`). Whole seconds are taken as they are
    /// (a value that is not digits only, such as `1.5`, is ignored: the backoff applies); an HTTP
    /// date is measured from the response's `Date` (without one, the backoff applies).
    public let honoursRetryAfter: Bool
    /// The longest `Retry-After` wait honoured, in seconds (with ``honoursRetryAfter``). A response
    /// asking for longer is not retried: it is delivered as it came, as an app gives up on a server
    /// that says "come back tomorrow" rather than holding the request for a day.
    public let retryAfterLimit: TimeInterval
    /// An hour.
    public static let defaultRetryAfterLimit: TimeInterval = 3_600

    /// A policy; every parameter defaults to the static `default…` value.
    public init(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods,
        retryableHTTPStatusCodes: Set<Int> = RetryPolicy.defaultRetryableHTTPStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes,
        honoursRetryAfter: Bool = false,
        retryAfterLimit: TimeInterval = RetryPolicy.defaultRetryAfterLimit
    ) {
        precondition(exponentialBackoffBase >= 2, "The exponentialBackoffBase must be a minimum of 2.")
        self.honoursRetryAfter = honoursRetryAfter
        self.retryAfterLimit = retryAfterLimit
        self.retryLimit = retryLimit
        self.exponentialBackoffBase = exponentialBackoffBase
        self.exponentialBackoffScale = exponentialBackoffScale
        self.retryableHTTPMethods = retryableHTTPMethods
        self.retryableHTTPStatusCodes = retryableHTTPStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
    }

    /// `.retryWithDelay(base ^ retryCount × scale)` while ``retryLimit`` is not reached and
    /// ``shouldRetry(request:dueTo:)`` says yes; otherwise `.doNotRetry`. With
    /// ``honoursRetryAfter``, the wait `Retry-After` asks for instead of the backoff, or
    /// `.doNotRetry` when that is longer than ``retryAfterLimit``.
    @preconcurrency
    open func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        if request.retryCount < retryLimit, shouldRetry(request: request, dueTo: error) {
            let backoff = pow(Double(exponentialBackoffBase), Double(request.retryCount)) * exponentialBackoffScale
            let asked = honoursRetryAfter ? request.response.flatMap(Self.retryAfter) : nil
            if let asked, asked > retryAfterLimit {
                completion(.doNotRetry)
                return
            }
            completion(.retryWithDelay(asked ?? backoff))
        } else {
            completion(.doNotRetry)
        }
    }

    /// Whether `request` may be retried: its (last, adapted) method is idempotent, and its last
    /// response has a listed status (whatever the error), or the error carries a listed URLError.
    open func shouldRetry(request: Request, dueTo error: any Error) -> Bool {
        guard let method = request.request?.method, retryableHTTPMethods.contains(method) else { return false }
        if let status = request.response?.statusCode, retryableHTTPStatusCodes.contains(status) { return true }
        let code = (error as? URLError)?.code ?? (error.asClientError?.underlyingError as? URLError)?.code
        guard let code else { return false }
        return retryableURLErrorCodes.contains(code)
    }
}

extension RetryPolicy {
    /// The wait a response's `Retry-After` asks for, in seconds: a whole number of seconds
    /// (RFC 9110's `delay-seconds`, digits only), or an HTTP date measured from the response's
    /// `Date`. Nil when there is none or it cannot be read — `1.5`, `-1` or `3s` included, which
    /// are neither (clients that read the field parse an integer and drop anything else); infinite
    /// for digits past an `Int` (longer than any ``retryAfterLimit``).
    public static func retryAfter(_ response: HTTPURLResponse) -> TimeInterval? {
        guard let value = response.value(forHTTPHeaderField: "Retry-After")?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            return nil
        }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Digits only; a number too long for an Int asks for longer than any limit.
            return Int(value).map(TimeInterval.init) ?? .infinity
        }
        guard let date = HTTPDate.date(from: value), let sent = response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.date(from:)) else {
            return nil
        }
        return max(0, date.timeIntervalSince(sent))
    }
}

/// A RetryPolicy for dropped connections only (`URLError.networkConnectionLost`), no status codes.
open class ConnectionLostRetryPolicy: RetryPolicy, @unchecked Sendable {
    // @unchecked Sendable: as RetryPolicy — it adds no stored state.
    /// A policy retrying `networkConnectionLost` only.
    public init(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods
    ) {
        super.init(
            retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
            exponentialBackoffScale: exponentialBackoffScale, retryableHTTPMethods: retryableHTTPMethods,
            retryableHTTPStatusCodes: [], retryableURLErrorCodes: [.networkConnectionLost])
    }
}

extension RequestInterceptor where Self == RetryPolicy {
    /// A ``RetryPolicy`` with the defaults.
    public static var retryPolicy: RetryPolicy { RetryPolicy() }

    /// A ``RetryPolicy`` with these settings.
    public static func retryPolicy(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods,
        retryableHTTPStatusCodes: Set<Int> = RetryPolicy.defaultRetryableHTTPStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes
    ) -> RetryPolicy {
        RetryPolicy(
            retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
            exponentialBackoffScale: exponentialBackoffScale, retryableHTTPMethods: retryableHTTPMethods,
            retryableHTTPStatusCodes: retryableHTTPStatusCodes, retryableURLErrorCodes: retryableURLErrorCodes)
    }
}

extension RequestInterceptor where Self == ConnectionLostRetryPolicy {
    /// A ``ConnectionLostRetryPolicy`` with the defaults.
    public static var connectionLostRetryPolicy: ConnectionLostRetryPolicy { ConnectionLostRetryPolicy() }
}
