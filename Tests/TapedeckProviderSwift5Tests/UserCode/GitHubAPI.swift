// App code written against Moya 15 (Swift 5 mode): only the import line differs (`import Moya`).
// A GitHub-style target, an endpoint closure adding headers, a request closure setting a timeout,
// a custom plugin, MoyaError handling, filterSuccessfulStatusCodes and map.
import Foundation
import TapedeckProvider

typealias SampleResponse = Moya.EndpointSampleResponse

enum GitHub {
    case zen
    case userProfile(String)
    case userRepositories(String)
    case createIssue(repo: String, title: String)
    case uploadAvatar(Data)
}

private extension String {
    var urlEscaped: String {
        addingPercentEncoding(withAllowedCharacters: .urlHostAllowed)!
    }
}

struct Repo: Codable, Equatable {
    let name: String
    let stars: Int
}

struct NewIssue: Encodable {
    let title: String
}

extension GitHub: TargetType {
    var baseURL: URL { URL(string: "https://gh.example.com")! }

    var path: String {
        switch self {
        case .zen: return "/zen"
        case .userProfile(let name): return "/users/\(name.urlEscaped)"
        case .userRepositories(let name): return "/users/\(name.urlEscaped)/repos"
        case .createIssue(let repo, _): return "/repos/\(repo)/issues"
        case .uploadAvatar: return "/user/avatar"
        }
    }

    var method: Moya.Method {
        switch self {
        case .createIssue, .uploadAvatar: return .post
        default: return .get
        }
    }

    var task: Task {
        switch self {
        case .userRepositories:
            return .requestParameters(parameters: ["sort": "pushed"], encoding: URLEncoding.default)
        case .createIssue(_, let title):
            return .requestJSONEncodable(NewIssue(title: title))
        case .uploadAvatar(let data):
            let part = MultipartFormData(provider: .data(data), name: "file", fileName: "avatar.png", mimeType: "image/png")
            return .uploadMultipart([part])
        default:
            return .requestPlain
        }
    }

    var validationType: ValidationType {
        switch self {
        case .userRepositories: return .successCodes
        default: return .none
        }
    }

    var sampleData: Data {
        switch self {
        case .zen: return "Half measures are as bad as nothing at all.".data(using: String.Encoding.utf8)!
        case .userRepositories: return #"[{"name":"moya","stars":1}]"#.data(using: .utf8)!
        default: return Data()
        }
    }

    var headers: [String: String]? {
        ["Content-type": "application/json"]
    }
}

final class HeaderPlugin: PluginType {
    var willSendCount = 0
    var received: [Int] = []

    func prepare(_ request: URLRequest, target: TargetType) -> URLRequest {
        var request = request
        request.addValue("gh-app", forHTTPHeaderField: "X-App")
        return request
    }

    func willSend(_ request: RequestType, target: TargetType) {
        willSendCount += 1
        _ = request.request?.url
    }

    func didReceive(_ result: Result<Moya.Response, MoyaError>, target: TargetType) {
        if case .success(let response) = result {
            received.append(response.statusCode)
        }
    }
}

let gitHubEndpointClosure = { (target: GitHub) -> Endpoint in
    let defaultEndpoint = MoyaProvider.defaultEndpointMapping(for: target)
    return defaultEndpoint.adding(newHTTPHeaderFields: ["APP_NAME": "MY_AWESOME_APP"])
}

let gitHubRequestClosure = { (endpoint: Endpoint, done: MoyaProvider<GitHub>.RequestResultClosure) in
    do {
        var request = try endpoint.urlRequest()
        request.timeoutInterval = 15
        done(.success(request))
    } catch {
        done(.failure(MoyaError.underlying(error, nil)))
    }
}

final class GitHubService {
    let provider: MoyaProvider<GitHub>
    var lastError: String?

    init(plugins: [PluginType]) {
        provider = MoyaProvider<GitHub>(endpointClosure: gitHubEndpointClosure, requestClosure: gitHubRequestClosure,
                                        plugins: plugins)
    }

    func zen(completion: @escaping (String?) -> Void) {
        provider.request(.zen) { result in
            switch result {
            case let .success(moyaResponse):
                let data = moyaResponse.data
                let statusCode = moyaResponse.statusCode
                completion(statusCode == 200 ? String(data: data, encoding: .utf8) : nil)
            case let .failure(error):
                self.lastError = error.localizedDescription
                completion(nil)
            }
        }
    }

    func repos(of user: String, completion: @escaping ([Repo]) -> Void) {
        provider.request(.userRepositories(user), callbackQueue: .main) { result in
            do {
                let response = try result.get()
                let filtered = try response.filterSuccessfulStatusCodes()
                completion(try filtered.map([Repo].self))
            } catch let error as MoyaError {
                switch error {
                case .statusCode(let response):
                    self.lastError = "status \(response.statusCode)"
                case .objectMapping(_, let response):
                    self.lastError = "mapping \(response.statusCode)"
                case .underlying(let underlying, let response):
                    self.lastError = "underlying \(underlying) \(response?.statusCode ?? -1)"
                default:
                    self.lastError = error.errorDescription
                }
                completion([])
            } catch {
                completion([])
            }
        }
    }

    func firstRepoName(of user: String, completion: @escaping (String?) -> Void) {
        provider.request(.userRepositories(user)) { result in
            let name = try? result.get().mapJSON() as? [[String: Any]]
            completion(name?.first?["name"] as? String)
        }
    }

    func repoNames(of user: String, completion: @escaping ([String]) -> Void) {
        provider.request(.userRepositories(user)) { result in
            switch result {
            case .success(let response):
                let names = (try? response.map([String].self, atKeyPath: "names", using: JSONDecoder(), failsOnEmptyData: false)) ?? []
                completion(names)
            case .failure:
                completion([])
            }
        }
    }
}

enum GitHubStubs {
    static func provider() -> MoyaProvider<GitHub> {
        let endpointClosure = { (target: GitHub) -> Endpoint in
            let sampleResponseClosure: () -> SampleResponse
            switch target {
            case .userProfile: sampleResponseClosure = { .networkResponse(401, Data()) }
            default: sampleResponseClosure = { .networkResponse(200, target.sampleData) }
            }
            return Endpoint(url: URL(target: target).absoluteString,
                            sampleResponseClosure: sampleResponseClosure,
                            method: target.method,
                            task: target.task,
                            httpHeaderFields: target.headers)
        }
        return MoyaProvider<GitHub>(endpointClosure: endpointClosure, stubClosure: MoyaProvider.immediatelyStub)
    }

    static func delayed() -> MoyaProvider<GitHub> {
        MoyaProvider<GitHub>(stubClosure: MoyaProvider.delayedStub(0.5))
    }
}
