public import Foundation

/// What a request's caller receives: the result, after every plugin's `process` (Moya's `Completion`).
public typealias Completion = @Sendable (_ result: Result<Response, ProviderError>) -> Void

/// Told how a request is getting on (Moya's `ProgressBlock`); see ``MoyaProvider``'s
/// `request(_:callbackQueue:progress:completion:)` for when it is called here.
public typealias ProgressBlock = @Sendable (_ progress: ProgressResponse) -> Void

/// A request's progress, as a ``ProgressBlock`` receives it (Moya's `ProgressResponse`): the
/// transfer's ``progressObject`` on the way, then ``completed`` with the ``response`` when it succeeded.
public struct ProgressResponse: Sendable {
    /// The response, once the request succeeded.
    public let response: Response?
    /// The transfer's `Progress` (the upload's for an upload, else the download's), on the way.
    public let progressObject: Progress?

    /// A progress report.
    public init(progress: Progress? = nil, response: Response? = nil) {
        self.progressObject = progress
        self.response = response
    }

    /// 1 once completed; else the progress object's fraction when it knows the total, else 0.
    public var progress: Double {
        if completed { return 1 }
        guard let progressObject, progressObject.totalUnitCount > 0 else { return 0 }
        return progressObject.fractionCompleted
    }

    /// True when there is a response.
    public var completed: Bool { response != nil }
}
