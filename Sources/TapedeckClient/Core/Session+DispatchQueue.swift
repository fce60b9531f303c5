public import Dispatch
public import Foundation
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// Alamofire takes `DispatchQueue`s where this client takes scheduler queues: a Session's root,
// request and serialization queues, handlers' `queue:` (often `.main`), `cancelAllRequests`, and
// the cURL / creation callbacks. These overloads accept a DispatchQueue there and use the queue of
// the session's scheduler that stands for it (docs/client.md, "Source compatibility with Alamofire 5"):
// live, a serial queue targeting it, so the work runs on that DispatchQueue; simulated, a simulated
// serial queue with its label, so the work stays on the virtual clock and in seed order (it never
// runs on the real DispatchQueue).

extension Session {
    /// The queue of this session's scheduler that stands for `dispatchQueue`: on a `LiveScheduler` a
    /// serial queue targeting it (made once per DispatchQueue); on a simulated scheduler a serial
    /// queue with its label (one per label), which runs in the simulation like any other.
    ///
    /// ```swift
    /// let main = session.queue(standingFor: .main)   // what `responseData(queue: .main)` uses
    /// ```
    public func queue(standingFor dispatchQueue: DispatchQueue) -> any SchedulerQueue {
        let live = scheduler is LiveScheduler
        let key = live ? "\(ObjectIdentifier(dispatchQueue))" : dispatchQueue.label
        return state.write { state in
            if let existing = state.dispatchQueueStandIns[key] { return existing }
            let made = Self.makeStandIn(for: dispatchQueue, on: scheduler)
            state.dispatchQueueStandIns[key] = made
            return made
        }
    }

    /// A new queue of `scheduler` standing for `dispatchQueue` (see ``queue(standingFor:)``).
    static func makeStandIn(for dispatchQueue: DispatchQueue, on scheduler: any Scheduler) -> any SchedulerQueue {
        if let live = scheduler as? LiveScheduler { return live.makeQueue(wrapping: dispatchQueue) }
        return scheduler.makeQueue(label: dispatchQueue.label, target: nil)
    }

    /// Alamofire's convenience initialiser with its `DispatchQueue` parameters: each queue is turned
    /// into one of the resolved transport's scheduler (live: work runs on it; simulated: a queue
    /// with its label), then as the initialiser taking scheduler queues.
    ///
    /// ```swift
    /// let session = Session(rootQueue: DispatchQueue(label: "app.network"), interceptor: .retryPolicy)
    /// ```
    public convenience init(
        configuration: URLSessionConfiguration = URLSessionConfiguration.af.default,
        delegate: SessionDelegate = SessionDelegate(),
        rootQueue: DispatchQueue,
        startRequestsImmediately: Bool = true,
        requestSetup: RequestSetup = .lazy,
        requestQueue: DispatchQueue? = nil,
        serializationQueue: DispatchQueue? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        serverTrustManager: ServerTrustManager? = nil,
        redirectHandler: (any RedirectHandler)? = nil,
        cachedResponseHandler: (any CachedResponseHandler)? = nil,
        eventMonitors: [any EventMonitor] = []
    ) {
        let scheduler = DefaultTransport.resolved.scheduler
        self.init(
            configuration: configuration, delegate: delegate, rootQueue: Self.makeStandIn(for: rootQueue, on: scheduler),
            startRequestsImmediately: startRequestsImmediately, requestSetup: requestSetup,
            requestQueue: requestQueue.map { Self.makeStandIn(for: $0, on: scheduler) },
            serializationQueue: serializationQueue.map { Self.makeStandIn(for: $0, on: scheduler) },
            interceptor: interceptor, serverTrustManager: serverTrustManager, redirectHandler: redirectHandler,
            cachedResponseHandler: cachedResponseHandler, eventMonitors: eventMonitors)
    }

    /// Cancels every running request, then calls `completion` on the queue standing for `queue`
    /// (Alamofire's `cancelAllRequests(completingOnQueue: .main)`).
    @preconcurrency
    public func cancelAllRequests(completingOnQueue queue: DispatchQueue, completion: (@Sendable () -> Void)? = nil) {
        cancelAllRequests(completingOn: self.queue(standingFor: queue), completion: completion)
    }
}

