// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Patterns an app team adds around Alamofire: a RetryPolicy subclass, a custom decoder, a custom
// serializer, custom parameter encodings, handlers and monitors on their own DispatchQueues.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

/// Alamofire's policy, plus 429 (rate limited), and never more than `limit` retries.
final class RateLimitRetryPolicy: RetryPolicy, @unchecked Sendable {
    init(limit: UInt) {
        super.init(retryLimit: limit, exponentialBackoffScale: 0.25)
    }

    override func shouldRetry(request: Request, dueTo error: any Error) -> Bool {
        if request.response?.statusCode == 429 { return true }
        return super.shouldRetry(request: request, dueTo: error)
    }

    override func retry(_ request: Request, for session: Session, dueTo error: any Error,
                        completion: @escaping @Sendable (RetryResult) -> Void) {
        // POSTs are never retried, whatever the status.
        guard request.request?.method != .post else { return completion(.doNotRetry) }
        super.retry(request, for: session, dueTo: error, completion: completion)
    }
}

/// Decodes snake_case JSON (a DataDecoder of the app's own).
struct SnakeCaseDecoder: DataDecoder {
    func decode<D: Decodable>(_ type: D.Type, from data: Data) throws -> D {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(type, from: data)
    }
}

/// Counts the lines of a body (a serializer of the app's own).
struct LineCountSerializer: DataResponseSerializerProtocol {
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> Int {
        if let error { throw error }
        guard let data, !data.isEmpty else { return 0 }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").count
    }
}

/// Puts untyped parameters in an `X-Params` header, sorted (an encoding of the app's own).
struct HeaderParameterEncoding: ParameterEncoding {
    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        let pairs = (parameters ?? [:]).map { "\($0.key)=\($0.value)" }.sorted()
        request.headers.update(name: "X-Params", value: pairs.joined(separator: ";"))
        return request
    }
}

/// Sends Encodable parameters as a JSON body with its own content type (an encoder of the app's own).
struct VendorJSONEncoder: ParameterEncoder {
    func encode<Parameters: Encodable & Sendable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest {
        var request = request
        guard let parameters else { return request }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        request.httpBody = try encoder.encode(parameters)
        request.headers.update(.contentType("application/vnd.shop+json"))
        return request
    }
}

/// Follows a redirect only to the same host (a redirect policy of the app's own).
struct SameHostRedirects: RedirectHandler {
    func task(_ task: URLSessionTask, willBeRedirectedTo request: URLRequest, for response: HTTPURLResponse,
              completion: @escaping (URLRequest?) -> Void) {
        completion(request.url?.host == task.originalRequest?.url?.host ? request : nil)
    }
}

struct Order: Decodable, Sendable, Equatable {
    let orderId: Int
    let itemCount: Int
}

struct OrderDraft: Encodable, Sendable {
    let item: String
    let quantity: Int
}

/// A monitor with its own serial queue, as Alamofire monitors usually declare.
final class MetricsCollector: EventMonitor, @unchecked Sendable {
    let queue = DispatchQueue(label: "shop.metrics")
    private let lock = NSLock()
    private var finished: [String] = []

    func requestDidFinish(_ request: Request) {
        lock.withLock { finished.append("\(request.request?.url?.path ?? "-") \(request.response?.statusCode ?? 0)") }
    }

    var log: [String] { lock.withLock { finished } }
}

final class OrderService: Sendable {
    let session: Session
    let metrics = MetricsCollector()

    init() {
        session = Session(rootQueue: DispatchQueue(label: "shop.network"),
                          serializationQueue: DispatchQueue(label: "shop.parsing"),
                          interceptor: RateLimitRetryPolicy(limit: 2),
                          eventMonitors: [metrics])
    }

    /// A GET retried on 429/503, decoded with the app's decoder, delivered on the main queue.
    func order(_ id: Int, completion: @escaping @Sendable (Result<Order, AFError>) -> Void) {
        session.request("https://api.example.com/orders/\(id)")
            .validate()
            .responseDecodable(of: Order.self, queue: .main, decoder: SnakeCaseDecoder()) { response in
                completion(response.result)
            }
    }

    /// A POST with the app's encoder: never retried by the policy.
    func place(_ draft: OrderDraft, completion: @escaping @Sendable (Int?) -> Void) {
        session.request("https://api.example.com/orders", method: .post, parameters: draft, encoder: VendorJSONEncoder())
            .validate()
            .response(queue: .global(qos: .utility)) { response in
                completion(response.response?.statusCode)
            }
    }

    /// A report with the app's serializer and the app's parameter encoding.
    func report(month: Int, completion: @escaping @Sendable (Int?) -> Void) {
        session.request("https://api.example.com/report", parameters: ["month": month, "format": "lines"],
                        encoding: HeaderParameterEncoding())
            .response(queue: DispatchQueue(label: "shop.report"), responseSerializer: LineCountSerializer()) { response in
                completion(response.value)
            }
    }

    /// The same report, awaited with a serializer named by its static (`.string`).
    func reportText(month: Int) async throws -> String {
        try await session.request("https://api.example.com/report", parameters: ["month": month],
                                  encoding: HeaderParameterEncoding())
            .serializingResponse(using: .string)
            .value
    }

    /// A link that may redirect: followed on the same host only.
    func resolve(_ path: String, completion: @escaping @Sendable (Int?) -> Void) {
        session.request("https://api.example.com\(path)")
            .redirect(using: SameHostRedirects())
            .response { response in completion(response.response?.statusCode) }
    }

    /// Stops everything, telling the caller on the main queue.
    func shutDown(_ done: @escaping @Sendable () -> Void) {
        session.cancelAllRequests(completingOnQueue: .main, completion: done)
    }
}
