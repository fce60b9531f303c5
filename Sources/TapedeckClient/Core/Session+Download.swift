import Foundation

// Downloads: Alamofire's `download` methods. Each makes a ``DownloadRequest`` whose body is written
// to a file and moved to its destination (see DownloadRequest for why a data task carries it).

extension Session {
    /// Downloads `url` (with untyped parameters put in by `encoding`) to `destination` (nil: next
    /// to the temporary file, as Alamofire's default).
    ///
    /// ```swift
    /// session.download("https://example.com/report.pdf", to: DownloadRequest.suggestedDownloadDestination()).responseURL { … }
    /// ```
    @preconcurrency
    public func download(
        _ convertible: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil, requestModifier: RequestModifier? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        download(RequestConvertible(url: convertible, method: method, parameters: parameters, encoding: encoding, headers: headers,
                                    requestModifier: requestModifier), interceptor: interceptor,
                 shouldAutomaticallyResume: shouldAutomaticallyResume, to: destination)
    }

    /// Downloads `url` with `Encodable` parameters put in by `encoder`.
    @preconcurrency
    public func download<Parameters: Encodable & Sendable>(
        _ convertible: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil, requestModifier: RequestModifier? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        download(RequestEncodableConvertible(url: convertible, method: method, parameters: parameters, encoder: encoder, headers: headers,
                                             requestModifier: requestModifier), interceptor: interceptor,
                 shouldAutomaticallyResume: shouldAutomaticallyResume, to: destination)
    }

    /// Downloads what the URLRequest `convertible` builds (asked again on every attempt).
    /// `shouldAutomaticallyResume` nil: ``startRequestsImmediately`` decides, as for data requests.
    @preconcurrency
    public func download(
        _ convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        let request = DownloadRequest(
            id: nextRequestID(), convertible: convertible, destination: destination, underlyingQueue: rootQueue,
            serializationQueue: serializationQueue, eventMonitor: eventMonitor, interceptor: interceptor, delegate: self)
        if let shouldAutomaticallyResume { request.shouldAutomaticallyResume(shouldAutomaticallyResume) }
        if requestSetup == .eager { perform(request) }
        return request
    }
}
