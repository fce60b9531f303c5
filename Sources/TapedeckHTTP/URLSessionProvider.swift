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
public protocol URLSessionProvider: Sendable {
    /// What sessions from this provider promise (metrics or not).
    var profile: TransportProfile { get }

    /// A URLSession whose delegate callbacks (and completion handlers) run on `delegateQueue`.
    func makeURLSession(
        configuration: URLSessionConfiguration, delegate: any URLSessionDelegate, delegateQueue: any SchedulerQueue
    ) -> URLSession

    /// Cancels `task` so that the transport knows first (the simulated harness needs this; live
    /// URLSession just cancels).
    func cancel(_ task: URLSessionTask)
}

extension URLSessionProvider {
    public func cancel(_ task: URLSessionTask) {
        task.cancel()
    }
}

/// Real URLSessions: the delegate queue is an `OperationQueue` whose underlying queue is the
/// live queue's `DispatchQueue`, as Alamofire's Session builds it.
public struct LiveURLSessionProvider: URLSessionProvider {
    public init() {}

    public var profile: TransportProfile {
        // corelibs never delivers metrics; on Darwin, URLSessionTaskMetrics are not converted to
        // TransferMetrics yet, so no platform promises them here.
        .corelibsURLSession
    }

    public func makeURLSession(
        configuration: URLSessionConfiguration, delegate: any URLSessionDelegate, delegateQueue: any SchedulerQueue
    ) -> URLSession {
        guard let live = delegateQueue as? LiveQueue else {
            preconditionFailure("tapedeck: LiveURLSessionProvider needs a queue of a LiveScheduler, got '\(delegateQueue.label)'")
        }
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 1
        operations.underlyingQueue = live.dispatchQueue
        operations.name = "\(live.label).sessionDelegate"
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: operations)
    }
}
