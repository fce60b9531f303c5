public import TapedeckScheduling
import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#else
public import Foundation
#endif

/// Makes the URLSession a client uses, with the client's delegate on one of the client's queues.
///
/// This is the seam between a client (such as `TapedeckClient.Session`) and its transport: the
/// simulated harness implements it (lockstep delivery, synthesised metrics and redirects), and
/// ``LiveURLSessionProvider`` builds a real URLSession whose delegate queue runs on a live queue.
/// The client never imports either.
///
/// A provider says which kind of queue it delivers on (``DelegateQueue``): the harness needs a
/// simulated queue, the live provider a live one. A client pairs a provider with a scheduler of
/// the same kind in its types, so handing a harness a live queue does not compile.
///
/// ```swift
/// let scheduler = LiveScheduler()
/// let root = scheduler.makeQueue(label: "app.rootQueue", target: nil)
/// let session = LiveURLSessionProvider().makeURLSession(
///     configuration: .ephemeral, delegate: myDelegate, delegateQueue: root)
/// ```
public protocol URLSessionProvider<DelegateQueue>: Sendable {
    /// The kind of queue this provider's sessions deliver their callbacks on.
    associatedtype DelegateQueue: SchedulerQueue

    /// What sessions from this provider promise (metrics or not).
    var profile: TransportProfile { get }

    /// A URLSession whose delegate callbacks (and completion handlers) run on `delegateQueue`.
    func makeURLSession(
        configuration: URLSessionConfiguration, delegate: any URLSessionDelegate, delegateQueue: DelegateQueue
    ) -> URLSession

    /// Cancels `task` so that the transport knows first (the simulated harness needs this; live
    /// URLSession just cancels).
    func cancel(_ task: URLSessionTask)
}

extension URLSessionProvider {
    /// Cancels the task directly.
    public func cancel(_ task: URLSessionTask) {
        task.cancel()
    }
}

/// Real URLSessions: the delegate queue is an `OperationQueue` whose underlying queue is the
/// live queue's `DispatchQueue`, as Alamofire's Session builds it.
///
/// ```swift
/// let session = Session(provider: LiveURLSessionProvider(), scheduler: LiveScheduler())   // TapedeckClient
/// ```
public struct LiveURLSessionProvider: URLSessionProvider {
    /// A provider of real URLSessions.
    public init() {}

    /// ``TransportProfile/corelibsURLSession`` on every platform (no metrics).
    public var profile: TransportProfile {
        // corelibs never delivers metrics; on Darwin, URLSessionTaskMetrics are not converted to
        // TransferMetrics yet, so no platform promises them here.
        .corelibsURLSession
    }

    /// A real URLSession whose delegate `OperationQueue` runs on `delegateQueue`'s `DispatchQueue`.
    public func makeURLSession(
        configuration: URLSessionConfiguration, delegate: any URLSessionDelegate, delegateQueue live: LiveQueue
    ) -> URLSession {
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 1
        operations.underlyingQueue = live.dispatchQueue
        operations.name = "\(live.label).sessionDelegate"
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: operations)
    }
}
