// The Swift snippets of docs/provider.md (the second, Moya code with its import changed, is in
// ProviderDocMoyaCode.swift), with the first one's import lines and no others. One function per
// snippet, as written plus the least scaffolding (`session` and, after the first, the page's
// `GitHub` target come in as parameters or from Scaffolding.swift); lines added for a test are
// marked `// (test)`. ProviderDocSnippetTests.swift runs them.

import Foundation
import Logging
import TapedeckBridge
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling

// MARK: - Snippets

/// docs/provider.md, "Example" (first snippet). Its `GitHub` is declared here, as on the page.
func provider_example(answers: Box<[(Result<Int, ProviderError>, at: VirtualInstant, onRootQueue: Bool)]>) throws -> SimulatedScheduler {
    enum GitHub: TargetType, AccessTokenAuthorizable {
        case zen
        case user(String)

        var baseURL: URL { URL(string: "https://api.github.test")! }
        var path: String {
            switch self {
            case .zen: "/zen"
            case let .user(name): "/users/\(name)"
            }
        }
        var method: HTTPMethod { .get }                // Moya.Method
        var task: TargetTask { .requestPlain }         // Moya.Task
        var headers: [String: String]? { ["Accept": "application/json"] }
        var sampleData: Data { Data("Half measures are as bad as nothing at all.".utf8) }
        var validationType: ValidationType { .successCodes }
        var authorizationType: AuthorizationType? { .bearer }
    }

    let scheduler = SimulatedScheduler(seed: 7)
    let network = SimulatedNetwork(scheduler: scheduler)
    let session = Session(provider: Harness(network: network), scheduler: scheduler)
    let provider = MoyaProvider<GitHub>(
        session: session,
        stubClosure: MoyaProvider.delayedStub(5),
        plugins: [AccessTokenPlugin(token: "t0"), NetworkLoggerPlugin(logger: Logger(label: "github"))],
        trackInflights: true)

    provider.request(.zen) { result in
        print(result.map(\.statusCode))   // success(200), at t = 5 s, on session.rootQueue
        answers.withLock { $0.append((result.map(\.statusCode), scheduler.now, session.rootQueue.isCurrent)) }   // (test)
    }
    try scheduler.runUntilIdle()
    return scheduler
}

/// docs/provider.md, "Endpoints".
func provider_endpoints(session: Session) -> MoyaProvider<GitHub> {
    let provider = MoyaProvider<GitHub>(session: session, endpointClosure: { target in
        MoyaProvider.defaultEndpointMapping(for: target)
            .adding(newHTTPHeaderFields: ["X-App-Version": "1.2"])     // new values win
    })
    return provider
}

/// docs/provider.md, "Stubs" (Moya-style test providers; their session is the default one).
func provider_stubs() -> (unauthorized: MoyaProvider<GitHub>, slow: MoyaProvider<GitHub>) {
    let endpointClosure: MoyaProvider<GitHub>.EndpointClosure = { target in
        Endpoint(url: URL(target: target).absoluteString, sampleResponseClosure: { .networkResponse(401, Data()) },
                 method: target.method, task: target.task, httpHeaderFields: target.headers)
    }
    let unauthorized = MoyaProvider<GitHub>(endpointClosure: endpointClosure, stubClosure: MoyaProvider.immediatelyStub)
    let slow = MoyaProvider<GitHub>(stubClosure: MoyaProvider.delayedStub(2))   // 2 s of the scheduler's clock
    return (unauthorized, slow)
}
