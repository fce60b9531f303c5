public import Logging
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logs requests (`willSend`) and responses (`didReceive`) through swift-log.
///
/// Lines carry no timestamps or addresses (a log handler adds its own), so the same run logs the
/// same text. Which parts are written is chosen by ``LogOptions``.
///
/// ```swift
/// let logger = NetworkLoggerPlugin(logger: Logger(label: "api"), options: .verbose)
/// let provider = TargetProvider<GitHub>(session: session, plugins: [logger])
/// ```
public struct NetworkLoggerPlugin: PluginType {
    /// What the plugin writes.
    public struct LogOptions: OptionSet, Hashable, Sendable {
        /// The options' bits.
        public let rawValue: Int

        /// Options from their bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// The request's method.
        public static let requestMethod = LogOptions(rawValue: 1 << 0)
        /// The request's body.
        public static let requestBody = LogOptions(rawValue: 1 << 1)
        /// The request's header fields (the session's and the request's).
        public static let requestHeaders = LogOptions(rawValue: 1 << 2)
        /// The request as a `curl` command instead (see ``RequestType/cURLDescription()``).
        public static let formatRequestAscURL = LogOptions(rawValue: 1 << 3)
        /// The body of a successful response.
        public static let successResponseBody = LogOptions(rawValue: 1 << 4)
        /// The body of a failed response.
        public static let errorResponseBody = LogOptions(rawValue: 1 << 5)

        /// Method and header fields.
        public static let `default`: LogOptions = [.requestMethod, .requestHeaders]
        /// Method, header fields, request body and response bodies.
        public static let verbose: LogOptions = [.requestMethod, .requestHeaders, .requestBody, .successResponseBody, .errorResponseBody]
    }

    /// Where lines go.
    public let logger: Logger
    /// The level they are logged at.
    public let level: Logger.Level
    /// What is written.
    public let options: LogOptions

    /// A plugin writing `options` to `logger` at `level`.
    public init(logger: Logger, level: Logger.Level = .info, options: LogOptions = .default) {
        self.logger = logger
        self.level = level
        self.options = options
    }

    /// Logs the request about to be sent.
    public func willSend(_ request: any RequestType, target: any TargetType) {
        guard let urlRequest = request.request else {
            log("Request: \(target) (no request could be made)")
            return
        }
        if options.contains(.formatRequestAscURL) {
            log("Request: \(request.cURLDescription())")
            return
        }
        log("Request: \(urlRequest.url?.absoluteString ?? "?")")
        if options.contains(.requestHeaders) {
            let fields = request.sessionHeaders.merging(urlRequest.allHTTPHeaderFields ?? [:]) { _, request in request }
            let text = fields.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            log("Request Headers: [\(text)]")
        }
        if options.contains(.requestMethod) {
            log("HTTP Request Method: \(urlRequest.httpMethod ?? "GET")")
        }
        if options.contains(.requestBody), let body = urlRequest.httpBody {
            log("Request Body: \(Self.text(body))")
        }
    }

    /// Logs the response, or the error.
    public func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) {
        switch result {
        case let .success(response):
            logResponse(response, target: target, body: options.contains(.successResponseBody))
        case let .failure(error):
            if let response = error.response {
                logResponse(response, target: target, body: options.contains(.errorResponseBody))
                log("Error: \(error)")
            } else {
                log("Error calling \(target): \(error)")
            }
        }
    }

    private func logResponse(_ response: Response, target: any TargetType, body: Bool) {
        let url = response.request?.url?.absoluteString ?? "\(target)"
        log("Response: \(response.statusCode) \(url)")
        if body { log("Response Body: \(Self.text(response.data))") }
    }

    private func log(_ line: String) {
        logger.log(level: level, "\(line)")
    }

    private static func text(_ data: Data) -> String {
        String(data: data, encoding: .utf8) ?? "(\(data.count) bytes, not UTF-8)"
    }
}
