// App code written against Moya 15: only the import line differs (`import Moya` → `import TapedeckProvider`).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckProvider

/// One entry point for every backend, as several screens share it.
protocol Networking {
    @discardableResult
    func request(_ target: MultiTarget, completion: @escaping Completion) -> any Cancellable
}

final class NetworkManager: Networking, Sendable {
    let provider: MoyaProvider<MultiTarget>

    init(bookshelfToken: String, reviewsKey: String) {
        provider = MoyaProvider<MultiTarget>(plugins: [
            AccessTokenPlugin { target in
                target is ReviewsAPI ? reviewsKey : bookshelfToken
            },
        ])
    }

    @discardableResult
    func request(_ target: MultiTarget, completion: @escaping Completion) -> any Cancellable {
        provider.request(target, completion: completion)
    }
}

/// The provider every feature module builds on: the app's headers baked in, stubbed in previews.
final class AppProvider<Target: TargetType>: MoyaProvider<Target>, @unchecked Sendable {
    // (`@unchecked Sendable` restated: Swift 6 asks it of a subclass of a Sendable class.)
    init(stubbed: Bool = false, plugins: [any PluginType] = []) {
        super.init(stubClosure: stubbed ? MoyaProvider<Target>.immediatelyStub : MoyaProvider<Target>.neverStub,
                   plugins: [AppHeadersPlugin(appVersion: "3.1")] + plugins)
    }
}

/// A test double: every request fails as if the device were offline.
final class OfflineProvider<Target: TargetType>: MoyaProvider<Target>, @unchecked Sendable {
    @discardableResult
    override func request(_ target: Target, callbackQueue: DispatchQueue? = .none, progress: Moya.ProgressBlock? = .none,
                          completion: @escaping Moya.Completion) -> any Cancellable {
        completion(.failure(.underlying(URLError(.notConnectedToInternet), nil)))
        return CancellableToken {}
    }
}

/// Providers for unit tests, answering from sample data.
enum StubbedProviders {
    /// Every target answers `status` with `body`, at once.
    static func answering(_ status: Int, _ body: String) -> MoyaProvider<BookshelfAPI> {
        let endpointClosure: MoyaProvider<BookshelfAPI>.EndpointClosure = { target in
            Endpoint(url: URL(target: target).absoluteString,
                     sampleResponseClosure: { .networkResponse(status, Data(body.utf8)) },
                     method: target.method,
                     task: target.task,
                     httpHeaderFields: target.headers)
        }
        return MoyaProvider<BookshelfAPI>(endpointClosure: endpointClosure, stubClosure: MoyaProvider.immediatelyStub)
    }

    /// The targets' own sample data, two seconds later.
    static var slow: MoyaProvider<BookshelfAPI> {
        MoyaProvider<BookshelfAPI>(stubClosure: MoyaProvider.delayedStub(2))
    }
}
