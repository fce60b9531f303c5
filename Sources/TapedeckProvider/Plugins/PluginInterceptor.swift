import Foundation
import Synchronization
import TapedeckClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a provider's plugins reach the session: a per-request adapter (after the session's own),
/// like Moya's bridge into Alamofire. Each adaptation folds the plugins' `prepare` over the request,
/// then calls their `willSend` with the result — if `willSend` has been installed by then.
///
/// `prepare` is known when the interceptor is made; `willSend` is installed after the session made
/// the request (it names the request). The provider makes the request and installs `willSend`
/// while holding the session's requestQueue, so no adaptation can run in between (docs/provider.md,
/// "Why `requestQueue.sync`").
final class PluginInterceptor: RequestInterceptor {
    typealias WillSend = @Sendable (URLRequest) -> Void

    private let prepare: @Sendable (URLRequest) -> URLRequest
    private let willSend = Mutex<WillSend?>(nil)
    /// Adaptations that ran before `willSend` was installed (their plugins never heard of the request).
    private let missed = Mutex(0)

    init(prepare: @escaping @Sendable (URLRequest) -> URLRequest) {
        self.prepare = prepare
    }

    func install(willSend closure: @escaping WillSend) {
        willSend.withLock { $0 = closure }
    }

    /// Adaptations whose `willSend` was missed (for diagnostics and the ordering tests).
    var missedWillSends: Int { missed.withLock { $0 } }

    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        let prepared = prepare(urlRequest)
        if let notify = willSend.withLock({ $0 }) {
            notify(prepared)
        } else {
            missed.withLock { $0 += 1 }
        }
        completion(.success(prepared))
    }
}
