// docs/provider.md's second snippet — Moya code with only its import line changed — alone in a
// file with the snippet's import lines and no others, so that "the import line changed" is what
// compiles. The test that runs it is in ProviderDocSnippetTests.swift.

import Foundation
import TapedeckProvider   // was: import Moya

// MARK: - docs/provider.md, "Example" (second snippet)

enum Repos: TargetType {
    case list(user: String, page: Int?)

    var baseURL: URL { URL(string: "https://api.github.test")! }
    var path: String {
        switch self {
        case let .list(user, _): return "/users/\(user)/repos"
        }
    }
    var method: Moya.Method { .get }
    var task: Moya.Task {
        switch self {
        case let .list(_, page):
            var parameters: [String: Any] = ["sort": "pushed"]
            parameters["page"] = page
            return .requestParameters(parameters: parameters, encoding: URLEncoding.queryString)
        }
    }
    var headers: [String: String]? { nil }
}

/// The snippet's two statements; `failures` is the test's (it keeps what the handler printed).
func provider_moyaCode(failures: @escaping @Sendable (String) -> Void) {
    let repos = MoyaProvider<Repos>(plugins: [NetworkLoggerPlugin(configuration: .init(logOptions: .verbose))])
    repos.request(.list(user: "ada", page: 2)) { result in
        if case let .failure(error) = result { print(error.errorDescription ?? "") }   // error: MoyaError
        if case let .failure(error) = result { failures(error.errorDescription ?? "") }   // (test)
    }
}
