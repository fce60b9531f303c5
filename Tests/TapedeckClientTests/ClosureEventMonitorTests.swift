import Foundation
import Testing
@testable import TapedeckClient
import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ClosureEventMonitor's per-event closure properties (Alamofire's) are keyed by their ClientEvent
/// case's name: every case reaches the property of the same name, with the case's values.
@Suite("ClosureEventMonitor: Alamofire's per-event closures")
struct ClosureEventMonitorTests {
    /// One event of every case, with real objects where the case needs them.
    private func everyEvent(request: DataRequest, upload: UploadRequest, download: DownloadRequest, stream: DataStreamRequest) -> [ClientEvent] {
        let session = URLSession(configuration: .ephemeral)
        let task = session.dataTask(with: URL(string: "http://api.test/x")!)
        let urlRequest = URLRequest(url: URL(string: "http://api.test/x")!)
        let response = HTTPURLResponse(url: urlRequest.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])!
        let metrics = TransferMetrics(transactions: [], taskStart: .zero, taskEnd: .zero)
        let error = ClientError.explicitlyCancelled
        let raw = DataResponse<Data?, ClientError>(request: urlRequest, response: response, data: nil, metrics: nil,
                                                   serializationDuration: .zero, result: .success(nil))
        let file = URL(fileURLWithPath: "/tmp/file")
        let serialized = SerializedResponse(DataResponse<Int, ClientError>(
            request: urlRequest, response: response, data: nil, metrics: nil, serializationDuration: .zero, result: .success(1)))
        return [
            .sessionDidBecomeInvalidWithError(session, nil),
            .taskWillPerformHTTPRedirection(session, task, response, urlRequest),
            .taskDidFinishCollectingMetrics(session, task, metrics),
            .taskDidComplete(session, task, nil),
            .dataTaskDidReceiveResponse(session, task, response),
            .dataTaskDidReceiveData(session, task, Data()),
            .requestDidCreateInitialURLRequest(request, urlRequest),
            .requestDidFailToCreateURLRequestWithError(request, error),
            .requestDidAdaptInitialRequestToAdaptedRequest(request, urlRequest, urlRequest),
            .requestDidFailToAdaptURLRequestWithError(request, urlRequest, error),
            .requestDidCreateURLRequest(request, urlRequest),
            .requestDidCreateTask(request, task),
            .requestDidGatherMetrics(request, metrics),
            .requestDidCompleteTaskWithError(request, task, error),
            .requestIsRetrying(request),
            .requestDidFinish(request),
            .requestDidResume(request),
            .requestDidResumeTask(request, task),
            .requestDidSuspend(request),
            .requestDidSuspendTask(request, task),
            .requestDidCancel(request),
            .requestDidCancelTask(request, task),
            .requestDidValidateRequestResponseDataWithResult(request, urlRequest, response, nil, .success(())),
            .requestDidParseResponse(request, raw),
            .requestDidParseSerializedResponse(request, serialized),
            .requestDidObserveAnomaly(request, .metricsMissing, task),
            .taskDidSendBodyData(session, task, 1, 2, 3),
            .requestDidCreateUploadable(upload, .data(Data())),
            .requestDidFailToCreateUploadableWithError(upload, error),
            .requestDidFinishDownloadingUsingTaskWithResult(download, task, .success(file)),
            .requestDidCreateDestinationURL(download, file),
            .requestDidValidateRequestResponseFileURLWithResult(download, urlRequest, response, file, .success(())),
            .requestDidParseDownloadResponse(download, DownloadResponse(
                request: urlRequest, response: response, fileURL: file, resumeData: nil, metrics: nil, serializationDuration: .zero,
                result: .success(file))),
            .requestDidParseSerializedDownloadResponse(download, SerializedResponse(DownloadResponse<Int, ClientError>(
                request: urlRequest, response: response, fileURL: file, resumeData: nil, metrics: nil, serializationDuration: .zero,
                result: .success(1)))),
            .requestDidValidateRequestResponseWithResult(stream, urlRequest, response, .success(())),
            .requestDidParseStream(stream, ParsedStream(Result<Int, ClientError>.success(1))),
        ]
    }

    /// A monitor whose every per-event closure records the name of its property.
    private func recordingMonitor(_ seen: Box<[String]>) -> ClosureEventMonitor {
        let monitor = ClosureEventMonitor()
        @Sendable func record(_ name: String) { seen.mutate { $0.append(name) } }
        monitor.sessionDidBecomeInvalidWithError = { _, _ in record("sessionDidBecomeInvalidWithError") }
        monitor.taskWillPerformHTTPRedirection = { _, _, _, _ in record("taskWillPerformHTTPRedirection") }
        monitor.taskDidFinishCollectingMetrics = { _, _, _ in record("taskDidFinishCollectingMetrics") }
        monitor.taskDidComplete = { _, _, _ in record("taskDidComplete") }
        monitor.dataTaskDidReceiveResponse = { _, _, _ in record("dataTaskDidReceiveResponse") }
        monitor.dataTaskDidReceiveData = { _, _, _ in record("dataTaskDidReceiveData") }
        monitor.requestDidCreateInitialURLRequest = { _, _ in record("requestDidCreateInitialURLRequest") }
        monitor.requestDidFailToCreateURLRequestWithError = { _, _ in record("requestDidFailToCreateURLRequestWithError") }
        monitor.requestDidAdaptInitialRequestToAdaptedRequest = { _, _, _ in record("requestDidAdaptInitialRequestToAdaptedRequest") }
        monitor.requestDidFailToAdaptURLRequestWithError = { _, _, _ in record("requestDidFailToAdaptURLRequestWithError") }
        monitor.requestDidCreateURLRequest = { _, _ in record("requestDidCreateURLRequest") }
        monitor.requestDidCreateTask = { _, _ in record("requestDidCreateTask") }
        monitor.requestDidGatherMetrics = { _, _ in record("requestDidGatherMetrics") }
        monitor.requestDidCompleteTaskWithError = { _, _, _ in record("requestDidCompleteTaskWithError") }
        monitor.requestIsRetrying = { _ in record("requestIsRetrying") }
        monitor.requestDidFinish = { _ in record("requestDidFinish") }
        monitor.requestDidResume = { _ in record("requestDidResume") }
        monitor.requestDidResumeTask = { _, _ in record("requestDidResumeTask") }
        monitor.requestDidSuspend = { _ in record("requestDidSuspend") }
        monitor.requestDidSuspendTask = { _, _ in record("requestDidSuspendTask") }
        monitor.requestDidCancel = { _ in record("requestDidCancel") }
        monitor.requestDidCancelTask = { _, _ in record("requestDidCancelTask") }
        monitor.requestDidValidateRequestResponseDataWithResult = { _, _, _, _, _ in record("requestDidValidateRequestResponseDataWithResult") }
        monitor.requestDidParseResponse = { _, _ in record("requestDidParseResponse") }
        monitor.requestDidParseSerializedResponse = { _, _ in record("requestDidParseSerializedResponse") }
        monitor.requestDidObserveAnomaly = { _, _, _ in record("requestDidObserveAnomaly") }
        monitor.taskDidSendBodyData = { _, _, _, _, _ in record("taskDidSendBodyData") }
        monitor.requestDidCreateUploadable = { _, _ in record("requestDidCreateUploadable") }
        monitor.requestDidFailToCreateUploadableWithError = { _, _ in record("requestDidFailToCreateUploadableWithError") }
        monitor.requestDidFinishDownloadingUsingTaskWithResult = { _, _, _ in record("requestDidFinishDownloadingUsingTaskWithResult") }
        monitor.requestDidCreateDestinationURL = { _, _ in record("requestDidCreateDestinationURL") }
        monitor.requestDidValidateRequestResponseFileURLWithResult = { _, _, _, _, _ in record("requestDidValidateRequestResponseFileURLWithResult") }
        monitor.requestDidParseDownloadResponse = { _, _ in record("requestDidParseDownloadResponse") }
        monitor.requestDidParseSerializedDownloadResponse = { _, _ in record("requestDidParseSerializedDownloadResponse") }
        monitor.requestDidValidateRequestResponseWithResult = { _, _, _, _ in record("requestDidValidateRequestResponseWithResult") }
        monitor.requestDidParseStream = { _, _ in record("requestDidParseStream") }
        return monitor
    }

    @Test("every ClientEvent case reaches the closure property of the same name, exactly once")
    func everyCaseHasItsClosure() {
        let fixture = ClientFixture()
        let request = fixture.session.request("http://api.test/x")
        let seen = Box<[String]>([])
        let monitor = recordingMonitor(seen)
        let events = everyEvent(request: request, upload: fixture.session.upload(Data(), to: "http://api.test/x"),
                                download: fixture.session.download("http://api.test/x"),
                                stream: fixture.session.streamRequest("http://api.test/x"))

        for event in events { monitor.handle(event) }

        let caseNames = events.map { Mirror(reflecting: $0).children.first?.label ?? "?" }
        #expect(seen.value == caseNames)
        #expect(Set(caseNames).count == events.count)
    }

    @Test("a closure gets the event's values; the catch-all handler runs too; nil removes a closure")
    func valuesHandlerAndRemoval() {
        let fixture = ClientFixture()
        let request = fixture.session.request("http://api.test/x")
        let got = Box<[String]>([])
        let monitor = ClosureEventMonitor { event in got.mutate { $0.append("all:\(event.name)") } }
        monitor.requestDidCompleteTaskWithError = { completed, _, error in
            got.mutate { $0.append("typed:\(completed === request) \(error?.isExplicitlyCancelledError == true)") }
        }
        let task = URLSession(configuration: .ephemeral).dataTask(with: URL(string: "http://api.test/x")!)

        monitor.handle(.requestDidCompleteTaskWithError(request, task, .explicitlyCancelled))
        #expect(monitor.requestDidCompleteTaskWithError != nil && monitor.requestDidFinish == nil)
        monitor.requestDidCompleteTaskWithError = nil
        monitor.handle(.requestDidCompleteTaskWithError(request, task, nil))

        #expect(got.value == ["all:didCompleteTask", "typed:true true", "all:didCompleteTask"])
    }

    @Test("on a session, the per-event closures see a request's events in emission order")
    func perEventClosuresOnASession() throws {
        let fixture = ClientFixture(monitors: false)
        fixture.serveTestAPI()
        let seen = Box<[String]>([])
        let monitor = recordingMonitor(seen)

        fixture.session.request("http://api.test/get").eventMonitor(monitor).validate().responseData { _ in }
        try fixture.run()

        #expect(seen.value == [
            "requestDidResume", "requestDidCreateInitialURLRequest", "requestDidCreateURLRequest", "requestDidCreateTask",
            "requestDidResumeTask", "requestDidGatherMetrics", "requestDidValidateRequestResponseDataWithResult",
            "requestDidValidateRequestResponseDataWithResult", "requestDidCompleteTaskWithError", "requestDidFinish",
            "requestDidParseSerializedResponse",
        ])
    }
}
