#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

/// Decides what happens to a redirect: follow, stop (the 3xx is the final response) or modify.
public protocol RedirectHandler: Sendable {
    func task(_ task: URLSessionTask, willBeRedirectedTo request: URLRequest, for response: HTTPURLResponse,
              completion: @escaping @Sendable (URLRequest?) -> Void)
}

/// The usual redirect policies.
public struct Redirector: RedirectHandler {
    public enum Behavior: Sendable {
        case follow
        case doNotFollow
        case modify(@Sendable (URLSessionTask, URLRequest, HTTPURLResponse) -> URLRequest?)
    }

    public let behavior: Behavior

    public init(behavior: Behavior) {
        self.behavior = behavior
    }

    public static let follow = Redirector(behavior: .follow)
    public static let doNotFollow = Redirector(behavior: .doNotFollow)

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
    public static var follow: Redirector { .follow }
    public static var doNotFollow: Redirector { .doNotFollow }
    public static func modify(using closure: @escaping @Sendable (URLSessionTask, URLRequest, HTTPURLResponse) -> URLRequest?) -> Redirector {
        Redirector(behavior: .modify(closure))
    }
}
