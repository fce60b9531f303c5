import Foundation
import HTTPTypes
import Synchronization
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The network's events, turned into protocol-client calls on the simulator's thread. corelibs
// turns each call into a delegate block synchronously, and the session's operation queue puts the
// block on the client's simulated queue: the client sees everything in simulation order.

/// The network's view of the harness.
final class HarnessSink: ExchangeSink, @unchecked Sendable {
    // @unchecked Sendable: `harness` is set once, in init; a weak reference is a `var` by necessity.

    /// Weak: the network may outlive the harness; its exchanges then go nowhere.
    weak var harness: Harness?

    init(harness: Harness) {
        self.harness = harness
    }

    func exchange(_ id: Int, didReceive head: ResponseHead, url: URL) -> Bool {
        harness?.deliverHead(id, head: head, url: url) ?? false
    }

    func exchange(_ id: Int, didReceive data: Data) -> Bool {
        harness?.deliverData(id, data: data) ?? false
    }

    func exchange(_ id: Int, didFinish end: ExchangeEnd) {
        harness?.deliverFinish(id, end)
    }

    func exchange(
        _ id: Int, willRedirect head: ResponseHead, from url: URL, to proposed: RequestSnapshot,
        decide: @escaping @Sendable (RedirectDecision) -> Void
    ) {
        harness?.askRedirect(id, head: head, from: url, to: proposed, decide: decide)
    }
}

extension Harness {
    /// The link, its protocol and task, if the client can still take callbacks for network
    /// exchange `id`. Looks at the task first: a cancel or suspend the client made meanwhile is
    /// noticed here, before anything reaches a task URLSession may have let go of. The caller
    /// delivers, then calls `link.deliveries.leave()`.
    func deliverable(_ id: Int) -> (link: ExchangeLink, urlProtocol: BridgeProtocol, task: URLSessionTask)? {
        guard let link = state.withLock({ $0.byNetworkID[id] }), case .running = link.lifecycle.state,
              let urlProtocol = link.urlProtocol, let task = link.task else { return nil }
        // The session's queue first, then the look at the task: the bookkeeping of a cancel the
        // client made on its own thread is done by then, so the look sees the cancel. A cancel
        // after the look waits for the delivery: corelibs calls the protocol's stopLoading before
        // it lets go of the task, and stopLoading waits for the link's deliveries under way (see
        // ``DeliveryGate``) — without that, corelibs trapped on a task gone from its registry.
        waitForSessionBookkeeping(task)
        link.deliveries.enter()
        let seen = observed(task, for: link)
        handle(.taskSeen(seen), for: link)
        guard seen == .running else {
            link.deliveries.leave()
            return nil
        }
        return (link, urlProtocol, task)
    }

    func deliverHead(_ id: Int, head: ResponseHead, url: URL) -> Bool {
        guard let (link, urlProtocol, task) = deliverable(id) else { return false }
        defer { link.deliveries.leave() }
        deliverUploadProgress(link: link, task: task)
        let before = link.session.simulatorBlockCount
        link.buffered = Data()
        storeCookies(of: head, from: url, configuration: link.session.configuration)
        urlProtocol.client?.urlProtocol(urlProtocol, didReceive: Self.unchallenged(head).httpURLResponse(url: url), cacheStoragePolicy: .notAllowed)
        if task is URLSessionDownloadTask {
            // Never in pieces: corelibs traps on `didLoad` for a download task (it ends refused).
            link.bodyInOnePiece = true
        } else if let foreign = link.foreign {
            // The client's own queue: we cannot count its blocks, so ask its delegate instead.
            link.bodyInOnePiece = !foreign.takesChunks
        } else {
            // No delegate block for the response: the task has a completion handler (or no data
            // delegate), and corelibs would keep only the last chunk; deliver the body in one piece.
            link.bodyInOnePiece = link.session.simulatorBlockCount == before
        }
        return true
    }

    /// The name a `401`'s Basic or Digest challenge is delivered under on swift-corelibs-foundation.
    public static let challengeFieldName = "X-Tapedeck-WWW-Authenticate"

    /// `head` as the client's URLSession can take it in. corelibs never finishes a task whose
    /// `401` carries a `Basic` or `Digest` challenge (`WWW-Authenticate`) — with no delegate, or
    /// when the delegate gives the default answer, it waits forever; declined, the task ends
    /// cancelled without the response; answered with a credential, it sends the request again
    /// through its own HTTP loader, off the simulated network. So there the challenge goes to the
    /// client under ``challengeFieldName``: the 401 and its body arrive as recorded. Any other
    /// head (and any head on Apple platforms) is unchanged.
    static func unchallenged(_ head: ResponseHead) -> ResponseHead {
        #if canImport(FoundationNetworking)
        guard head.status == 401, let value = head.headerFields[.wwwAuthenticate] else { return head }
        let scheme = value.trimmingCharacters(in: .whitespaces).prefix { !$0.isWhitespace && $0 != "," }.lowercased()
        guard scheme == "basic" || scheme == "digest", let renamed = HTTPField.Name(challengeFieldName) else { return head }
        var head = head
        let challenges = head.headerFields[fields: .wwwAuthenticate]
        head.headerFields[.wwwAuthenticate] = nil
        for challenge in challenges { head.headerFields.append(HTTPField(name: renamed, value: challenge.value)) }
        return head
        #else
        return head
        #endif
    }