extension Request {
    /// The queue standing for `dispatchQueue` in this request's session (the rootQueue once the
    /// session is gone).
    func queue(standingFor dispatchQueue: DispatchQueue) -> any SchedulerQueue {
        delegate?.queue(standingFor: dispatchQueue) ?? underlyingQueue
    }

    /// `cURLDescription(on:calling:)` with the handler on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func cURLDescription(on queue: DispatchQueue, calling handler: @escaping @Sendable (String) -> Void) -> Self {
        cURLDescription(on: self.queue(standingFor: queue), calling: handler)
    }

    /// `onURLRequestCreation(on:perform:)` with the handler on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func onURLRequestCreation(on queue: DispatchQueue, perform handler: @escaping @Sendable (URLRequest) -> Void) -> Self {
        onURLRequestCreation(on: self.queue(standingFor: queue), perform: handler)
    }

    /// `onURLSessionTaskCreation(on:perform:)` with the handler on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func onURLSessionTaskCreation(on queue: DispatchQueue, perform handler: @escaping @Sendable (URLSessionTask) -> Void) -> Self {
        onURLSessionTaskCreation(on: self.queue(standingFor: queue), perform: handler)
    }
}

extension DataRequest {
    /// `response(queue:completionHandler:)` with the handler on the queue standing for a
    /// `DispatchQueue` (Alamofire's `response(queue: .main) { … }`).
    @preconcurrency
    @discardableResult
    public func response(queue: DispatchQueue, completionHandler: @escaping @Sendable (ClientDataResponse<Data?>) -> Void) -> Self {
        response(queue: self.queue(standingFor: queue), completionHandler: completionHandler)
    }

    /// `response(queue:responseSerializer:completionHandler:)` with the handler on the queue
    /// standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func response<Serializer: DataResponseSerializerProtocol>(
        queue: DispatchQueue, responseSerializer serializer: Serializer,
        completionHandler: @escaping @Sendable (ClientDataResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        response(queue: self.queue(standingFor: queue), responseSerializer: serializer, completionHandler: completionHandler)
    }

    /// `responseData(queue:dataPreprocessor:emptyResponseCodes:emptyRequestMethods:completionHandler:)`
    /// with the handler on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseData(
        queue: DispatchQueue, dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (ClientDataResponse<Data>) -> Void
    ) -> Self {
        responseData(queue: self.queue(standingFor: queue), dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes,
                     emptyRequestMethods: emptyRequestMethods, completionHandler: completionHandler)
    }

    /// `responseString(queue:dataPreprocessor:encoding:emptyResponseCodes:emptyRequestMethods:completionHandler:)`
    /// with the handler on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseString(
        queue: DispatchQueue, dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil, emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (ClientDataResponse<String>) -> Void
    ) -> Self {
        responseString(queue: self.queue(standingFor: queue), dataPreprocessor: dataPreprocessor, encoding: encoding,
                       emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods, completionHandler: completionHandler)
    }

    /// `responseJSON(queue:dataPreprocessor:emptyResponseCodes:emptyRequestMethods:options:completionHandler:)`
    /// with the handler on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseJSON(
        queue: DispatchQueue, dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods,
        options: JSONSerialization.ReadingOptions = .allowFragments,
        completionHandler: @escaping @Sendable (ClientDataResponse<Any>) -> Void
    ) -> Self {
        responseJSON(queue: self.queue(standingFor: queue), dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes,
                     emptyRequestMethods: emptyRequestMethods, options: options, completionHandler: completionHandler)
    }

    /// `responseDecodable(of:queue:dataPreprocessor:decoder:emptyResponseCodes:emptyRequestMethods:completionHandler:)`
    /// with the handler on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self, queue: DispatchQueue,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (ClientDataResponse<T>) -> Void
    ) -> Self {
        responseDecodable(of: type, queue: self.queue(standingFor: queue), dataPreprocessor: dataPreprocessor, decoder: decoder,
                          emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods,
                          completionHandler: completionHandler)
    }
}
