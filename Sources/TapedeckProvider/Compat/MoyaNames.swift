public import Dispatch
public import TapedeckClient

// Moya's names for what this module calls otherwise, so that Moya code compiles with its import
// line changed (`import Moya` → `import TapedeckProvider`). docs/provider.md lists them.

/// An earlier name of ``MoyaProvider``, kept so that code written with it still compiles.
public typealias TargetProvider<Target: TargetType> = MoyaProvider<Target>

/// Moya's `Task`: what a target's request carries (``TargetTask``), so that `var task: Task {
/// .requestPlain }` compiles unchanged. As with Moya, it hides Swift's concurrency `Task` in a file
/// that imports this module; such a file spells that one `_Concurrency.Task`.
///
/// ```swift
/// var task: Task { .requestParameters(parameters: ["q": "swift"], encoding: URLEncoding.default) }
/// _Concurrency.Task { await refresh() }
/// ```
public typealias Task = TargetTask

/// Moya's name for ``ProviderError``.
public typealias MoyaError = ProviderError

/// Moya's name for TapedeckClient's `HTTPMethod` (Moya's is Alamofire's).
public typealias Method = HTTPMethod

/// TapedeckClient's `Session`, named here as Moya names Alamofire's.
public typealias Session = TapedeckClient.Session

/// TapedeckClient's `ParameterEncoding`, named here as Moya names Alamofire's.
public typealias ParameterEncoding = TapedeckClient.ParameterEncoding

/// TapedeckClient's `URLEncoding`, named here as Moya names Alamofire's.
public typealias URLEncoding = TapedeckClient.URLEncoding

/// TapedeckClient's `JSONEncoding`, named here as Moya names Alamofire's.
public typealias JSONEncoding = TapedeckClient.JSONEncoding

/// TapedeckClient's `RequestInterceptor`, named here as Moya names Alamofire's.
public typealias RequestInterceptor = TapedeckClient.RequestInterceptor

