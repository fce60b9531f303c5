public import Foundation
public import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The URLSession delegate of a Session: turns URLSession's callbacks (on the rootQueue) into
/// request events, and receives synthesised metrics through `TransferMetricsDelegate`.
open class SessionDelegate: NSObject, URLSessionDataDelegate, TransferMetricsDelegate, @unchecked Sendable {
    // @unchecked Sendable: `session` and `eventMonitor` are set once by the Session's initialiser;
    // every callback runs on the Session's rootQueue.
    weak var session: Session?
    var eventMonitor: CompositeEventMonitor?

    /// A delegate; the Session that owns it connects itself.
    public override init() {}

    private func request(for task: URLSessionTask) -> Request? {
        session?.request(for: task)
    }

    /// Tells the monitors; a Session whose URLSession is invalidated finishes its requests.
    open func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        eventMonitor?.urlSession(session, didBecomeInvalidWithError: error)
        self.session?.didInvalidate(error: error)
    }

    /// Asks the request's redirect handler, else the session's, else follows.
    open func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                         newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        eventMonitor?.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request)
        let handler = self.request(for: task)?.redirectHandler ?? self.session?.redirectHandler
        guard let handler else {
            completionHandler(request)
            return
        }
        let completion = UncheckedSendable(completionHandler)
        handler.task(task, willBeRedirectedTo: request, for: response) { completion.value($0) }
    }

    /// Hands synthesised metrics to the request's task ledger.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didCollect metrics: TransferMetrics) {
        eventMonitor?.urlSession(session, task: task, didFinishCollecting: metrics)
        self.session?.didGatherMetrics(metrics, for: task)
    }

    /// Hands the completion to the request's task ledger.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        eventMonitor?.urlSession(session, task: task, didCompleteWithError: error)
        let clientError = error.map { $0.asClientError(orFailWith: { .sessionTaskFailed(error: $0) }) }
        self.session?.didCompleteTask(task, error: clientError)
    }

    /// Hands the response head to the request, which answers whether to go on (allow) or cancel.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                         completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        eventMonitor?.urlSession(session, dataTask: dataTask, didReceive: response)
        let completion = UncheckedSendable(completionHandler)
        guard let request = self.request(for: dataTask) as? DataRequest, let http = response as? HTTPURLResponse else {
            completionHandler(.allow)
            return
        }
        request.didReceiveResponse(http) { completion.value($0) }
    }

    /// Appends the bytes to the request's data.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        eventMonitor?.urlSession(session, dataTask: dataTask, didReceive: data)
        (self.request(for: dataTask) as? DataRequest)?.didReceive(data: data)
    }
}
