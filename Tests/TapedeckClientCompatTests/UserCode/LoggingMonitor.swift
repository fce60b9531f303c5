// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// The logging EventMonitor many apps add to their Session, and a Session built with it.
import Foundation
import TapedeckClient

final class APILogger: EventMonitor, @unchecked Sendable {
    let queue = DispatchQueue(label: "com.example.networklogger")
    private let lock = NSLock()
    private var lines: [String] = []

    var log: [String] {
        lock.lock(); defer { lock.unlock() }
        return lines
    }

    private func write(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        lines.append(line)
    }

    func requestDidResume(_ request: Request) {
        let body = request.request.flatMap { $0.httpBody.map { String(decoding: $0, as: UTF8.self) } } ?? "None"
        let method = request.request?.httpMethod ?? "?"
        let url = request.request?.url?.absoluteString ?? "?"
        write("→ \(method) \(url) body: \(body)")
    }

    func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        let headers = urlRequest.allHTTPHeaderFields ?? [:]
        write("headers: \(headers.keys.sorted().joined(separator: ","))")
    }

    func request<Value>(_ request: DataRequest, didParseResponse response: DataResponse<Value, AFError>) {
        let status = response.response?.statusCode ?? -1
        let size = response.data?.count ?? 0
        write("← \(status) \(size) bytes \(response.error == nil ? "ok" : "failed")")
    }

    func requestDidFinish(_ request: Request) {
        write("finished \(request.description)")
    }

    func request(_ request: Request, didFailTask task: URLSessionTask, earlyWithError error: AFError) {
        write("early failure \(error)")
    }
}

enum LoggedSession {
    static func make(logger: APILogger) -> Session {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 60
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpAdditionalHeaders = HTTPHeaders.default.dictionary
        return Session(configuration: configuration, eventMonitors: [logger])
    }
}
