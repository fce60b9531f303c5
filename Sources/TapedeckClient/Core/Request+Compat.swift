public import TapedeckHTTP
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

// Alamofire's Request API beyond what Request.swift has: the first task and metrics, a cURL
// description, and callbacks for each URLRequest and task created. Built on the public API
// (per-request event monitors), so the request's own state machine is untouched.

extension Request {
    /// The first attempt's task.
    public var firstTask: URLSessionTask? { tasks.first }
    /// The first attempt's metrics.
    public var firstMetrics: TransferMetrics? { allMetrics.first }
    /// The last attempt's metrics (same as ``metrics``).
    public var lastMetrics: TransferMetrics? { allMetrics.last }

    /// The last URLRequest as a `curl` command: method, the session's and the request's headers
    /// (not `Cookie`), cookies from the configuration's storage, the body, the URL; one option per line.
    ///
    /// ```swift
    /// session.request("http://api.test/items", headers: [.accept("application/json")])
    ///     .cURLDescription { print($0) }
    ///     .responseData { _ in }   // a request starts (and has a URLRequest) once it has a response handler
    /// // $ curl -v \
    /// //     -X GET \
    /// //     -H "Accept: application/json" \
    /// //     "http://api.test/items"
    /// ```
    public func cURLDescription() -> String {
        guard let request = lastRequest, let url = request.url, let method = request.httpMethod else {
            return "$ curl command could not be created"
        }
        var parts = ["$ curl -v", "-X \(method)"]
        let configuration = delegate?.session.configuration
        if let configuration, configuration.httpShouldSetCookies,
           let cookies = configuration.httpCookieStorage?.cookies(for: url), !cookies.isEmpty {
            parts.append("-b \"\(cookies.map { "\($0.name)=\($0.value)" }.joined(separator: ";"))\"")
        }
        var headers = configuration?.headers ?? HTTPHeaders()
        for header in request.headers { headers.update(header) }
        for header in headers where !header.name.equalsIgnoringASCIICase("Cookie") {
            parts.append("-H \"\(header.name): \(Self.escapedForCurl(header.value))\"")
        }
        if let body = request.httpBody {
            parts.append("-d \"\(Self.escapedForCurl(String(decoding: body, as: UTF8.self)))\"")
        }
        parts.append("\"\(url.absoluteString)\"")
        return parts.joined(separator: " \\\n\t")
    }

    /// Calls `handler` on `queue` with ``cURLDescription()`` once a URLRequest exists (at once when
    /// one already does).
    @preconcurrency
    @discardableResult
    public func cURLDescription(on queue: any SchedulerQueue, calling handler: @escaping @Sendable (String) -> Void) -> Self {
        let called = Protected(false)
        whenURLRequestsAreCreated(on: queue) { _ in
            guard called.write({ called in defer { called = true }; return !called }) else { return }
            handler(self.cURLDescription())
        }
        return self
    }

    /// `cURLDescription(on:calling:)` on the rootQueue (``underlyingQueue``).
    @preconcurrency
    @discardableResult
    public func cURLDescription(calling handler: @escaping @Sendable (String) -> Void) -> Self {
        cURLDescription(on: underlyingQueue, calling: handler)
    }

    /// Calls `handler` on `queue` (nil: the rootQueue) with every URLRequest an attempt sends (the
    /// adapted one), from now on; with the last one at once when it already exists.
    @preconcurrency
    @discardableResult
    public func onURLRequestCreation(on queue: (any SchedulerQueue)? = nil, perform handler: @escaping @Sendable (URLRequest) -> Void) -> Self {
        whenURLRequestsAreCreated(on: queue ?? underlyingQueue, handler)
        return self
    }

    /// Calls `handler` on `queue` (nil: the rootQueue) with every task an attempt creates, from now
    /// on; with the last one at once when it already exists.
    @preconcurrency
    @discardableResult
    public func onURLSessionTaskCreation(
        on queue: (any SchedulerQueue)? = nil, perform handler: @escaping @Sendable (URLSessionTask) -> Void
    ) -> Self {
        let queue = queue ?? underlyingQueue
        underlyingQueue.async(named: "onURLSessionTaskCreation") {
            // On the rootQueue, where tasks are created: nothing can be created between the look
            // and the registration.
            if let task = self.tasks.last {
                let boxed = UncheckedSendable(task)
                queue.async(named: "onURLSessionTaskCreation") { handler(boxed.value) }
            }
            let monitor = ClosureEventMonitor(queue: queue)
            monitor.requestDidCreateTask = { _, task in handler(task) }
            self.eventMonitor(monitor)
        }
        return self
    }

    /// Calls `handler` on `queue` with the last URLRequest when there is one, and with every one
    /// created later (registered on the rootQueue, where URLRequests are created).
    private func whenURLRequestsAreCreated(on queue: any SchedulerQueue, _ handler: @escaping @Sendable (URLRequest) -> Void) {
        underlyingQueue.async(named: "onURLRequestCreation") {
            if let request = self.request {
                queue.async(named: "onURLRequestCreation") { handler(request) }
            }
            let monitor = ClosureEventMonitor(queue: queue)
            monitor.requestDidCreateURLRequest = { _, request in handler(request) }
            self.eventMonitor(monitor)
        }
    }

    private static func escapedForCurl(_ text: String) -> String {
        text.replacingOccurrences(of: "\\\"", with: "\\\\\"").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
