// Alamofire's module-qualified spellings (`Alamofire.Session`, `Alamofire.RequestInterceptor`):
// apps write them where their own code has a type of the same name, so the namespace must exist
// for such code to compile with only its import line changed.

/// Alamofire's names as members of a namespace, so that code qualifying them with the module's
/// name compiles against TapedeckClient unchanged: `Alamofire.Session`, `Alamofire.AF`,
/// `Alamofire.HTTPMethod.get`, `final class Auth: Alamofire.RequestInterceptor`.
///
/// ```swift
/// let session: Alamofire.Session = Alamofire.Session(configuration: .default)
/// final class TokenAdapter: Alamofire.RequestInterceptor { /* adapt(_:for:completion:) */ }
/// ```
public enum Alamofire {
    /// The shared session, `AF`.
    public static var AF: Session { TapedeckClient.AF }
    /// TapedeckClient's ``TapedeckClient/AFDataResponse``.
    public typealias AFDataResponse<Success> = TapedeckClient.AFDataResponse<Success>
    /// TapedeckClient's ``TapedeckClient/AFDownloadResponse``.
    public typealias AFDownloadResponse<Success> = TapedeckClient.AFDownloadResponse<Success>
    /// TapedeckClient's ``TapedeckClient/AFError``.
    public typealias AFError = TapedeckClient.AFError
    /// TapedeckClient's ``TapedeckClient/AFResult``.
    public typealias AFResult<Success> = TapedeckClient.AFResult<Success>
    /// TapedeckClient's ``TapedeckClient/AdaptHandler``.
    public typealias AdaptHandler = TapedeckClient.AdaptHandler
    /// TapedeckClient's ``TapedeckClient/Adapter``.
    public typealias Adapter = TapedeckClient.Adapter
    /// TapedeckClient's ``TapedeckClient/AlamofireExtended``.
    public typealias AlamofireExtended = TapedeckClient.AlamofireExtended
    /// TapedeckClient's ``TapedeckClient/AlamofireExtension``.
    public typealias AlamofireExtension<ExtendedType> = TapedeckClient.AlamofireExtension<ExtendedType>
    /// TapedeckClient's ``TapedeckClient/AuthenticationCredential``.
    public typealias AuthenticationCredential = TapedeckClient.AuthenticationCredential
    /// TapedeckClient's ``TapedeckClient/AuthenticationError``.
    public typealias AuthenticationError = TapedeckClient.AuthenticationError
    /// TapedeckClient's ``TapedeckClient/AuthenticationInterceptor``.
    public typealias AuthenticationInterceptor<AuthenticatorType: TapedeckClient.Authenticator> = TapedeckClient.AuthenticationInterceptor<AuthenticatorType>
    /// TapedeckClient's ``TapedeckClient/Authenticator``.
    public typealias Authenticator = TapedeckClient.Authenticator
    /// TapedeckClient's ``TapedeckClient/CachedResponseHandler``.
    public typealias CachedResponseHandler = TapedeckClient.CachedResponseHandler
    /// TapedeckClient's ``TapedeckClient/ClosureEventMonitor``.
    public typealias ClosureEventMonitor = TapedeckClient.ClosureEventMonitor
    /// TapedeckClient's ``TapedeckClient/CompositeEventMonitor``.
    public typealias CompositeEventMonitor = TapedeckClient.CompositeEventMonitor
    /// TapedeckClient's ``TapedeckClient/ConnectionLostRetryPolicy``.
    public typealias ConnectionLostRetryPolicy = TapedeckClient.ConnectionLostRetryPolicy
    /// TapedeckClient's ``TapedeckClient/DataDecoder``.
    public typealias DataDecoder = TapedeckClient.DataDecoder
    /// TapedeckClient's ``TapedeckClient/DataPreprocessor``.
    public typealias DataPreprocessor = TapedeckClient.DataPreprocessor
    /// TapedeckClient's ``TapedeckClient/DataRequest``.
    public typealias DataRequest = TapedeckClient.DataRequest
    /// TapedeckClient's ``TapedeckClient/DataStreamRequest``.
    public typealias DataStreamRequest = TapedeckClient.DataStreamRequest
    /// TapedeckClient's ``TapedeckClient/DataStreamSerializer``.
    public typealias DataStreamSerializer = TapedeckClient.DataStreamSerializer
    /// TapedeckClient's ``TapedeckClient/DataStreamTask``.
    public typealias DataStreamTask = TapedeckClient.DataStreamTask
    /// TapedeckClient's ``TapedeckClient/DataResponse``.
    public typealias DataResponse<Success, Failure: Error> = TapedeckClient.DataResponse<Success, Failure>
    /// TapedeckClient's ``TapedeckClient/DataResponseSerializer``.
    public typealias DataResponseSerializer = TapedeckClient.DataResponseSerializer
    /// TapedeckClient's ``TapedeckClient/DataResponseSerializerProtocol``.
    public typealias DataResponseSerializerProtocol = TapedeckClient.DataResponseSerializerProtocol
    /// TapedeckClient's ``TapedeckClient/DataTask``.
    public typealias DataTask<Value: Sendable> = TapedeckClient.DataTask<Value>
    /// TapedeckClient's ``TapedeckClient/DecodableResponseSerializer``.
    public typealias DecodableResponseSerializer<T: Decodable & Sendable> = TapedeckClient.DecodableResponseSerializer<T>
    /// TapedeckClient's ``TapedeckClient/DecodableStreamSerializer``.
    public typealias DecodableStreamSerializer<T: Decodable & Sendable> = TapedeckClient.DecodableStreamSerializer<T>
    /// TapedeckClient's ``TapedeckClient/DownloadRequest``.
    public typealias DownloadRequest = TapedeckClient.DownloadRequest
    /// TapedeckClient's ``TapedeckClient/DownloadResponse``.
    public typealias DownloadResponse<Success, Failure: Error> = TapedeckClient.DownloadResponse<Success, Failure>
    /// TapedeckClient's ``TapedeckClient/DownloadResponseSerializerProtocol``.
    public typealias DownloadResponseSerializerProtocol = TapedeckClient.DownloadResponseSerializerProtocol
    /// TapedeckClient's ``TapedeckClient/DownloadTask``.
    public typealias DownloadTask<Value: Sendable> = TapedeckClient.DownloadTask<Value>
    /// TapedeckClient's ``TapedeckClient/Empty``.
    public typealias Empty = TapedeckClient.Empty
    /// TapedeckClient's ``TapedeckClient/EmptyResponse``.
    public typealias EmptyResponse = TapedeckClient.EmptyResponse
    /// TapedeckClient's ``TapedeckClient/EventMonitor``.
    public typealias EventMonitor = TapedeckClient.EventMonitor
    /// TapedeckClient's ``TapedeckClient/GoogleXSSIPreprocessor``.
    public typealias GoogleXSSIPreprocessor = TapedeckClient.GoogleXSSIPreprocessor
    /// TapedeckClient's ``TapedeckClient/HTTPHeader``.
    public typealias HTTPHeader = TapedeckClient.HTTPHeader
    /// TapedeckClient's ``TapedeckClient/HTTPHeaders``.
    public typealias HTTPHeaders = TapedeckClient.HTTPHeaders
    /// TapedeckClient's ``TapedeckClient/HTTPMethod``.
    public typealias HTTPMethod = TapedeckClient.HTTPMethod
    /// TapedeckClient's ``TapedeckClient/Interceptor``.
    public typealias Interceptor = TapedeckClient.Interceptor
    /// TapedeckClient's ``TapedeckClient/JSONEncoding``.
    public typealias JSONEncoding = TapedeckClient.JSONEncoding
    /// TapedeckClient's ``TapedeckClient/JSONParameterEncoder``.
    public typealias JSONParameterEncoder = TapedeckClient.JSONParameterEncoder
    /// TapedeckClient's ``TapedeckClient/JSONResponseSerializer``.
    public typealias JSONResponseSerializer = TapedeckClient.JSONResponseSerializer
    /// TapedeckClient's ``TapedeckClient/MultipartFormData``.
    public typealias MultipartFormData = TapedeckClient.MultipartFormData
    /// TapedeckClient's ``TapedeckClient/ParameterEncoder``.
    public typealias ParameterEncoder = TapedeckClient.ParameterEncoder
    /// TapedeckClient's ``TapedeckClient/ParameterEncoding``.
    public typealias ParameterEncoding = TapedeckClient.ParameterEncoding
    /// TapedeckClient's ``TapedeckClient/Parameters``.
    public typealias Parameters = TapedeckClient.Parameters
    /// TapedeckClient's ``TapedeckClient/PassthroughPreprocessor``.
    public typealias PassthroughPreprocessor = TapedeckClient.PassthroughPreprocessor
    /// TapedeckClient's ``TapedeckClient/PassthroughStreamSerializer``.
    public typealias PassthroughStreamSerializer = TapedeckClient.PassthroughStreamSerializer
    /// TapedeckClient's ``TapedeckClient/RedirectHandler``.
    public typealias RedirectHandler = TapedeckClient.RedirectHandler
    /// TapedeckClient's ``TapedeckClient/Redirector``.
    public typealias Redirector = TapedeckClient.Redirector
    /// TapedeckClient's ``TapedeckClient/Request``.
    public typealias Request = TapedeckClient.Request
    /// TapedeckClient's ``TapedeckClient/RequestAdapter``.
    public typealias RequestAdapter = TapedeckClient.RequestAdapter
    /// TapedeckClient's ``TapedeckClient/RequestAdapterState``.
    public typealias RequestAdapterState = TapedeckClient.RequestAdapterState
    /// TapedeckClient's ``TapedeckClient/RequestInterceptor``.
    public typealias RequestInterceptor = TapedeckClient.RequestInterceptor
    /// TapedeckClient's ``TapedeckClient/RequestModifier``.
    public typealias RequestModifier = TapedeckClient.RequestModifier
    /// TapedeckClient's ``TapedeckClient/RequestRetrier``.
    public typealias RequestRetrier = TapedeckClient.RequestRetrier
    /// TapedeckClient's ``TapedeckClient/ResponseSerializer``.
    public typealias ResponseSerializer = TapedeckClient.ResponseSerializer
    /// TapedeckClient's ``TapedeckClient/Retrier``.
    public typealias Retrier = TapedeckClient.Retrier
    /// TapedeckClient's ``TapedeckClient/ResponseCacher``.
    public typealias ResponseCacher = TapedeckClient.ResponseCacher
    /// TapedeckClient's ``TapedeckClient/RetryHandler``.
    public typealias RetryHandler = TapedeckClient.RetryHandler
    /// TapedeckClient's ``TapedeckClient/RetryPolicy``.
    public typealias RetryPolicy = TapedeckClient.RetryPolicy
    /// TapedeckClient's ``TapedeckClient/RetryResult``.
    public typealias RetryResult = TapedeckClient.RetryResult
    /// TapedeckClient's ``TapedeckClient/ServerTrustEvaluating``.
    public typealias ServerTrustEvaluating = TapedeckClient.ServerTrustEvaluating
    /// TapedeckClient's ``TapedeckClient/ServerTrustManager``.
    public typealias ServerTrustManager = TapedeckClient.ServerTrustManager
    /// TapedeckClient's ``TapedeckClient/Session``.
    public typealias Session = TapedeckClient.Session
    /// TapedeckClient's ``TapedeckClient/SessionDelegate``.
    public typealias SessionDelegate = TapedeckClient.SessionDelegate
    /// TapedeckClient's ``TapedeckClient/StreamOf``.
    public typealias StreamOf<Element: Sendable> = TapedeckClient.StreamOf<Element>
    /// TapedeckClient's ``TapedeckClient/StringResponseSerializer``.
    public typealias StringResponseSerializer = TapedeckClient.StringResponseSerializer
    /// TapedeckClient's ``TapedeckClient/StringStreamSerializer``.
    public typealias StringStreamSerializer = TapedeckClient.StringStreamSerializer
    /// TapedeckClient's ``TapedeckClient/URLConvertible``.
    public typealias URLConvertible = TapedeckClient.URLConvertible
    /// TapedeckClient's ``TapedeckClient/URLEncodedFormEncoder``.
    public typealias URLEncodedFormEncoder = TapedeckClient.URLEncodedFormEncoder
    /// TapedeckClient's ``TapedeckClient/URLEncodedFormParameterEncoder``.
    public typealias URLEncodedFormParameterEncoder = TapedeckClient.URLEncodedFormParameterEncoder
    /// TapedeckClient's ``TapedeckClient/URLEncoding``.
    public typealias URLEncoding = TapedeckClient.URLEncoding
    /// TapedeckClient's ``TapedeckClient/URLRequestConvertible``.
    public typealias URLRequestConvertible = TapedeckClient.URLRequestConvertible
    /// TapedeckClient's ``TapedeckClient/URLResponseSerializer``.
    public typealias URLResponseSerializer = TapedeckClient.URLResponseSerializer
    /// TapedeckClient's ``TapedeckClient/UploadRequest``.
    public typealias UploadRequest = TapedeckClient.UploadRequest
    /// TapedeckClient's ``TapedeckClient/UploadableConvertible``.
    public typealias UploadableConvertible = TapedeckClient.UploadableConvertible
    /// TapedeckClient's ``TapedeckClient/Validation``.
    public typealias Validation = TapedeckClient.Validation
    /// TapedeckClient's ``TapedeckClient/ValidationResult``.
    public typealias ValidationResult = TapedeckClient.ValidationResult
}
