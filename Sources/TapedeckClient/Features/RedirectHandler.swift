#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

/// Decides what happens to a redirect: follow, stop (the 3xx is the final response) or modify.
public protocol RedirectHandler: Sendable {
    /// Calls `completion` with the request to follow (`request`, or a changed one), or nil to stop.
    func task(_ task: URLSessionTask, willBeRedirectedTo request: URLRequest, for response: HTTPURLResponse,
              completion: @escaping @Sendable (URLRequest?) -> Void)
}

/// The usual redirect policies.
public struct Redirector: RedirectHandler {
    /// What to do with every redirect.
    public enum Behavior: Sendable {
        /// Follow it unchanged.
        case follow
        /// Stop: the 3xx response is the final one.
        case doNotFollow
        /// Follow the request the closure returns, or stop when it returns nil.
        case modify(@Sendable (URLSessionTask, URLRequest, HTTPURLResponse) -> URLRequest?)
    }

    /// What this redirector does.
    public let behavior: Behavior

    /// A redirector doing `behavior`.
    public init(behavior: Behavior) {
        self.behavior = behavior
    }

    /// Follows every redirect.
    public static let follow = Redirector(behavior: .follow)
    /// Stops at every redirect.
    public static let doNotFollow = Redirector(behavior: .doNotFollow)

    /// Answers as ``behavior`` says.
    @preconcurrency
    public func task(_ task: URLSessionTask, willBeRedirectedTo request: URLRequest, for response: HTTPURLResponse,
                     completion: @escaping @Sendable (URLRequest?) -> Void) {
        switch behavior {
        case .follow: completion(request)
        case .doNotFollow: completion(nil)
        case let .modify(closure): completion(closure(task, request, response))
        }
    }
}

extension RedirectHandler where Self == Redirector {
    /// Follows every redirect.
    public static var follow: Redirector { .follow }
    /// Stops at every redirect.
    public static var doNotFollow: Redirector { .doNotFollow }
    /// Follows the request `closure` returns, or stops when it returns nil.
    @preconcurrency
    public static func modify(using closure: @escaping @Sendable (URLSessionTask, URLRequest, HTTPURLResponse) -> URLRequest?) -> Redirector {
        Redirector(behavior: .modify(closure))
    }
}
