// App code written against Moya 15 (Swift 5 mode): only the import line differs (`import Moya`).
// Access-token authorization, a logger plugin, a custom Session, composite parameters,
// progress, MultiTarget and cancellation.
import Foundation
import TapedeckProvider

enum AccountAPI {
    case me
    case updateSettings(query: [String: Any], body: [String: Any])
    case publicFeed
    case largeExport
}

extension AccountAPI: TargetType, AccessTokenAuthorizable {
    var baseURL: URL { URL(string: "https://accounts.example.com/api")! }
    var path: String {
        switch self {
        case .me: return "/me"
        case .updateSettings: return "/me/settings"
        case .publicFeed: return "/feed"
        case .largeExport: return "/export"
        }
    }
    var method: Moya.Method {
        if case .updateSettings = self { return .put }
        return .get
    }
    var task: Task {
        switch self {
        case let .updateSettings(query, body):
            return .requestCompositeParameters(bodyParameters: body, bodyEncoding: JSONEncoding.default, urlParameters: query)
        default:
            return .requestPlain
        }
    }
    var headers: [String: String]? { nil }
    var sampleData: Data { Data() }
    var authorizationType: AuthorizationType? {
        switch self {
        case .publicFeed: return nil
        default: return .bearer
        }
    }
}

final class AccountService {
    let provider: MoyaProvider<AccountAPI>
    let multi: MoyaProvider<MultiTarget>
    var token = "abc"

    init() {
        let configuration = URLSessionConfiguration.default
        configuration.headers = .default
        configuration.timeoutIntervalForRequest = 20
        let session = Session(configuration: configuration, startRequestsImmediately: false)
        let tokenPlugin = AccessTokenPlugin { _ in "abc" }
        let logger = NetworkLoggerPlugin(configuration: .init(logOptions: .verbose))
        provider = MoyaProvider<AccountAPI>(session: session, plugins: [tokenPlugin, logger])
        multi = MoyaProvider<MultiTarget>(plugins: [tokenPlugin])
    }

    func export(progress: @escaping (Double) -> Void, completion: @escaping (Bool) -> Void) -> Cancellable {
        provider.request(.largeExport, callbackQueue: nil, progress: { response in
            progress(response.progress)
        }) { result in
            completion((try? result.get().filterSuccessfulStatusAndRedirectCodes()) != nil)
        }
    }

    func me(completion: @escaping (Int?) -> Void) {
        multi.request(MultiTarget(AccountAPI.me)) { result in
            completion(try? result.get().statusCode)
        }
    }

    func settings(completion: @escaping (String?) -> Void) {
        let cancellable = provider.request(.updateSettings(query: ["v": 2], body: ["theme": "dark"])) { result in
            completion(try? result.get().mapString())
        }
        if cancellable.isCancelled { cancellable.cancel() }
    }
}
