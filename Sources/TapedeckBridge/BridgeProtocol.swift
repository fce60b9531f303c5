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
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "tapedeck: this session's harness is gone",
            ]))
            return
        }
        harness.protocolStarted(exchange, request: request)
    }

    override func stopLoading() {
        guard let exchange, let harness = exchange.session.harness else { return }
        harness.protocolStopped(exchange, task: task)
    }
}
