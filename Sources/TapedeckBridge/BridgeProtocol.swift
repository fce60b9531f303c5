import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLProtocol of a harness-made session. It never blocks and never calls its client from
/// URLSession's threads: it reports to the harness, which acts on the simulator's thread.
class BridgeProtocol: URLProtocol {
    // corelibs calls init, startLoading and stopLoading on its own threads; the only state,
    // `exchange`, is written once in init and only read afterwards.

    class var slot: Int { preconditionFailure("tapedeck: BridgeProtocol is used through its slotted subclasses") }

    private(set) var exchange: ExchangeLink?

    override class func canInit(with request: URLRequest) -> Bool {
        let scheme = request.url?.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    required init(request: URLRequest, cachedResponse: CachedURLResponse?, client: (any URLProtocolClient)?) {
        super.init(request: request, cachedResponse: cachedResponse, client: client)
        // corelibs creates the protocol synchronously inside task.resume() (or cancel()), on the
        // caller's thread: the deterministic moment to number the exchange and expect startLoading.
        exchange = ProtocolSlots.link(for: Self.slot)?.protocolCreated(self)
    }

    override func startLoading() {
        guard let exchange, let harness = exchange.session.harness else {
            let what = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "?")"
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "tapedeck: \(what) was started after its harness (and its tape) was gone",
            ]))
            return
        }
        if exchange.rejected {
            // Set under the harness's lock before this protocol was handed to corelibs.
            client?.urlProtocol(self, didFailWithError: URLError.bridge(.resourceUnavailable,
                "tapedeck: \(exchange.summary) was started after the tape finished or its simulation ended (the harness was closed); start every request before then",
                url: request.url))
            return
        }
        harness.protocolStarted(exchange, request: request)
    }

    override func stopLoading() {
        // corelibs lets go of the task after this returns: not while the bridge delivers to it.
        exchange?.deliveries.waitForDeliveries()
        guard let exchange, let harness = exchange.session.harness else { return }
        harness.protocolStopped(exchange, task: task)
    }
}

extension URLError {
    /// A URLError the bridge reports, as URLSession would make it: a description, and the
    /// failing URL under `NSURLErrorFailingURLErrorKey` when there is one (a URL, not an optional).
    static func bridge(_ code: URLError.Code, _ description: String, url: URL?) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        return URLError(code, userInfo: info)
    }
}