/// Moya's module-qualified names — `Moya.Method`, `Moya.Task`, `Moya.Response`, … — as members of
/// a namespace, so that code spelling them compiles unchanged.
///
/// ```swift
/// var method: Moya.Method { .get }
/// var task: Moya.Task { .requestPlain }
/// ```
public enum Moya {
    /// ``TargetTask``.
    public typealias Task = TargetTask
    /// TapedeckClient's `HTTPMethod`.
    public typealias Method = HTTPMethod
    /// ``TapedeckProvider/Response``.
    public typealias Response = TapedeckProvider.Response
    /// ``TapedeckProvider/TargetType``.
    public typealias TargetType = TapedeckProvider.TargetType
    /// ``MoyaProvider``.
    public typealias MoyaProvider<Target: TapedeckProvider.TargetType> = TapedeckProvider.MoyaProvider<Target>
    /// ``ProviderError``.
    public typealias MoyaError = ProviderError
    /// ``TapedeckProvider/Endpoint``.
    public typealias Endpoint = TapedeckProvider.Endpoint
    /// ``TapedeckProvider/StubBehavior``.
    public typealias StubBehavior = TapedeckProvider.StubBehavior
    /// ``TapedeckProvider/Completion``.
    public typealias Completion = TapedeckProvider.Completion
    /// ``TapedeckProvider/ProgressBlock``.
    public typealias ProgressBlock = TapedeckProvider.ProgressBlock
    /// ``TapedeckProvider/ProgressResponse``.
    public typealias ProgressResponse = TapedeckProvider.ProgressResponse
    /// ``TapedeckProvider/Cancellable``.
    public typealias Cancellable = TapedeckProvider.Cancellable
    /// ``TapedeckProvider/MultiTarget``.
    public typealias MultiTarget = TapedeckProvider.MultiTarget
    /// ``TapedeckProvider/ValidationType``.
    public typealias ValidationType = TapedeckProvider.ValidationType
    /// ``TapedeckProvider/PluginType``.
    public typealias PluginType = TapedeckProvider.PluginType
    /// TapedeckClient's `Session`.
    public typealias Session = TapedeckClient.Session
    /// ``TapedeckProvider/MultipartFormData`` (one part of a multipart upload).
    public typealias MultipartFormData = TapedeckProvider.MultipartFormData
    /// ``TapedeckProvider/MultipartFormBodyPart`` (Moya master's name for a form's part).
    public typealias MultipartFormBodyPart = TapedeckProvider.MultipartFormBodyPart
    /// ``TapedeckProvider/DownloadDestination``.
    public typealias DownloadDestination = TapedeckProvider.DownloadDestination
    /// ``TapedeckProvider/RequestMultipartFormData`` (TapedeckClient's form).
    public typealias RequestMultipartFormData = TapedeckProvider.RequestMultipartFormData
    /// ``TapedeckProvider/EndpointSampleResponse`` (apps alias it: `typealias SampleResponse = Moya.EndpointSampleResponse`).
    public typealias EndpointSampleResponse = TapedeckProvider.EndpointSampleResponse
    /// ``TapedeckProvider/RequestType``.
    public typealias RequestType = TapedeckProvider.RequestType
    /// ``TapedeckProvider/CancellableToken``.
    public typealias CancellableToken = TapedeckProvider.CancellableToken
    /// ``TapedeckProvider/TargetProviderType``.
    public typealias MoyaProviderType = TapedeckProvider.TargetProviderType
    /// ``TapedeckProvider/AccessTokenPlugin``.
    public typealias AccessTokenPlugin = TapedeckProvider.AccessTokenPlugin
    /// ``TapedeckProvider/AccessTokenAuthorizable``.
    public typealias AccessTokenAuthorizable = TapedeckProvider.AccessTokenAuthorizable
    /// ``TapedeckProvider/AuthorizationType``.
    public typealias AuthorizationType = TapedeckProvider.AuthorizationType
    /// ``TapedeckProvider/NetworkLoggerPlugin``.
    public typealias NetworkLoggerPlugin = TapedeckProvider.NetworkLoggerPlugin
    /// ``TapedeckProvider/CredentialsPlugin``.
    public typealias CredentialsPlugin = TapedeckProvider.CredentialsPlugin
    /// ``TapedeckProvider/NetworkActivityPlugin``.
    public typealias NetworkActivityPlugin = TapedeckProvider.NetworkActivityPlugin
    /// ``TapedeckProvider/NetworkActivityChangeType``.
    public typealias NetworkActivityChangeType = TapedeckProvider.NetworkActivityChangeType
    /// TapedeckClient's `ParameterEncoding` (Moya's is Alamofire's).
    public typealias ParameterEncoding = TapedeckClient.ParameterEncoding
    /// TapedeckClient's `URLEncoding` (Moya's is Alamofire's).
    public typealias URLEncoding = TapedeckClient.URLEncoding
    /// TapedeckClient's `JSONEncoding` (Moya's is Alamofire's).
    public typealias JSONEncoding = TapedeckClient.JSONEncoding
    /// TapedeckClient's `RequestInterceptor` (Moya's is Alamofire's).
    public typealias RequestInterceptor = TapedeckClient.RequestInterceptor
}

/// What Moya's Rx and Combine extensions (and an app's generic code or mocks) require of a
/// provider: its designated request method (Moya's `MoyaProviderType`).
public protocol TargetProviderType: AnyObject {
    /// The provider's target type.
    associatedtype Target: TapedeckProvider.TargetType

    /// Sends `target`; see ``MoyaProvider``'s `request(_:callbackQueue:progress:completion:)`.
    /// `@preconcurrency`, as that method is: generic code over the protocol (Moya's Rx and Combine
    /// extensions, an app's wrapper) whose completion captures non-`Sendable` state gets a warning
    /// in the Swift 6 mode, not an error.
    @preconcurrency
    func request(_ target: Target, callbackQueue: DispatchQueue?, progress: ProgressBlock?, completion: @escaping Completion)
        -> any Cancellable
}

/// Moya's name for ``TargetProviderType``.
public typealias MoyaProviderType = TargetProviderType

extension MoyaProvider: TargetProviderType {}
