import Foundation
import TapedeckClient
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The two ways a flight runs: through the session (with the plugins as a per-request interceptor),
// or as a stub answered on the scheduler's clock.

extension MoyaProvider {
    // MARK: the network path

    func send(_ urlRequest: URLRequest, flight id: Int, record: FlightRecord) {
        let target = record.target
        let plugins = self.plugins
        let interceptor = PluginInterceptor { request in
            plugins.reduce(request) { $1.prepare($0, target: target) }
        }
        let install: @Sendable (Request) -> Void = { [self] request in
            let requestID = request.id
            let headers = sessionHeaders
            let scheduler = session.scheduler
            let description = record.endpoint.description
            interceptor.install { prepared in
                scheduler.record("provider.willSend", description)
                let wrapped = PreparedRequest(request: prepared, sessionHeaders: headers, requestID: requestID)
                for plugin in plugins { plugin.willSend(wrapped, target: target) }
            }
        }
        let proceed: @Sendable (Request) -> Void = { [self] request in
            let codes = target.validationType.statusCodes
            if !codes.isEmpty {
                (request as? DataRequest)?.validate(statusCode: codes)
                (request as? DownloadRequest)?.validate(statusCode: codes)
            }
            if state.withLock({ state in state.callers.values.contains { $0.flight == id && $0.progress != nil } }) {
                // As Moya: an upload reports the body sent, any other request the body received.
                let report: Request.ProgressHandler = { [self] progress in reportProgress(flight: id, progress) }
                if let upload = request as? UploadRequest {
                    upload.uploadProgress(queue: record.queue, closure: report)
                } else {
                    request.downloadProgress(queue: record.queue, closure: report)
                }
            }
            if let download = request as? DownloadRequest {
                download.response(queue: record.queue) { [self] response in
                    finish(flight: id, result: Self.result(of: response.response, request: response.request, data: nil, error: response.error))
                }
            } else if let data = request as? DataRequest {
                data.response(queue: record.queue) { [self] response in
                    finish(flight: id, result: Self.result(of: response.response, request: response.request, data: response.data,
                                                           error: response.error))
                }
            }
            let cancelNow = state.withLock { state -> Bool in
                state.flights[id]?.request = request
                return state.flights[id]?.machine.cancelRequested ?? false
            }
            if cancelNow { request.cancel() }
            request.resume()
        }
        switch requestCreation {
        case .requestQueueSync:
            let request = holdingRequestQueue {
                let request = makeRequest(urlRequest, task: record.endpoint.task, interceptor: interceptor)
                install(request)
                return request
            }
            proceed(request)
        case let .unguarded(preemptionQueue):
            let request = makeRequest(urlRequest, task: record.endpoint.task, interceptor: interceptor)
            preemptionQueue.async(named: "provider.callerResumes") {
                install(request)
                proceed(request)
            }
        }
    }

    /// The session's request for a task: an upload request for the upload tasks (a file, or a
    /// multipart form of the task's parts), a download request for the download tasks, else a
    /// data request.
    func makeRequest(_ urlRequest: URLRequest, task: TargetTask, interceptor: PluginInterceptor) -> Request {
        switch task {
        case let .downloadDestination(destination), let .downloadParameters(_, _, destination):
            return session.download(urlRequest, interceptor: interceptor, to: destination)
        case let .uploadFile(file):
            return session.upload(file, with: urlRequest, interceptor: interceptor)
        case let .uploadMultipart(parts), let .uploadCompositeMultipart(parts, _):
            return session.upload(multipartFormData: { $0.append(parts) }, with: urlRequest, interceptor: interceptor)
        case let .uploadMultipartFormData(form), let .uploadCompositeMultipartFormData(form, _):
            let body = RequestMultipartFormData(fileManager: form.fileManager, boundary: form.boundary)
            body.append(form.bodyParts)
            return session.upload(multipartFormData: body, with: urlRequest, interceptor: interceptor, fileManager: form.fileManager)
        default:
            return session.request(urlRequest, interceptor: interceptor)
        }
    }

