/// A fault site: a kind of fault from the catalogue, where it may strike (requests, attempts,
/// exchanges, a window of virtual time), and how likely it is. As FoundationDB's BUGGIFY does, a
/// site is first enabled or not for the whole run (`enabledPerMille`, drawn from the seed), then
/// an enabled site fires at each occurrence with `probabilityPerMille` (drawn from the seed too).
public struct FaultSite: Hashable, Sendable {
    /// Its name (unique in the scenario): in timelines, outcomes and schedules.
    public var name: String
    /// What it does when it fires.
    public var kind: FaultKind
    /// Requests it may strike (nil: any).
    public var pattern: RequestPattern?
    /// Attempt numbers it may strike (1: a request's first attempt; nil: any).
    public var attempts: IntegerSet?
    /// Exchange numbers it may strike (in the order tasks started; nil: any).
    public var exchanges: IntegerSet?
    /// Only from this virtual instant on (inclusive; nil: from the start).
    public var from: Duration?
    /// Only before this virtual instant (exclusive; nil: to the end).
    public var until: Duration?
    /// Per-mille chance to fire at each occurrence (1000: always).
    public var probabilityPerMille: Int
    /// Per-mille chance that the site is enabled for a given seed (1000: always).
    public var enabledPerMille: Int

    /// A site that always fires on every request.
    public init(name: String, kind: FaultKind, pattern: RequestPattern? = nil, attempts: IntegerSet? = nil, exchanges: IntegerSet? = nil,
                from: Duration? = nil, until: Duration? = nil, probabilityPerMille: Int = 1_000, enabledPerMille: Int = 1_000) {
        self.name = name
        self.kind = kind
        self.pattern = pattern
        self.attempts = attempts
        self.exchanges = exchanges
        self.from = from
        self.until = until
        self.probabilityPerMille = probabilityPerMille
        self.enabledPerMille = enabledPerMille
    }
}

/// The fault catalogue.
public enum FaultKind: Hashable, Sendable {
    /// Extra wait before the response head: `delay` plus up to `jitter` (drawn from the seed) —
    /// latency, or a slow first byte.
    case latency(delay: Duration, jitter: Duration)
    /// The response's body arrives at this many bytes per second.
    case bandwidth(bytesPerSecond: Int)
    /// The exchange never continues: only the client's timeout ends it.
    case stall
    /// The connection is refused (`URLError.cannotConnectToHost`).
    case refused
    /// DNS finds no host (`URLError.cannotFindHost`).
    case hostNotFound
    /// The device is offline (`URLError.notConnectedToInternet`).
    case notConnected
    /// The connection drops before the response (`URLError.networkConnectionLost`).
    case connectionLost
    /// The connection drops after this many body bytes, which are delivered first.
    case reset(afterBytes: Int)
    /// The body stops after this many bytes, short of its Content-Length (libcurl's error).
    case truncate(afterBytes: Int)
    /// The body arrives as corrupt gzip (the decode error URLSession on Linux reports).
    case corruptGzip
    /// The response's status is replaced, and header fields added: `Retry-After` in seconds
    /// (`retryAfter`) or as an HTTP date that far ahead of the response's `Date` (`retryAfterDate`).
    case status(Int, headers: [Header], retryAfter: Duration?, retryAfterDate: Duration?)
    /// Metrics reach the client before or after the completion, not at all, or twice.
    case metrics(MetricsOrder)
    /// The client's completion callback arrives twice.
    case duplicateCompletion
    /// Every token the token server issued so far stops being valid at this instant.
    case tokenExpiry(at: Duration)

    /// How metrics reach the client.
    public enum MetricsOrder: String, Hashable, Sendable, CaseIterable {
        /// Before the completion callback, as URLSession delivers them.
        case before
        /// After the completion callback (the client must wait for them or go without).
        case after
        /// Never (the completion must not wait forever).
        case missing
        /// Twice (the client must use them once).
        case duplicate
    }

    /// Whether this is a reset or a truncation at or past the end of a body of `bodyBytes` bytes,
    /// or a corrupt gzip of an answer with no body (a 204, a 304, an answer to HEAD: nothing to
    /// corrupt), which changes nothing: no firing, and the sites after it are still tried (in a
    /// scenario run and in `tapedeck serve` alike). False when the length is unknown.
    ///
    /// ```swift
    /// FaultKind.truncate(afterBytes: 100).cutsNothing(ofBody: 100)   // true
    /// FaultKind.corruptGzip.cutsNothing(ofBody: 0)                   // true
    /// ```
    public func cutsNothing(ofBody bodyBytes: Int?) -> Bool {
        guard let bodyBytes else { return false }
        switch self {
        case let .reset(bytes), let .truncate(bytes): return bytes >= bodyBytes
        case .corruptGzip: return bodyBytes == 0
        default: return false
        }
    }

    /// The kind's name in files and timelines.
    public var name: String {
        switch self {
        case .latency: return "latency"
        case .bandwidth: return "bandwidth"
        case .stall: return "stall"
        case .refused: return "refused"
        case .hostNotFound: return "hostNotFound"
        case .notConnected: return "notConnected"
        case .connectionLost: return "connectionLost"
        case .reset: return "reset"
        case .truncate: return "truncate"
        case .corruptGzip: return "corruptGzip"
        case .status: return "status"
        case .metrics: return "metrics"
        case .duplicateCompletion: return "duplicateCompletion"
        case .tokenExpiry: return "tokenExpiry"
        }
    }

    /// The kind's name with what it was given, for a log line: `latency 2s ± 500ms`,
    /// `reset after 1000 bytes`, `status 503, Retry-After 2s`.
    public var summary: String {
        switch self {
        case let .latency(delay, jitter): return "latency \(delay.compactText)" + (jitter > .zero ? " ± \(jitter.compactText)" : "")
        case let .bandwidth(rate): return "bandwidth \(rate) bytes/s"
        case let .reset(bytes): return "reset after \(bytes) bytes"
        case let .truncate(bytes): return "truncate after \(bytes) bytes"
        case let .status(code, headers, retryAfter, retryAfterDate):
            var parts = ["status \(code)"]
            if let retryAfter { parts.append("Retry-After \(retryAfter.compactText)") }
            if let retryAfterDate { parts.append("Retry-After a date \(retryAfterDate.compactText) ahead") }
            if !headers.isEmpty { parts.append(headers.map(\.name).joined(separator: ", ")) }
            return parts.joined(separator: ", ")
        case let .metrics(order): return "metrics \(order.rawValue)"
        case let .tokenExpiry(at): return "tokenExpiry at \(at.compactText)"
        default: return name
        }
    }

    /// Every kind's name, as files spell them.
    public static let names = ["latency", "slowFirstByte", "bandwidth", "stall", "refused", "hostNotFound", "notConnected",
                               "connectionLost", "reset", "truncate", "corruptGzip", "status", "metrics", "duplicateCompletion",
                               "tokenExpiry"]
}
