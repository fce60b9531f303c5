/// Whether network activity began or ended.
public enum NetworkActivityChangeType: Hashable, Sendable {
    /// A request is about to be sent (`willSend`).
    case began
    /// Its result arrived (`didReceive`), whatever it was, cancellation included.
    case ended
}

/// Calls a closure when a request begins (`willSend`) and ends (`didReceive`), e.g. to drive an
/// activity indicator.
///
/// ```swift
/// let activity = NetworkActivityPlugin { change, target in
///     print(change, target)
/// }
/// ```
public struct NetworkActivityPlugin: PluginType {
    /// Told of each change, with the request's target.
    public typealias NetworkActivityClosure = @Sendable (_ change: NetworkActivityChangeType, _ target: any TargetType) -> Void

    /// Called with each change (on the session's requestQueue for `.began`, the callback queue for `.ended`).
    public let networkActivityClosure: NetworkActivityClosure

    /// A plugin calling `networkActivityClosure`.
    @preconcurrency
    public init(networkActivityClosure: @escaping NetworkActivityClosure) {
        self.networkActivityClosure = networkActivityClosure
    }

    /// Reports `.began`.
    public func willSend(_ request: any RequestType, target: any TargetType) {
        networkActivityClosure(.began, target)
    }

    /// Reports `.ended`.
    public func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) {
        networkActivityClosure(.ended, target)
    }
}
