public import Foundation
public import HTTPTypes
public import TapedeckScheduling

/// What a task's transfer took, on the scheduler's timeline: the project's own stand-in for
/// `URLSessionTaskMetrics` (which corelibs can neither fill nor let anyone build with data).
public struct TransferMetrics: Hashable, Sendable, CustomStringConvertible {
    /// One per request sent: the original one, then one per followed redirect.
    public var transactions: [TransactionMetrics]
    public var taskStart: VirtualInstant
    public var taskEnd: VirtualInstant

    public init(transactions: [TransactionMetrics], taskStart: VirtualInstant, taskEnd: VirtualInstant) {
        self.transactions = transactions
        self.taskStart = taskStart
        self.taskEnd = taskEnd
    }

    /// Redirects followed.
    public var redirectCount: Int { max(0, transactions.count - 1) }

    public var taskDuration: Duration { taskStart.duration(to: taskEnd) }

    public var description: String {
        let hops = transactions.map { "\($0.method.rawValue) \($0.url.absoluteString) → \($0.status.map(String.init) ?? "no response")" }
        return "\(taskDuration) [\(hops.joined(separator: "; "))]"
    }
}

/// One request/response pair of a task.
public struct TransactionMetrics: Hashable, Sendable {
    public var method: HTTPRequest.Method
    public var url: URL
    /// The response status (nil when the transaction failed before a response).
    public var status: Int?
    public var fetchStart: VirtualInstant
    /// Nil when no connection was set up (a reused connection, or a failure before it).
    public var connectStart: VirtualInstant?
    public var connectEnd: VirtualInstant?
    public var requestStart: VirtualInstant?
    public var requestEnd: VirtualInstant?
    public var responseStart: VirtualInstant?
    public var responseEnd: VirtualInstant?
    /// Request body bytes sent.
    public var bytesSent: Int
    /// Response body bytes received, as on the wire.
    public var bytesReceived: Int

    public init(method: HTTPRequest.Method, url: URL, fetchStart: VirtualInstant) {
        self.method = method
        self.url = url
        self.fetchStart = fetchStart
        self.bytesSent = 0
        self.bytesReceived = 0
    }
}
