// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// A logging EventMonitor, and the closure-based alternative.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

/// Where the logger writes (an app would print or use os_log).
final class LogSink: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    func write(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}

final class RequestLogger: EventMonitor {
    let sink: LogSink
    init(sink: LogSink) { self.sink = sink }

    func requestDidResume(_ request: Request) {
        sink.write("[start] \(request.id)")
    }

    func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        sink.write("[send] \(urlRequest.httpMethod ?? "?") \(urlRequest.url?.absoluteString ?? "-")")
    }

    func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: AFError) {
        sink.write("[adapt failed] \(error.underlyingError ?? error)")
    }

    func requestIsRetrying(_ request: Request) {
        sink.write("[retry #\(request.retryCount)] \(request)")
    }

    func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, AFError>) {
        let status = response.response.map { String($0.statusCode) } ?? "no response"
        let outcome = response.error.map { "error: \($0)" } ?? "ok"
        sink.write("[done] \(request) -> \(status), \(outcome), serialized in \(response.serializationDuration)")
    }
}

/// Alamofire's ClosureEventMonitor with per-event closures.
func makeClosureMonitor(sink: LogSink) -> ClosureEventMonitor {
    let monitor = ClosureEventMonitor()
    monitor.requestDidResume = { request in sink.write("resume") }
    monitor.requestDidCreateTask = { request, task in sink.write("task") }
    monitor.requestDidCompleteTaskWithError = { request, _, error in
        sink.write(error.map { "task error: \($0.responseCode.map(String.init) ?? "-")" } ?? "task ok")
    }
    monitor.requestIsRetrying = { request in sink.write("retrying") }
    monitor.requestDidFinish = { request in sink.write("finished \(request.retryCount)") }
    monitor.requestDidParseResponse = { request, response in sink.write("parsed") }
    return monitor
}
