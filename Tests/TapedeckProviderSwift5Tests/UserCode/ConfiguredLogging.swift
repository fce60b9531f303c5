// App code written against Moya 15 (Swift 5 mode): only the import line differs (`import Moya`).
// The logger set-up many Moya apps have: a NetworkLoggerPlugin made with `init()` and configured
// afterwards through its `configuration` (options, a JSON-prettifying formatter, the app's output).
import Foundation
import TapedeckProvider

enum InboxAPI: TargetType {
    case send(to: String, text: String)

    var baseURL: URL { URL(string: "https://inbox.example.com")! }
    var path: String { "/messages" }
    var method: Moya.Method { .post }
    var task: Task {
        switch self {
        case let .send(to, text):
            return .requestParameters(parameters: ["to": to, "text": text], encoding: JSONEncoding.default)
        }
    }
    var headers: [String: String]? { ["Content-Type": "application/json"] }
}

final class AppLog {
    private(set) var lines: [String] = []
    private let lock = NSLock()

    func write(_ items: [String]) {
        lock.lock()
        lines += items
        lock.unlock()
    }
}

enum Networking {
    static func plugins(log: AppLog) -> [PluginType] {
        var plugins: [PluginType] = []
        let logger = NetworkLoggerPlugin()
        logger.configuration.logOptions = [.requestBody, .successResponseBody, .errorResponseBody]
        logger.configuration.formatter = .init(responseData: { data in "body of \(data.count) bytes" })
        logger.configuration.output = { _, items in log.write(items) }
        plugins.append(logger)
        return plugins
    }
}
