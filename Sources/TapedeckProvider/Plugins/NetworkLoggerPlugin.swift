public import Logging
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logs requests (`willSend`) and responses (`didReceive`), configured as Moya's is: a
/// ``Configuration`` says which parts are written (``Configuration/LogOptions``), how each entry
/// and body is formatted (``Configuration/Formatter``) and where the entries go (the `output`
/// closure; by default the console, as in Moya).
///
/// ```swift
/// let plugin = NetworkLoggerPlugin(configuration: .init(logOptions: .verbose))
/// let quiet = NetworkLoggerPlugin(logger: Logger(label: "api"), level: .debug)   // swift-log instead
/// ```
///
/// Entries carry no timestamps or addresses (Moya's default entry has the date; a log handler
/// adds its own), so the same run logs the same text.
///
/// A `final class`, as Moya's is, so an app may make one and adjust it afterwards
/// (`logger.configuration.logOptions = .verbose`); a change applies to the requests whose hooks
/// run after it.
public final class NetworkLoggerPlugin: PluginType, Sendable {
    /// What the plugin writes (``Configuration/LogOptions``).
    public typealias LogOptions = Configuration.LogOptions

    private let storedConfiguration: Mutex<Configuration>

    /// How it logs; settable, as in Moya (each hook reads it once, when it runs).
    public var configuration: Configuration {
        get { storedConfiguration.withLock { $0 } }
        set { storedConfiguration.withLock { $0 = newValue } }
    }

    /// A plugin logging as `configuration` says (default: method and header fields, to the console).
    public init(configuration: Configuration = Configuration()) {
        storedConfiguration = Mutex(configuration)
    }

    /// A plugin writing `options` to a swift-log `logger` at `level`, one log message per entry.
    public convenience init(logger: Logger, level: Logger.Level = .info, options: LogOptions = .default) {
        self.init(configuration: Configuration(
            output: { _, entries in
                for entry in entries { logger.log(level: level, "\(entry)") }
            },
            logOptions: options))
    }

    /// Method and header fields, to the console (Moya's `NetworkLoggerPlugin.default`).
    public static var `default`: NetworkLoggerPlugin { NetworkLoggerPlugin(configuration: Configuration(logOptions: .default)) }

    /// Method, header fields, request body and response bodies, to the console (Moya's `NetworkLoggerPlugin.verbose`).
    public static var verbose: NetworkLoggerPlugin { NetworkLoggerPlugin(configuration: Configuration(logOptions: .verbose)) }

    /// Logs the request about to be sent: the URL, then header fields, method and body as the
    /// options say — or, with ``Configuration/LogOptions/formatRequestAscURL``, a `curl` command.
    public func willSend(_ request: any RequestType, target: any TargetType) {
        let configuration = self.configuration
        let options = configuration.logOptions
        let formatter = configuration.formatter
        var entries: [String] = []
        defer { configuration.output(target, entries) }
        guard let urlRequest = request.request else {
            entries.append(formatter.entry("Request", "\(target) (no request could be made)", target))
            return
        }
        if options.contains(.formatRequestAscURL) {
            entries.append(formatter.entry("Request", request.cURLDescription(), target))
            return
        }
        entries.append(formatter.entry("Request", urlRequest.url?.absoluteString ?? "?", target))
        if options.contains(.requestHeaders) {
            let fields = request.sessionHeaders.merging(urlRequest.allHTTPHeaderFields ?? [:]) { _, request in request }
            let text = fields.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            entries.append(formatter.entry("Request Headers", "[\(text)]", target))
        }
        if options.contains(.requestMethod) {
            entries.append(formatter.entry("HTTP Request Method", urlRequest.httpMethod ?? "GET", target))
        }
        if options.contains(.requestBody), let body = urlRequest.httpBody {
            entries.append(formatter.entry("Request Body", formatter.requestData(body), target))
        }
    }

    /// Logs the response (its body as the options say), or the error.
    public func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) {
        let configuration = self.configuration
        let options = configuration.logOptions
        let formatter = configuration.formatter
        var entries: [String] = []
        switch result {
        case let .success(response):
            entries += responseEntries(response, target: target, formatter: formatter, body: options.contains(.successResponseBody))
        case let .failure(error):
            if let response = error.response {
                entries += responseEntries(response, target: target, formatter: formatter, body: options.contains(.errorResponseBody))
                entries.append(formatter.entry("Error", "\(error)", target))
            } else {
                entries.append(formatter.entry("Error calling \(target)", "\(error)", target))
            }
        }
        configuration.output(target, entries)
    }

    private func responseEntries(_ response: Response, target: any TargetType, formatter: Configuration.Formatter,
                                 body: Bool) -> [String] {
        let url = response.request?.url?.absoluteString ?? "\(target)"
        var entries = [formatter.entry("Response", "\(response.statusCode) \(url)", target)]
        if body { entries.append(formatter.entry("Response Body", formatter.responseData(response.data), target)) }
        return entries
    }
}
