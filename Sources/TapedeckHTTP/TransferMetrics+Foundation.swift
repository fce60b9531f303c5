public import Foundation
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// The `URLSessionTaskMetrics` names code written for Alamofire reads (`metrics.taskInterval.duration`,
// `transactionMetrics.last?.responseEndDate`), on the simulation's timeline: a virtual instant is
// a date counted from ``TransferMetrics/referenceDate``, the same in every run.

extension TransferMetrics {
    /// The date virtual time zero stands for in these metrics' dates (2026-01-01T00:00:00Z; the
    /// scenario runner dates its responses from it too).
    public static let referenceDate = Date(timeIntervalSince1970: 1_767_225_600)

    /// `instant` as a date counted from ``referenceDate``.
    ///
    /// ```swift
    /// TransferMetrics.date(VirtualInstant.zero.advanced(by: .seconds(2)))   // 2026-01-01T00:00:02Z
    /// ```
    public static func date(_ instant: VirtualInstant) -> Date {
        referenceDate.addingTimeInterval(VirtualInstant.zero.duration(to: instant).timeInterval)
    }

    /// From task start to task end, as `URLSessionTaskMetrics.taskInterval` gives it.
    public var taskInterval: DateInterval {
        DateInterval(start: Self.date(taskStart), duration: max(0, taskDuration.timeInterval))
    }

    /// The transactions, by `URLSessionTaskMetrics`' name for them.
    public var transactionMetrics: [TransactionMetrics] { transactions }
}

extension TransactionMetrics {
    /// When the transaction began (`URLSessionTaskTransactionMetrics`' name).
    public var fetchStartDate: Date? { TransferMetrics.date(fetchStart) }
    /// When the connection began (nil: none was set up).
    public var connectStartDate: Date? { connectStart.map(TransferMetrics.date) }
    /// When the connection was set up (nil: none was).
    public var connectEndDate: Date? { connectEnd.map(TransferMetrics.date) }
    /// When the request started going out.
    public var requestStartDate: Date? { requestStart.map(TransferMetrics.date) }
    /// When the request was sent.
    public var requestEndDate: Date? { requestEnd.map(TransferMetrics.date) }
    /// When the first response byte came.
    public var responseStartDate: Date? { responseStart.map(TransferMetrics.date) }
    /// When the last response byte came.
    public var responseEndDate: Date? { responseEnd.map(TransferMetrics.date) }
    /// Request body bytes sent.
    public var countOfRequestBodyBytesSent: Int64 { Int64(bytesSent) }
    /// Response body bytes received, as on the wire.
    public var countOfResponseBodyBytesReceived: Int64 { Int64(bytesReceived) }
    /// The protocol the simulated network speaks.
    public var networkProtocolName: String? { "http/1.1" }
    /// Whether the transaction used a connection set up before it (no connect phase of its own).
    public var isReusedConnection: Bool { connectStart == nil && requestStart != nil }
    /// Never: the simulated network has no proxies.
    public var isProxyConnection: Bool { false }
    /// The request the transaction sent (its method and URL).
    public var request: URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        return request
    }
    /// The response's status as an `HTTPURLResponse` (no header fields), nil when none came.
    public var response: URLResponse? {
        status.flatMap { HTTPURLResponse(url: url, statusCode: $0, httpVersion: "HTTP/1.1", headerFields: nil) }
    }
}
