package import Foundation
import Synchronization
#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

/// A client in Alamofire's shape, written with plain URLSession — what real Alamofire does on
/// Linux, without depending on it: its own URLSession built from a configuration it is given, its
/// own delegate, a delegate `OperationQueue` running one operation at a time whose
/// `underlyingQueue` is its root `DispatchQueue`, a redirect policy (Alamofire's
/// `Redirector(behavior: .doNotFollow)`), and retries after a delay on its own GCD timer
/// (Alamofire's `RetryPolicy`).
package final class OwnClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `session` is set once in init; every other mutable field is in `state`.

    package enum RedirectPolicy: Sendable {
        case follow
        case doNotFollow
    }

    /// What one call of ``get(_:)`` ended with.
    package struct Result: Sendable {
        package var status: Int?
        package var body = Data()
        package var error: URLError?
        package var attempts = 0
        package var redirects: [Int] = []
        /// Every delegate callback ran on the client's root queue.
        package var onRootQueue = true
    }

    private struct Call {
        var result = Result()
        let url: URL
        let completion: @Sendable (Result) -> Void
    }

    package let rootQueue = DispatchQueue(label: "ownclient.rootQueue")
    package let delegateQueue = OperationQueue()
    package private(set) var session: URLSession!
    private let redirectPolicy: RedirectPolicy
    private let retryLimit: Int
    private let retryDelay: Double
    /// Calls by the identifier of their current task.
    private let state = Mutex<[Int: Call]>([:])

    package init(configuration: URLSessionConfiguration, redirectPolicy: RedirectPolicy = .follow, retryLimit: Int = 0, retryDelay: Double = 0.01) {
        self.redirectPolicy = redirectPolicy
        self.retryLimit = retryLimit
        self.retryDelay = retryDelay
        super.init()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.underlyingQueue = rootQueue
        delegateQueue.name = "ownclient.sessionDelegate"
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: delegateQueue)
        rootQueue.setSpecific(key: OwnClient.rootKey, value: ObjectIdentifier(self))
    }

    /// Starts a GET from the client's root queue; `completion` runs on it once the call ends
    /// (after its retries).
    package func get(_ url: URL, completion: @escaping @Sendable (Result) -> Void) {
        rootQueue.async { [self] in start(Call(url: url, completion: completion)) }
    }

    /// ``get(_:completion:)`` awaited.
    package func get(_ url: URL) async -> Result {
        await withCheckedContinuation { continuation in
            get(url) { continuation.resume(returning: $0) }
        }
    }

    /// Starts `urls` in one block on the root queue, all in flight together.
    package func getConcurrently(_ urls: [URL], completion: @escaping @Sendable (URL, Result) -> Void) {
        rootQueue.sync {
            for url in urls { start(Call(url: url) { completion(url, $0) }) }
        }
    }

    private func start(_ call: Call) {
        var call = call
        call.result.attempts += 1
        let task = session.dataTask(with: call.url)
        state.withLock { [call] in $0[task.taskIdentifier] = call }
        task.resume()
    }

    private func update(_ task: URLSessionTask, _ change: (inout Result) -> Void) {
        let onRoot = DispatchQueue.getSpecific(key: OwnClient.rootKey) == ObjectIdentifier(self)
        state.withLock { calls in
            guard var call = calls[task.taskIdentifier] else { return }
            change(&call.result)
            if !onRoot { call.result.onRootQueue = false }
            calls[task.taskIdentifier] = call
        }
    }

    private static let rootKey = DispatchSpecificKey<ObjectIdentifier>()

    // MARK: URLSessionDataDelegate

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        update(dataTask) { $0.status = (response as? HTTPURLResponse)?.statusCode }
        completionHandler(.allow)
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        update(dataTask) { $0.body.append(data) }
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        update(task) { $0.redirects.append(response.statusCode) }
        completionHandler(redirectPolicy == .follow ? request : nil)
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        update(task) { $0.error = error as? URLError }
        guard let call = state.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let retryable = call.result.status == 503 || call.result.error?.code == .networkConnectionLost
        if retryable && call.result.attempts <= retryLimit {
            // Like Alamofire's RetryPolicy: a delay on the client's own queue, in real time.
            var next = call
            next.result = Result(attempts: call.result.attempts, onRootQueue: call.result.onRootQueue)
            rootQueue.asyncAfter(deadline: .now() + retryDelay) { [self, next] in start(next) }
            return
        }
        call.completion(call.result)
    }
}
