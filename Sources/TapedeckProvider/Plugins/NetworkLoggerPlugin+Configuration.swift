public import Foundation

extension NetworkLoggerPlugin {
    /// How a ``NetworkLoggerPlugin`` logs (Moya's `NetworkLoggerPlugin.Configuration`).
    ///
    /// ```swift
    /// let configuration = NetworkLoggerPlugin.Configuration(
    ///     formatter: .init(responseData: { data in String(decoding: data, as: UTF8.self) }),
    ///     output: { target, entries in entries.forEach { print("[\(target.path)]", $0) } },
    ///     logOptions: .verbose)
    /// ```
    public struct Configuration: Sendable {
        /// Receives a hook's entries, in order, with the request's target.
        public typealias OutputType = @Sendable (_ target: any TargetType, _ items: [String]) -> Void

        /// How entries and bodies become text.
        public var formatter: Formatter
        /// Where entries go.
        public var output: OutputType
        /// Which parts are logged.
        public var logOptions: LogOptions

        /// A configuration (defaults: the default formatter, the console, method and header fields).
        @preconcurrency
        public init(formatter: Formatter = Formatter(), output: @escaping OutputType = defaultOutput, logOptions: LogOptions = .default) {
            self.formatter = formatter
            self.output = output
            self.logOptions = logOptions
        }

        /// Prints each entry on a line of its own (Moya's default output).
        public static func defaultOutput(target: any TargetType, items: [String]) {
            for item in items { print(item) }
        }
    }
}

extension NetworkLoggerPlugin.Configuration {
    /// Which parts of requests and responses are logged.
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

    /// How entries and bodies become text.
    public struct Formatter: Sendable {
        /// A body as text.
        public typealias DataFormatterType = @Sendable (Data) -> String
        /// An entry from its identifier (`Request`, `Response Body`, …), its message and the target.
        public typealias EntryFormatterType = @Sendable (_ identifier: String, _ message: String, _ target: any TargetType) -> String

        /// Makes an entry.
        public var entry: EntryFormatterType
        /// Makes the text of a request body.
        public var requestData: DataFormatterType
        /// Makes the text of a response body.
        public var responseData: DataFormatterType

        /// A formatter (defaults: `identifier: message`, bodies as UTF-8).
        @preconcurrency
        public init(
            entry: @escaping EntryFormatterType = defaultEntryFormatter, requestData: @escaping DataFormatterType = defaultDataFormatter,
            responseData: @escaping DataFormatterType = defaultDataFormatter
        ) {
            self.entry = entry
            self.requestData = requestData
            self.responseData = responseData
        }

        /// The body as UTF-8 text, or `(42 bytes, not UTF-8)`.
        public static func defaultDataFormatter(_ data: Data) -> String {
            String(data: data, encoding: .utf8) ?? "(\(data.count) bytes, not UTF-8)"
        }

        /// `identifier: message` (Moya's default adds a `Moya_Logger: [date]` prefix; no clock here).
        public static func defaultEntryFormatter(identifier: String, message: String, target: any TargetType) -> String {
            "\(identifier): \(message)"
        }
    }
}