    func deliverData(_ id: Int, data: Data) -> Bool {
        guard let (link, urlProtocol, _) = deliverable(id) else { return false }
        defer { link.deliveries.leave() }
        if link.bodyInOnePiece {
            link.buffered.append(data)
        } else {
            urlProtocol.client?.urlProtocol(urlProtocol, didLoad: data)
        }
        return true
    }

    func deliverFinish(_ id: Int, _ end: ExchangeEnd) {
        let (failure, metrics, delivery) = (end.failure, end.metrics, end.delivery)
        guard let (link, urlProtocol, task) = deliverable(id) else {
            // Cancelled meanwhile: the exchange is over, so keep its metrics for the cancel path.
            if let link = state.withLock({ $0.byNetworkID[id] }) {
                link.cancelMetrics = AbandonedExchange(metrics: metrics, delivery: delivery)
            }
            return
        }
        defer { link.deliveries.leave() }
        if delivery == .beforeCompletion || delivery == .duplicate {
            deliverMetrics(metrics, link: link, task: task)
        }
        markCompletionHanded(link)
        if let failure {
            urlProtocol.client?.urlProtocol(urlProtocol, didFailWithError: failure.urlError(for: urlProtocol.request.url))
        } else if let refusal = Self.downloadRefusal(task, url: urlProtocol.request.url) {
            urlProtocol.client?.urlProtocol(urlProtocol, didFailWithError: refusal)
        } else {
            if link.bodyInOnePiece && !link.buffered.isEmpty {
                urlProtocol.client?.urlProtocol(urlProtocol, didLoad: link.buffered)
                link.buffered = Data()
            }
            urlProtocol.client?.urlProtocolDidFinishLoading(urlProtocol)
        }
        if end.duplicatesCompletion {
            deliverDuplicateCompletion(link: link, task: task)
        }
        if delivery == .afterCompletion || delivery == .duplicate {
            deliverMetrics(metrics, link: link, task: task)
        }
        handle(.finished, for: link)
        finish(link)
    }

    /// The error a download task gets instead of its completion on swift-corelibs-foundation:
    /// there a download finishing through a custom URLProtocol traps, as corelibs looks for a
    /// temporary file only its own HTTP loader writes. Nil for any other task, and on Apple
    /// platforms, where download tasks finish normally.
    static func downloadRefusal(_ task: URLSessionTask, url: URL?) -> URLError? {
        #if canImport(FoundationNetworking)
        guard task is URLSessionDownloadTask else { return nil }
        return URLError.bridge(.unsupportedURL, "tapedeck: a download task cannot finish through a URLProtocol on Linux's Foundation "
            + "(it would crash the process); use a data task (data(for:), dataTask) and write the data to a file", url: url)
        #else
        return nil
        #endif
    }

    /// A fault: the client's delegate hears of the completion a second time (corelibs never does
    /// this; a transport bug a client should survive). Only a task delegate can be told.
    private func deliverDuplicateCompletion(link: ExchangeLink, task: URLSessionTask) {
        if let foreign = link.foreign {
            let context = UncheckedSendable((foreign: foreign, task: task))
            deliverToForeignClient(foreign) {
                let (foreign, task) = context.value
                if let delegate = foreign.delegate, let session = foreign.session {
                    delegate.urlSession(session, task: task, didCompleteWithError: nil)
                }
            }
            return
        }
        let context = UncheckedSendable((delegate: link.session.delegate as? any URLSessionTaskDelegate, session: link.session.session, task: task))
        link.session.deliverToClient(named: "tapedeck.duplicate-completion") {
            let (delegate, session, task) = context.value
            if let delegate, let session {
                delegate.urlSession(session, task: task, didCompleteWithError: nil)
            }
        }
    }

