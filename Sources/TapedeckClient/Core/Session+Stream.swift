import Foundation

// Streams: Alamofire's `streamRequest` methods. Each makes a ``DataStreamRequest`` whose body goes
// to its handlers piece by piece.

extension Session {
    /// A stream request for `url` with `Encodable` parameters put in by `encoder`.
    ///
    /// ```swift
    /// session.streamRequest("http://api.test/chat", method: .post, parameters: prompt, encoder: JSONParameterEncoder.default)
    ///     .validate().responseStreamString { stream in print(stream.value ?? "") }
    /// ```
    @preconcurrency
    public func streamRequest<Parameters: Encodable & Sendable>(
        _ convertible: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default, headers: HTTPHeaders? = nil,
        automaticallyCancelOnStreamError: Bool = false, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, requestModifier: RequestModifier? = nil
    ) -> DataStreamRequest {
        streamRequest(RequestEncodableConvertible(url: convertible, method: method, parameters: parameters, encoder: encoder, headers: headers,
                                                  requestModifier: requestModifier),
                      automaticallyCancelOnStreamError: automaticallyCancelOnStreamError, interceptor: interceptor,
                      shouldAutomaticallyResume: shouldAutomaticallyResume)
    }

    /// A stream request for `url` without parameters (`requestModifier` changes the URLRequest,
    /// e.g. its timeout or body, on every attempt).
    @preconcurrency
    public func streamRequest(
        _ convertible: any URLConvertible, method: HTTPMethod = .get, headers: HTTPHeaders? = nil,
        automaticallyCancelOnStreamError: Bool = false, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, requestModifier: RequestModifier? = nil
    ) -> DataStreamRequest {
        streamRequest(RequestConvertible(url: convertible, method: method, parameters: nil, encoding: URLEncoding.default, headers: headers,
                                         requestModifier: requestModifier),
                      automaticallyCancelOnStreamError: automaticallyCancelOnStreamError, interceptor: interceptor,
                      shouldAutomaticallyResume: shouldAutomaticallyResume)
    }

    /// A stream request for what `convertible` builds (asked again on every attempt).
    @preconcurrency
    public func streamRequest(
        _ convertible: any URLRequestConvertible, automaticallyCancelOnStreamError: Bool = false,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil
    ) -> DataStreamRequest {
        let request = DataStreamRequest(
            id: nextRequestID(), convertible: convertible, automaticallyCancelOnStreamError: automaticallyCancelOnStreamError,
            underlyingQueue: rootQueue, serializationQueue: serializationQueue, eventMonitor: eventMonitor, interceptor: interceptor,
            delegate: self)
        if let shouldAutomaticallyResume { request.shouldAutomaticallyResume(shouldAutomaticallyResume) }
        if requestSetup == .eager { perform(request) }
        return request
    }
}
