// App code written against Moya 15 as most Moya apps spell it: a bare `Task`, a request closure
// typed through `MoyaProvider.RequestResultClosure`, and `MoyaError` read as an `NSError`-style
// error (`errorCode`, `errorUserInfo`). Only the import line differs (`import Moya`).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckProvider

/// A status service's API.
enum StatusAPI: TargetType {
    case status(verbose: Bool)

    var baseURL: URL { URL(string: "https://status.example.com")! }
    var path: String { "/status" }
    var method: Moya.Method { .get }
    var task: Task {
        switch self {
        case let .status(verbose): .requestParameters(parameters: ["verbose": verbose ? "1" : "0"], encoding: URLEncoding.queryString)
        }
    }
    var headers: [String: String]? { nil }
    var sampleData: Data { Data("up".utf8) }
}

/// Stamps every request with a header before it goes, through Moya's request closure type.
func stampRequest(_ endpoint: Endpoint, done: @escaping MoyaProvider.RequestResultClosure) {
    guard var request = try? endpoint.urlRequest() else { return done(.failure(.requestMapping(endpoint.url))) }
    request.setValue("status-app", forHTTPHeaderField: "X-Client")
    done(.success(request))
}

/// What the app shows for a failure: Moya's error as Foundation sees it.
func failureSummary(_ error: MoyaError) -> String {
    let underlying = error.errorUserInfo[NSUnderlyingErrorKey].map { "\($0)" } ?? "-"
    return "\(error.errorCode): \(error.localizedDescription) (\(underlying))"
}
