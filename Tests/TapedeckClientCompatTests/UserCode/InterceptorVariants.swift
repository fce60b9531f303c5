// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Interceptor shapes seen in apps: a retrier-only RequestInterceptor (adapt from the protocol's
// default), single-adapter/retrier Interceptors, a
// monitor implementing the less common events, header statics and method statics.
import Foundation
import TapedeckClient

/// Retries 401s twice with a delay; implements only `retry` (the protocol's default adapts nothing).
final class UnauthorizedRetrier: RequestInterceptor {
    private let retryLimit = 2

    func retry(_ request: Request, for session: Session, dueTo error: any Error,
               completion: @escaping @Sendable (RetryResult) -> Void) {
        if let statusCode = request.response?.statusCode, statusCode == 401, request.retryCount < retryLimit {
            completion(.retryWithDelay(2))
        } else {
            completion(.doNotRetry)
        }
    }
}

final class EventsMonitor: EventMonitor, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []

    var seen: [String] {
        lock.lock(); defer { lock.unlock() }
        return events
    }

    private func note(_ event: String) {
        lock.lock(); events.append(event); lock.unlock()
    }

    func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) { note("initial") }
    func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) { note("adapted") }
    func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: AFError) { note("adaptFailed") }
    func request(_ request: Request, didCreateTask task: URLSessionTask) { note("task") }
    func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) { note("completed") }
    func requestIsRetrying(_ request: Request) { note("retrying") }
    func requestDidCancel(_ request: Request) { note("cancelled") }
    func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
                 data: Data?, withResult result: Request.ValidationResult) {
        note("validated \(response.statusCode)")
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { note("urlSession") }
}

enum InterceptorVariants {
    static func session(monitor: EventsMonitor) -> Session {
        let adapter = Adapter { request, _, completion in
            var request = request
            request.headers.add(.authorization("Token abc"))
            request.headers.add(.acceptLanguage("pt-PT"))
            completion(.success(request))
        }
        return Session(interceptor: Interceptor(adapter: adapter, retrier: UnauthorizedRetrier()), eventMonitors: [monitor])
    }

    static func methods() -> [HTTPMethod] {
        [.get, .head, .options, .trace, .connect, .query, HTTPMethod(rawValue: "PURGE")]
    }

    static func headers() -> HTTPHeaders {
        [.acceptEncoding("gzip"), .acceptCharset("utf-8"), .contentDisposition("inline"), .defaultUserAgent,
         .defaultAcceptLanguage, .authorization("Token t")]
    }
}