    /// Runs `body` while holding the session's requestQueue: inside `requestQueue.sync`, or directly
    /// when the caller already runs on that queue's tree (where `sync` would deadlock, and holding
    /// the root gives the same guarantee: the session's queued setup cannot run before `body` ends).
    func holdingRequestQueue<T>(_ body: () -> T) -> T {
        let queue = session.requestQueue
        var root: any SchedulerQueue = queue
        while let next = root.target { root = next }
        if root.isCurrent { return body() }
        return queue.sync(body)
    }

    /// Moya's conversion of an unserialized response: a response and no error is a success; an
    /// error keeps the response it came with. (A download's response has no data, as in Moya.)
    static func result(of http: HTTPURLResponse?, request: URLRequest?, data: Data?, error: ClientError?) -> Result<Response, ProviderError> {
        let made = http.map { Response(statusCode: $0.statusCode, data: data ?? Data(), request: request, response: $0) }
        switch (made, error) {
        case let (made?, nil): return .success(made)
        case let (made, error?): return .failure(.underlying(error, made))
        case (nil, nil): return .failure(.underlying(ClientError.sessionTaskFailed(error: URLError(.unknown)), nil))
        }
    }

    // MARK: stubs

    /// Prepare and `willSend` on the session's requestQueue (as on the network path), then the sample
    /// response on the flight's queue: at once, or at the request's instant plus the delay.
    func stub(_ urlRequest: URLRequest, flight id: Int, record: FlightRecord) {
        let start = session.scheduler.now
        session.requestQueue.async(named: "provider.stub") { [self] in
            guard state.withLock({ $0.flights[id]?.machine.cancelRequested == false }) else { return }
            let prepared = plugins.reduce(urlRequest) { $1.prepare($0, target: record.target) }
            session.scheduler.record("provider.willSend", "\(record.endpoint) (stub)")
            let wrapped = PreparedRequest(request: prepared, sessionHeaders: sessionHeaders, requestID: nil)
            for plugin in plugins { plugin.willSend(wrapped, target: record.target) }
            let answer: @Sendable () -> Void = { [self] in
                finish(flight: id, result: Self.stubResult(record.endpoint.sampleResponseClosure(), request: prepared,
                                                         validation: record.target.validationType))
            }
            switch record.behavior {
            case .never, .immediate:
                record.queue.async(named: "provider.stubResponse", answer)
            case let .delayed(seconds):
                let timer = record.queue.asyncAfter(deadline: start.advanced(by: .seconds(rounding: seconds)),
                                                    named: "provider.stubResponse", answer)
                let cancelNow = state.withLock { state -> Bool in
                    state.flights[id]?.timer = timer
                    return state.flights[id]?.machine.cancelRequested ?? true
                }
                if cancelNow { timer.cancel() }
            }
        }
    }

    /// The sample response as the network path would deliver it: an HTTP response for the request's
    /// URL, validated against the target's validation type.
    static func stubResult(
        _ sample: EndpointSampleResponse, request: URLRequest, validation: ValidationType
    ) -> Result<Response, ProviderError> {
        let response: Response
        switch sample {
        case let .networkResponse(status, data):
            let url = request.url ?? URL(string: "about:blank")!
            let http = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])
            response = Response(statusCode: status, data: data, request: request, response: http)
        case let .response(http, data):
            response = Response(statusCode: http.statusCode, data: data, request: request, response: http)
        case let .networkError(error):
            return .failure(.underlying(error, nil))
        }
        let codes = validation.statusCodes
        if !codes.isEmpty && !codes.contains(response.statusCode) {
            return .failure(.underlying(ClientError.responseValidationFailed(reason: .unacceptableStatusCode(code: response.statusCode)), response))
        }
        return .success(response)
    }
}
