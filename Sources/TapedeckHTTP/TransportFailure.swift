public import Foundation

/// A transport-level outcome other than a response: what a real network would make URLSession
/// report as a `URLError`.
///
/// A public struct over a private code, so adding a case never breaks a caller's `switch`.
public struct TransportFailure: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case urlError(Int)
        case noRoute(String)
    }

    let code: Code
    /// What the recording said about the failure (e.g. Chromium's `net::ERR_ABORTED`), kept in
    /// the error's description.
    public let detail: String?
    /// The whole description, as the real transport words it (nil: Tapedeck's name for the code).
    let message: String?

    init(code: Code, detail: String? = nil, message: String? = nil) {
        self.code = code
        self.detail = detail
        self.message = message
    }

    /// The host refused the connection (`URLError.cannotConnectToHost`).
    public static let cannotConnectToHost = TransportFailure(code: .urlError(URLError.cannotConnectToHost.rawValue))
    /// DNS found no such host (`URLError.cannotFindHost`).
    public static let cannotFindHost = TransportFailure(code: .urlError(URLError.cannotFindHost.rawValue))
    /// The device is offline (`URLError.notConnectedToInternet`).
    public static let notConnectedToInternet = TransportFailure(code: .urlError(URLError.notConnectedToInternet.rawValue))
    /// The connection dropped mid-exchange (`URLError.networkConnectionLost`).
    public static let networkConnectionLost = TransportFailure(code: .urlError(URLError.networkConnectionLost.rawValue))
    /// No bytes within the timeout (`URLError.timedOut`).
    public static let timedOut = TransportFailure(code: .urlError(URLError.timedOut.rawValue))
    /// The client cancelled (`URLError.cancelled`).
    public static let cancelled = TransportFailure(code: .urlError(URLError.cancelled.rawValue))
    /// The server's answer could not be understood (`URLError.badServerResponse`).
    public static let badServerResponse = TransportFailure(code: .urlError(URLError.badServerResponse.rawValue))
    /// A compressed body could not be decoded (`URLError.cannotDecodeContentData`).
    public static let cannotDecodeContentData = TransportFailure(code: .urlError(URLError.cannotDecodeContentData.rawValue))

    /// Any other `URLError` code; `detail` (what a recording said) goes into the description.
    public static func urlError(_ code: URLError.Code, detail: String? = nil) -> TransportFailure {
        TransportFailure(code: .urlError(code.rawValue), detail: detail)
    }

    /// A `URLError` whose description is `message`, worded as the real transport words it (e.g.
    /// libcurl's "transfer closed with 50 bytes remaining to read" for a body cut short).
    public static func urlError(_ code: URLError.Code, message: String) -> TransportFailure {
        TransportFailure(code: .urlError(code.rawValue), message: message)
    }

    /// A body that ended `remaining` bytes short of its Content-Length, as URLSession on Linux
    /// reports it: `URLError.unknown` with libcurl's words.
    public static func transferClosed(remaining: Int) -> TransportFailure {
        .urlError(.unknown, message: "transfer closed with \(remaining) bytes remaining to read")
    }

    /// A compressed body that does not inflate, as URLSession on Linux reports it: `URLError.unknown`
    /// with libcurl's words (Darwin says `cannotDecodeContentData`).
    public static func contentDecodingFailed(_ reason: String) -> TransportFailure {
        .urlError(.unknown, message: "Error while processing content unencoding: \(reason)")
    }

    /// The simulated network has no route for the request; `reason` names the request and what was tried.
    public static func noRoute(_ reason: String) -> TransportFailure {
        TransportFailure(code: .noRoute(reason))
    }

    /// The `URLError` code a URLSession client receives (`unsupportedURL` for a missing route).
    public var urlErrorCode: URLError.Code {
        switch code {
        case let .urlError(raw): return URLError.Code(rawValue: raw) ?? .unknown
        case .noRoute: return .unsupportedURL
        }
    }

    /// True when the simulated network had no route for the request.
    public var isNoRoute: Bool {
        if case .noRoute = code { return true }
        return false
    }

    /// The error a URLSession client receives: a `URLError` whose description says what happened.
    public func urlError(for url: URL?) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        return URLError(urlErrorCode, userInfo: info)
    }

    /// The failure's name (for a URLError code) or why no route matched, and any recorded detail.
    public var description: String {
        switch code {
        case let .noRoute(reason):
            return "tapedeck: no route: \(reason)"
        case let .urlError(raw):
            if let message { return message }
            let name = TransportFailure.names[raw] ?? "URLError \(raw)"
            return "tapedeck: \(name)" + (detail.map { " (recorded: \($0))" } ?? "")
        }
    }

    /// The failure as a trace records it: ``description``, but for a missing route without its
    /// reason — which names files of this machine (a cassette's path) — so that a trace, and its
    /// hash, is the same on any checkout.
    public var traceText: String {
        isNoRoute ? "tapedeck: no route" : description
    }

    private static let names: [Int: String] = [
        URLError.cannotConnectToHost.rawValue: "cannot connect to host",
        URLError.cannotFindHost.rawValue: "cannot find host",
        URLError.notConnectedToInternet.rawValue: "not connected to the internet",
        URLError.networkConnectionLost.rawValue: "network connection lost",
        URLError.timedOut.rawValue: "timed out",
        URLError.cancelled.rawValue: "cancelled",
        URLError.badServerResponse.rawValue: "bad server response",
        URLError.cannotDecodeContentData.rawValue: "cannot decode content data",
        URLError.httpTooManyRedirects.rawValue: "too many redirects",
        URLError.redirectToNonExistentLocation.rawValue: "redirect to a non-existent location",
        URLError.secureConnectionFailed.rawValue: "secure connection failed",
        URLError.dnsLookupFailed.rawValue: "DNS lookup failed",
        URLError.resourceUnavailable.rawValue: "resource unavailable",
        URLError.badURL.rawValue: "bad URL",
        URLError.unsupportedURL.rawValue: "unsupported URL",
    ]
}
