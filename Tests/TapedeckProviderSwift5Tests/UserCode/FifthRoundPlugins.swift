// App code written against Moya 15 (Swift 5 mode): only the import line differs (`import Moya`).
// Plugin shapes from open-source apps, re-typed with our own names:
// - a result-parsing plugin whose `process` turns a 200 carrying an error envelope into a failure
//   (DuanaoiOS/Terra, ResultParserPlugin.swift: a plugin holding a `process` closure);
// - a timeout plugin whose `prepare` reads a protocol the target adopts (Noljanolja's
//   RequestTimeoutPlugin.swift, unwrapping MultiTarget to the raw target);
// - an auth plugin keeping its token behind a serial queue and adding fields with `addValue`
//   (GetStream's AuthorizationMoyaPlugin.swift);
// - `Response.map(_:atKeyPath:using:)` with a snake-case decoder and a `MultiTarget` provider.
import Foundation
import TapedeckProvider

struct ShopEnvelopeError: Error, Equatable {
    let code: Int
    let message: String
}

/// Holds the app's result parser as a closure, as Terra's plugin does.
final class ResultParsingPlugin: PluginType {
    typealias ProcessResultClosure = (_ result: Result<Response, MoyaError>, _ target: TargetType) -> Result<Response, MoyaError>
    let processResultClosure: ProcessResultClosure

    init(processResultClosure: @escaping ProcessResultClosure) {
        self.processResultClosure = processResultClosure
    }

    func process(_ result: Result<Response, MoyaError>, target: TargetType) -> Result<Response, MoyaError> {
        processResultClosure(result, target)
    }
}

/// The app's parser: `{"code":0,...}` is success, any other code a failure carrying the response.
let shopResultParser: ResultParsingPlugin.ProcessResultClosure = { result, _ in
    guard case .success(let response) = result else { return result }
    guard let object = try? response.mapJSON() as? [String: Any], let code = object["code"] as? Int else { return result }
    if code == 0 { return result }
    let message = object["msg"] as? String ?? "unknown"
    return .failure(.underlying(ShopEnvelopeError(code: code, message: message), response))
}

protocol RequestTimeoutConfigurable {
    var timeout: TimeInterval { get }
}

extension TargetType {
    /// The target inside a MultiTarget, or the target itself.
    var rawTarget: TargetType {
        if let multi = self as? MultiTarget { return multi.target }
        return self
    }
}

struct RequestTimeoutPlugin: PluginType {
    func prepare(_ request: URLRequest, target: TargetType) -> URLRequest {
        var request = request
        if let configurable = target.rawTarget as? RequestTimeoutConfigurable {
            request.timeoutInterval = configurable.timeout
        } else {
            request.timeoutInterval = 60
        }
        return request
    }
}

/// Token behind a serial queue; fields added with `addValue`, the way the app's plugin does.
final class StreamAuthPlugin: PluginType {
    private let serialQueue = DispatchQueue(label: "com.example.shop.auth")
    private var token: String
    var seenTimeouts: [TimeInterval] = []

    init(_ token: String = "") {
        self.token = token
    }

    func update(token: String) {
        serialQueue.sync { self.token = token }
    }

    func prepare(_ request: URLRequest, target: TargetType) -> URLRequest {
        let token = serialQueue.sync { self.token }
        if token.isEmpty { return request }
        var request = request
        request.addValue("jwt", forHTTPHeaderField: "Stream-Auth-Type")
        request.addValue(token, forHTTPHeaderField: "Authorization")
        return request
    }

    func willSend(_ request: RequestType, target: TargetType) {
        if let timeout = request.request?.timeoutInterval {
            serialQueue.sync { seenTimeouts.append(timeout) }
        }
    }
}

struct ShopItem: Decodable, Equatable {
    let itemId: Int
    let displayName: String
}

enum ShopAPI {
    case items(page: Int)
    case order(itemId: Int)
    case exportReport
}

extension ShopAPI: TargetType, RequestTimeoutConfigurable {
    var baseURL: URL { URL(string: "https://shop.example.com/v2")! }
    var path: String {
        switch self {
        case .items: return "/items"
        case .order: return "/orders"
        case .exportReport: return "/reports/export"
        }
    }
    var method: Moya.Method {
        switch self {
        case .order: return .post
        default: return .get
        }
    }
    var task: Task {
        switch self {
        case .items(let page):
            return .requestParameters(parameters: ["page": page, "tags": ["new", "sale"]],
                                      encoding: URLEncoding(destination: .queryString, arrayEncoding: .noBrackets))
        case .order(let itemId):
            return .requestParameters(parameters: ["item_id": itemId], encoding: JSONEncoding.default)
        case .exportReport:
            return .requestPlain
        }
    }
    var headers: [String: String]? { ["Accept": "application/json"] }
    var sampleData: Data { Data() }
    var timeout: TimeInterval {
        if case .exportReport = self { return 120 }
        return 15
    }
}

final class ShopService {
    let auth = StreamAuthPlugin("t-1")
    let provider: MoyaProvider<MultiTarget>
    var items: [ShopItem] = []
    var failures: [String] = []
    var exported: Int?

    init() {
        provider = MoyaProvider<MultiTarget>(plugins: [auth, RequestTimeoutPlugin(), ResultParsingPlugin(processResultClosure: shopResultParser)])
    }

    func loadItems(page: Int) {
        provider.request(MultiTarget(ShopAPI.items(page: page))) { result in
            switch result {
            case .success(let response):
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                self.items = (try? response.map([ShopItem].self, atKeyPath: "data.items", using: decoder)) ?? []
            case .failure(let error):
                self.failures.append("\(error)")
            }
        }
    }

    func order(itemId: Int) {
        provider.request(MultiTarget(ShopAPI.order(itemId: itemId))) { result in
            if case .failure(.underlying(let error as ShopEnvelopeError, let response)) = result {
                self.failures.append("order \(error.code) \(error.message) \(response?.statusCode ?? 0)")
            }
        }
    }

    func export() {
        provider.request(MultiTarget(ShopAPI.exportReport)) { result in
            self.exported = try? result.get().statusCode
        }
    }
}