    func askRedirect(
        _ id: Int, head: ResponseHead, from url: URL, to proposed: RequestSnapshot,
        decide: @escaping @Sendable (RedirectDecision) -> Void
    ) {
        guard let (link, _, task) = deliverable(id) else { return }
        defer { link.deliveries.leave() }
        // The hop's cookies are stored before anyone decides, as libcurl's header callback does.
        storeCookies(of: head, from: url, configuration: link.session.configuration)
        if let foreign = link.foreign {
            askForeignRedirect(link, foreign: foreign, task: task, response: head.httpURLResponse(url: url), proposed: proposed, decide: decide)
            return
        }
        guard let delegate = link.session.delegate as? any URLSessionTaskDelegate, let session = link.session.session else {
            // No delegate to ask: URLSession follows, with the cookies stored for the new URL.
            decide(.follow(withStoredCookies(proposed, configuration: link.session.configuration)))
            return
        }
        let response = head.httpURLResponse(url: url)
        let context = UncheckedSendable((delegate: delegate, session: session, task: task, response: response))
        let once = OnceFlag()
        link.session.deliverToClient(named: "urlsession.redirect") {
            let (delegate, session, task, response) = context.value
            delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: proposed.urlRequest()) { next in
                guard once.claim() else { return }   // a second answer is ignored
                decide(next.map { .follow(RequestSnapshot($0)) } ?? .stop)
            }
        }
    }

    /// Tells the client's delegate its request body was sent, as corelibs' own loader tells a
    /// delegate-driven task while it uploads
    /// (`urlSession(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)`): once, the
    /// whole body, when the response head arrives — the simulated network sends a body in one go,
    /// and a head means the server had it. A custom protocol has no way to tell corelibs itself,
    /// so the harness calls the delegate on its queue, ahead of the head. As corelibs, it tells
    /// nobody for a task with a completion handler or made by an async method (corelibs would
    /// tell an async method's own task delegate; that one is not reachable here), and nothing is
    /// queued when there is no task delegate to tell.
    private func deliverUploadProgress(link: ExchangeLink, task: URLSessionTask) {
        guard !link.uploadReported, let body = link.body, !body.isEmpty else { return }
        link.uploadReported = true
        let sent = Int64(body.count)
        if let foreign = link.foreign {
            guard !foreign.hasCompletionHandler, !foreign.completesInline, let delegate = foreign.delegate, let session = foreign.session else { return }
            let context = UncheckedSendable((delegate: delegate, session: session, task: task))
            deliverToForeignClient(foreign) {
                let (delegate, session, task) = context.value
                Self.tellSent(sent, to: delegate, session: session, task: task)
            }
            return
        }
        guard let delegate = link.session.delegate as? any URLSessionTaskDelegate, let session = link.session.session,
              !TaskIntrospection.completesInline(task), TaskIntrospection.hasCompletionHandler(task, in: session) == false else { return }
        let context = UncheckedSendable((delegate: delegate, session: session, task: task))
        link.session.deliverToClient(named: "tapedeck.upload-progress") {
            let (delegate, session, task) = context.value
            Self.tellSent(sent, to: delegate, session: session, task: task)
        }
    }

    private static func tellSent(_ sent: Int64, to delegate: any URLSessionTaskDelegate, session: URLSession, task: URLSessionTask) {
        #if canImport(FoundationNetworking)
        delegate.urlSession(session, task: task, didSendBodyData: sent, totalBytesSent: sent, totalBytesExpectedToSend: sent)
        #else
        delegate.urlSession?(session, task: task, didSendBodyData: sent, totalBytesSent: sent, totalBytesExpectedToSend: sent)
        #endif
    }

    /// Enqueues the metrics callback on the client's queue (and logs it when it runs).
    func deliverMetrics(_ metrics: TransferMetrics, link: ExchangeLink, task: URLSessionTask) {
        if let foreign = link.foreign {
            // Logged now, on the simulator's thread: the client's queue runs at its own pace.
            state.withLock { $0.deliveredMetrics.append((link.number, metrics)) }
            let context = UncheckedSendable((foreign: foreign, task: task))
            deliverToForeignClient(foreign) {
                let (foreign, task) = context.value
                if let delegate = foreign.delegate as? any TransferMetricsDelegate, let session = foreign.session {
                    delegate.urlSession(session, task: task, didCollect: metrics)
                }
            }
            return
        }
        let context = UncheckedSendable((
            delegate: link.session.delegate as? any TransferMetricsDelegate, session: link.session.session, task: task))
        let exchange = link.number
        link.session.deliverToClient(named: "tapedeck.metrics") { [self] in
            let (delegate, session, task) = context.value
            state.withLock { $0.deliveredMetrics.append((exchange, metrics)) }
            if let delegate, let session {
                delegate.urlSession(session, task: task, didCollect: metrics)
            }
        }
    }
}

/// Waits until URLSession's own queue has done what it was asked to do so far.
///
/// corelibs adds a task to its session's registry (and removes finished ones) asynchronously on
/// the session's work queue, but a protocol-client call reads that registry on the caller's thread.
/// Without this barrier a delivery can race with an insertion and corelibs traps ("Trying to access
/// a behaviour for a task that in not in the registry"). All such insertions and removals are
/// queued from the simulator's thread, so one sync onto the work queue before delivering is enough.
/// The task's `priority` getter is the public way to run a sync on that queue (the task's queue
/// targets the session's).
@inline(__always)
func waitForSessionBookkeeping(_ task: URLSessionTask?) {
    #if canImport(FoundationNetworking)
    _ = task?.priority
    #endif
}
