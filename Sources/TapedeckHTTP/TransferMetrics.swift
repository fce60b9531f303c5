public import Foundation
public import HTTPTypes
public import TapedeckScheduling

/// What a task's transfer took, on the scheduler's timeline: the project's own stand-in for
/// `URLSessionTaskMetrics` (which corelibs can neither fill nor let anyone build with data).
public struct TransferMetrics: Hashable, Sendable, CustomStringConvertible {
    /// One per request sent: the original one, then one per followed redirect.
    public var transactions: [TransactionMetrics]
    /// When the task started (its first fetch).
    public var taskStart: VirtualInstant
    /// When the task ended (completion or failure).
    public var taskEnd: VirtualInstant

    /// Metrics from their parts.
    public init(transactions: [TransactionMetrics], taskStart: VirtualInstant, taskEnd: VirtualInstant) {
        self.transactions = transactions
        self.taskStart = taskStart
        self.taskEnd = taskEnd
    }

    /// Redirects followed.
    public var redirectCount: Int { max(0, transactions.count - 1) }

    /// From task start to task end.
    public var taskDuration: Duration { taskStart.duration(to: taskEnd) }

    /// The duration and each hop's method, URL and status.
    public var description: String {
        let hops = transactions.map { "\($0.method.rawValue) \($0.url.absoluteString) → \($0.status.map(String.init) ?? "no response")" }
        return "\(taskDuration) [\(hops.joined(separator: "; "))]"
    }
}

/// One request/response pair of a task.
public struct TransactionMetrics: Hashable, Sendable {
    /// The request's method.
    public var method: HTTPRequest.Method
    /// The request's URL.
    public var url: URL
    /// The response status (nil when the transaction failed before a response).
    public var status: Int?
    /// When the transaction began.
    public var fetchStart: VirtualInstant
    /// Nil when no connection was set up (a reused connection, or a failure before it).
    public var connectStart: VirtualInstant?
    /// When the connection was set up (nil: no connection was set up).
    public var connectEnd: VirtualInstant?
    /// When the request started going out (nil: it never did).
    public var requestStart: VirtualInstant?
    /// When the request was sent (nil: it never was).
    public var requestEnd: VirtualInstant?
    /// When the first response byte came (nil: none came).
    public var responseStart: VirtualInstant?
    /// When the last response byte came (nil: the response did not finish).
    public var responseEnd: VirtualInstant?
    /// Request body bytes sent.
    public var bytesSent: Int
    /// Response body bytes received, as on the wire.
    public var bytesReceived: Int

    /// A transaction that began at `fetchStart`; the other instants are filled in as it goes.
    public init(method: HTTPRequest.Method, url: URL, fetchStart: VirtualInstant) {
        self.method = method
        self.url = url
        self.fetchStart = fetchStart
        self.bytesSent = 0
        self.bytesReceived = 0
    }
}
