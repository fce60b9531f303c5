public import Foundation
public import TapedeckHTTP
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Sends every event to each of its monitors in order, each as a job on the monitor's queue
/// (the session's rootQueue for monitors without one).
public final class CompositeEventMonitor: EventMonitor, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    public let monitors: [any EventMonitor]
    let defaultQueue: any SchedulerQueue

    init(monitors: [any EventMonitor], defaultQueue: any SchedulerQueue) {
        self.monitors = monitors
        self.defaultQueue = defaultQueue
    }

    public var queue: (any SchedulerQueue)? { defaultQueue }

    /// Dispatches `event` to every monitor; the values it carries are used only inside the jobs.
    private func perform<Values>(_ values: Values, _ event: @escaping (any EventMonitor, Values) -> Void) {
        guard !monitors.isEmpty else { return }
        let boxed = UncheckedSendable((values, event))
        for monitor in monitors {
            (monitor.queue ?? defaultQueue).async(named: "event") {
                let (values, event) = boxed.value
                event(monitor, values)
            }
        }
    }

    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        perform((session, error)) { $0.urlSession($1.0, didBecomeInvalidWithError: $1.1) }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {
        perform((session, task, response, request)) { $0.urlSession($1.0, task: $1.1, willPerformHTTPRedirection: $1.2, newRequest: $1.3) }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: TransferMetrics) {
        perform((session, task, metrics)) { $0.urlSession($1.0, task: $1.1, didFinishCollecting: $1.2) }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        perform((session, task, error)) { $0.urlSession($1.0, task: $1.1, didCompleteWithError: $1.2) }
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {
        perform((session, dataTask, response)) { $0.urlSession($1.0, dataTask: $1.1, didReceive: $1.2) }
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        perform((session, dataTask, data)) { $0.urlSession($1.0, dataTask: $1.1, didReceive: $1.2) }
    }

    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        perform((request, urlRequest)) { $0.request($1.0, didCreateInitialURLRequest: $1.1) }
    }

    public func request(_ request: Request, didFailToCreateURLRequestWithError error: ClientError) {
        perform((request, error)) { $0.request($1.0, didFailToCreateURLRequestWithError: $1.1) }
    }

    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        perform((request, initialRequest, adaptedRequest)) { $0.request($1.0, didAdaptInitialRequest: $1.1, to: $1.2) }
    }

    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: ClientError) {
        perform((request, initialRequest, error)) { $0.request($1.0, didFailToAdaptURLRequest: $1.1, withError: $1.2) }
    }

    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        perform((request, urlRequest)) { $0.request($1.0, didCreateURLRequest: $1.1) }
    }

    public func request(_ request: Request, didCreateTask task: URLSessionTask) {
        perform((request, task)) { $0.request($1.0, didCreateTask: $1.1) }
    }

    public func request(_ request: Request, didGatherMetrics metrics: TransferMetrics) {
        perform((request, metrics)) { $0.request($1.0, didGatherMetrics: $1.1) }
    }

    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: ClientError?) {
        perform((request, task, error)) { $0.request($1.0, didCompleteTask: $1.1, with: $1.2) }
    }

    public func requestIsRetrying(_ request: Request) {
        perform(request) { $0.requestIsRetrying($1) }
    }

    public func requestDidFinish(_ request: Request) {
        perform(request) { $0.requestDidFinish($1) }
    }

    public func requestDidResume(_ request: Request) {
        perform(request) { $0.requestDidResume($1) }
    }

    public func request(_ request: Request, didResumeTask task: URLSessionTask) {
        perform((request, task)) { $0.request($1.0, didResumeTask: $1.1) }
    }

    public func requestDidSuspend(_ request: Request) {
        perform(request) { $0.requestDidSuspend($1) }
    }

    public func request(_ request: Request, didSuspendTask task: URLSessionTask) {
        perform((request, task)) { $0.request($1.0, didSuspendTask: $1.1) }
    }

    public func requestDidCancel(_ request: Request) {
        perform(request) { $0.requestDidCancel($1) }
    }

    public func request(_ request: Request, didCancelTask task: URLSessionTask) {
        perform((request, task)) { $0.request($1.0, didCancelTask: $1.1) }
    }

    public func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: ValidationResult) {
        perform((request, urlRequest, response, data, result)) { $0.request($1.0, didValidateRequest: $1.1, response: $1.2, data: $1.3, withResult: $1.4) }
    }

    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, ClientError>) {
        perform((request, response)) { $0.request($1.0, didParseResponse: $1.1) }
    }

    public func request<Value>(_ request: DataRequest, didParseResponse response: DataResponse<Value, ClientError>) {
        perform((request, response)) { $0.request($1.0, didParseResponse: $1.1) }
    }

    public func request(_ request: Request, didObserve anomaly: TaskLedgerAnomaly, for task: URLSessionTask) {
        perform((request, anomaly, task)) { $0.request($1.0, didObserve: $1.1, for: $1.2) }
    }
}

/// Carries values that are not Sendable (URLSession objects, closures over them) into a job that
/// is the only place they are used.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
