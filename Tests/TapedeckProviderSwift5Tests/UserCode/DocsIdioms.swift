// App code written against Moya 15 (Swift 5 mode): only the import lines differ (`import Moya`,
// and `import Alamofire` for ServerTrustManager, which Moya does not re-export).
// Provider set-ups from Moya's documentation as apps copy them: per-target stub closures, a callback
// queue, a credentials plugin, a cookie-less request closure, a token per target type.
import Foundation
import TapedeckClient
import TapedeckProvider

enum NotesService {
    case list
    case login
}

extension NotesService: TargetType, AccessTokenAuthorizable {
    var authorizationType: AuthorizationType? { .bearer }
    var baseURL: URL { URL(string: "https://notes.example.com")! }
    var path: String { self == .login ? "/login" : "/notes" }
    var method: Moya.Method { self == .login ? .post : .get }
    var task: Task { .requestPlain }
    var headers: [String: String]? { nil }
    var sampleData: Data { Data("[]".utf8) }
}

enum DocsIdioms {
    static func perTargetStubs() -> MoyaProvider<NotesService> {
        MoyaProvider<NotesService>(stubClosure: { (target: NotesService) -> Moya.StubBehavior in
            switch target {
            case .login: return .never
            case .list: return .immediate
            }
        })
    }

    static func utilityCallbacks() -> MoyaProvider<NotesService> {
        MoyaProvider<NotesService>(callbackQueue: DispatchQueue.global(qos: .utility))
    }

    static func credentials() -> MoyaProvider<NotesService> {
        MoyaProvider<NotesService>(plugins: [CredentialsPlugin { target -> URLCredential? in
            switch target {
            case NotesService.login: return URLCredential(user: "user", password: "passwd", persistence: .none)
            default: return nil
            }
        }])
    }

    static func noCookies() -> MoyaProvider<NotesService> {
        let requestClosure = { (endpoint: Endpoint, done: MoyaProvider.RequestResultClosure) in
            do {
                var request: URLRequest = try endpoint.urlRequest()
                request.httpShouldHandleCookies = false
                done(.success(request))
            } catch {
                done(.failure(MoyaError.underlying(error, nil)))
            }
        }
        return MoyaProvider<NotesService>(requestClosure: requestClosure)
    }

    static func tokenPerTarget() -> MoyaProvider<MultiTarget> {
        let authPlugin = AccessTokenPlugin { target in
            if target is NotesService {
                return "notes-token"
            }
            return ""
        }
        return MoyaProvider<MultiTarget>(plugins: [authPlugin])
    }

    static func trustingSession() -> MoyaProvider<NotesService> {
        let configuration = URLSessionConfiguration.default
        configuration.headers = .default
        let manager = ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: [:])
        let session = Session(configuration: configuration, startRequestsImmediately: false, serverTrustManager: manager)
        return MoyaProvider<NotesService>(session: session, trackInflights: true)
    }
}
