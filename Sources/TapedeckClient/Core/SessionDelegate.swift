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

    /// Kept for subclasses written for Alamofire, which hands it the `FileManager` for downloads
    /// (downloads here run as data tasks whose bytes the request itself writes out).
    public let fileManager: FileManager

    /// A delegate; the Session that owns it connects itself. `fileManager` is Alamofire's
    /// parameter, so `super.init(fileManager:)` in a subclass compiles.
    public init(fileManager: FileManager = .default) {
        self.fileManager = fileManager
    }

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
        let request = self.request(for: dataTask)
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.allow)
            return
        }
        guard let request else {
            completionHandler(.allow)
            return
        }
        request.didReceiveResponse(http) { completion.value($0) }
    }

    /// Appends the bytes to the request's data (a download's: to what its file will hold; a
    /// stream's: to its handlers) — once an `onHTTPResponse` handler let the response through.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        eventMonitor?.urlSession(session, dataTask: dataTask, didReceive: data)
        guard let request = self.request(for: dataTask) else { return }
        request.afterResponseAnswered(isBody: true) {
            if let dataRequest = request as? DataRequest {
                dataRequest.didReceive(data: data)
            } else if let stream = request as? DataStreamRequest {
                stream.didReceive(data: data)
            } else {
                (request as? DownloadRequest)?.didReceive(data: data)
            }
        }
    }

    /// Records the bytes an upload task sent (URLSession's own transports report them).
    open func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                         totalBytesExpectedToSend: Int64) {
        eventMonitor?.urlSession(session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                                 totalBytesExpectedToSend: totalBytesExpectedToSend)
        request(for: task)?.updateUploadProgress(totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    /// Hands a streamed upload its stream (URLSession asks for it on its own transports).
    open func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping (InputStream?) -> Void) {
        eventMonitor?.urlSession(session, taskNeedsNewBodyStream: task)
        guard case let .stream(stream)? = (request(for: task) as? UploadRequest)?.uploadable else {
            completionHandler(nil)
            return
        }
        completionHandler(stream)
    }

    // MARK: callbacks a subclass written for Alamofire may override

    /// Authentication challenges, as Alamofire answers them: an HTTP challenge (Basic, Digest…)
    /// gets the request's credential (``Request/authenticate(with:)``) the first time, and is
    /// rejected after a failure with it; anything else — server trust, or no credential — gets
    /// URLSession's default handling. The simulated transport never sends challenges.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                         completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let httpMethods = [NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
                           NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate]
        guard httpMethods.contains(challenge.protectionSpace.authenticationMethod), let credential = request(for: task)?.credential else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        guard challenge.previousFailureCount == 0 else {
            completionHandler(.rejectProtectionSpace, nil)
            return
        }
        completionHandler(.useCredential, credential)
    }

    /// A task waits for connectivity: nothing to do here (no transport of ours reports it).
    open func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {}

    /// URLSession's own metrics type: corelibs never delivers it, and the simulated transport sends
    /// `TransferMetrics` through ``urlSession(_:task:didCollect:)`` instead.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {}

    /// Caching: the request's `cacheResponse(using:)` handler decides, else the session's, else
    /// the proposed response is stored as URLSession would without a delegate.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
                         completionHandler: @escaping (CachedURLResponse?) -> Void) {
        eventMonitor?.urlSession(session, dataTask: dataTask, willCacheResponse: proposedResponse)
        guard let handler = request(for: dataTask)?.cachedResponseHandler ?? self.session?.cachedResponseHandler else {
            completionHandler(proposedResponse)
            return
        }
        let completion = UncheckedSendable(completionHandler)
        handler.dataTask(dataTask, willCacheResponse: proposedResponse) { completion.value($0) }
    }
}
