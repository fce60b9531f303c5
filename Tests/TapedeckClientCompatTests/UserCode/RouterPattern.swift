// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// The "router" network layer many apps have: an enum of endpoints conforming to
// URLRequestConvertible, encoded with URLEncoding/JSONEncoding, and a thin client over it.
import Foundation
import TapedeckClient

enum HTTPHeaderField: String {
    case authentication = "Authorization"
    case contentType = "Content-Type"
    case acceptType = "Accept"
}

enum ContentType: String {
    case json = "application/json"
}

enum NotesRouter: URLRequestConvertible {
    case list(page: Int, tags: [String])
    case note(id: Int)
    case create(title: String, body: String)
    case delete(id: Int)

    static let baseURLString = "https://api.example.com/v1"

    var method: HTTPMethod {
        switch self {
        case .list, .note: return .get
        case .create: return .post
        case .delete: return .delete
        }
    }

    var path: String {
        switch self {
        case .list: return "/notes"
        case .note(let id), .delete(let id): return "/notes/\(id)"
        case .create: return "/notes"
        }
    }

    var parameters: Parameters? {
        switch self {
        case .list(let page, let tags): return ["page": page, "tags": tags, "archived": false]
        case .create(let title, let body): return ["title": title, "body": body]
        case .note, .delete: return nil
        }
    }

    func asURLRequest() throws -> URLRequest {
        let url = try NotesRouter.baseURLString.asURL()
        var urlRequest = URLRequest(url: url.appendingPathComponent(path))
        urlRequest.httpMethod = method.rawValue
        urlRequest.setValue(ContentType.json.rawValue, forHTTPHeaderField: HTTPHeaderField.acceptType.rawValue)
        urlRequest.timeoutInterval = 20
        switch self {
        case .list:
            let encoding = URLEncoding(destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .literal)
            urlRequest = try encoding.encode(urlRequest, with: parameters)
        case .create:
            urlRequest = try JSONEncoding.default.encode(urlRequest, with: parameters)
        case .note, .delete:
            urlRequest = try URLEncoding.default.encode(urlRequest, with: parameters)
        }
        return urlRequest
    }
}

struct Note: Codable, Equatable, Sendable {
    let id: Int
    let title: String
}

enum NotesError: Error, Equatable {
    case notFound
    case server(Int)
    case offline
    case decoding
    case other(String)
}

final class NotesClient: Sendable {
    let session: Session

    init(session: Session = .default) {
        self.session = session
    }

    @discardableResult
    private func performRequest<T: Decodable & Sendable>(_ route: NotesRouter,
                                                         decoder: JSONDecoder = JSONDecoder(),
                                                         completion: @escaping @Sendable (Result<T, NotesError>) -> Void) -> DataRequest {
        return session.request(route)
            .validate(statusCode: 200..<300)
            .validate(contentType: ["application/json"])
            .responseDecodable(of: T.self, decoder: decoder) { (response: DataResponse<T, AFError>) in
                switch response.result {
                case .success(let value):
                    completion(.success(value))
                case .failure(let error):
                    completion(.failure(NotesClient.map(error, status: response.response?.statusCode)))
                }
            }
    }

    static func map(_ error: AFError, status: Int?) -> NotesError {
        switch error {
        case .responseValidationFailed(reason: .unacceptableStatusCode(code: 404)):
            return .notFound
        case .responseValidationFailed(let reason):
            if case .unacceptableStatusCode(let code) = reason { return .server(code) }
            return .other(error.localizedDescription)
        case .responseSerializationFailed(reason: .decodingFailed):
            return .decoding
        case .sessionTaskFailed(let underlying as URLError) where underlying.code == .notConnectedToInternet:
            return .offline
        default:
            if error.isSessionTaskError, let urlError = error.underlyingError as? URLError,
               urlError.code == .timedOut || urlError.code == .networkConnectionLost {
                return .offline
            }
            return .other(error.errorDescription ?? "unknown")
        }
    }

    func notes(page: Int, completion: @escaping @Sendable (Result<[Note], NotesError>) -> Void) {
        performRequest(.list(page: page, tags: ["a", "b"]), completion: completion)
    }

    func note(id: Int, completion: @escaping @Sendable (Result<Note, NotesError>) -> Void) {
        performRequest(.note(id: id), completion: completion)
    }

    func create(title: String, completion: @escaping @Sendable (Result<Note, NotesError>) -> Void) {
        performRequest(.create(title: title, body: "…"), completion: completion)
    }

    func delete(id: Int, completion: @escaping @Sendable (Bool) -> Void) {
        session.request(NotesRouter.delete(id: id)).validate().response { response in
            completion(response.error == nil && response.response?.statusCode == 204)
        }
    }
}
