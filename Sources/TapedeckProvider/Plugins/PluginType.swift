public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Hooks around every request of a provider, called in this order for each caller's result:
/// ``prepare(_:target:)`` (may change the URLRequest) → ``willSend(_:target:)`` → ``didReceive(_:target:)``
/// → ``process(_:target:)`` (may change the result). Plugins run in the order the provider lists them;
/// `process` folds, each plugin seeing the previous one's output.
///
/// Where they run: `prepare` and `willSend` on the session's `requestQueue`, inside the request's
/// adaptation (once per attempt, after the session's own adapters) — for stubs too;
/// `didReceive` and `process` on the callback queue. All four have do-nothing defaults.
///
/// Plugins are `Sendable` (their hooks run on the session's queues); the protocol is
/// `@preconcurrency`, so a plugin class with mutable state — as Moya code has — compiles silently in
/// the Swift 5 language mode and with a warning in Swift 6's. Its state is then the app's to guard.
///
/// ```swift
/// final class RequestCounter: PluginType {
///     let count = Mutex(0)   // Synchronization
///     func willSend(_ request: any RequestType, target: any TargetType) {
///         count.withLock { $0 += 1 }
///     }
/// }
/// ```
@preconcurrency
public protocol PluginType: Sendable {
    /// The request to send, changed if the plugin wants (headers, tokens, timeouts).
    func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest
    /// Called with the prepared request just before it is sent (or stubbed).
    func willSend(_ request: any RequestType, target: any TargetType)
    /// Called once with the result of the request, before any caller's `process`.
    func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType)
    /// The result the caller will see, changed if the plugin wants.
    func process(_ result: Result<Response, ProviderError>, target: any TargetType) -> Result<Response, ProviderError>
}

extension PluginType {
    /// Returns `request` unchanged.
    public func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest { request }
    /// Does nothing.
    public func willSend(_ request: any RequestType, target: any TargetType) {}
    /// Does nothing.
    public func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) {}
    /// Returns `result` unchanged.
    public func process(_ result: Result<Response, ProviderError>, target: any TargetType) -> Result<Response, ProviderError> { result }
}

/// What ``PluginType/willSend(_:target:)`` sees of the request about to be sent.
public protocol RequestType: Sendable {
    /// The prepared URLRequest (after every plugin's `prepare`).
    var request: URLRequest? { get }
    /// The header fields the URLSession adds to every request (its configuration's `httpAdditionalHeaders`).
    var sessionHeaders: [String: String] { get }
    /// The session's identifier of the request (what its event monitors see; nil for a stub).
    var requestID: UUID? { get }
}

extension RequestType {
    /// The request as a `curl` command line: method, session and request header fields (sorted by
    /// name), body, URL. Deterministic, so it can be compared in tests.
    public func cURLDescription() -> String {
        guard let request, let url = request.url else { return "$ curl command could not be created" }
        var parts = ["$ curl -v", "-X \(request.httpMethod ?? "GET")"]
        let fields = sessionHeaders.merging(request.allHTTPHeaderFields ?? [:]) { _, request in request }
        for (name, value) in fields.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            parts.append("-H \"\(name): \(value.replacingOccurrences(of: "\"", with: "\\\""))\"")
        }
        if let body = request.httpBody, let text = String(data: body, encoding: .utf8) {
            parts.append("-d \"\(text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"")
        }
        parts.append("\"\(url.absoluteString)\"")
        return parts.joined(separator: " \\\n\t")
    }

    /// Moya's form: hands ``cURLDescription()`` to `handler` — at once (the request is made by the
    /// time a plugin sees it) — and returns this request.
    @discardableResult
    public func cURLDescription(calling handler: (String) -> Void) -> Self {
        handler(cURLDescription())
        return self
    }
}

/// The request a plugin's `willSend` receives.
struct PreparedRequest: RequestType, @unchecked Sendable {
    // @unchecked Sendable: immutable values (URLRequest is not marked Sendable on every platform).
    let request: URLRequest?
    let sessionHeaders: [String: String]
    let requestID: UUID?
}
