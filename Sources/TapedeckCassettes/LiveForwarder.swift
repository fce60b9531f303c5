public import Foundation
public import TapedeckHTTP
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests to the real network through an inner URLSession (one without Tapedeck's
/// protocol) and reports each exchange as an ``Interaction``: what a recorder journals.
///
/// What it records, honestly:
/// - Redirects are not followed: each hop is its own interaction (the 3xx with its `Location`),
///   and the simulated network follows them on replay as it would any redirect.
/// - Bodies are what URLSession hands a client: a `gzip`/`deflate` response arrives decoded (libcurl
///   and Darwin's loader both decode it; libcurl built with brotli and zstd decodes `br` and `zstd`
///   too) and is stored as such (`_bodyForm: decoded`), with its `Content-Encoding` header kept,
///   as browsers and mitmproxy write HAR.
/// - Timings come from a monotonic clock on the live path: `wait` until the response head,
///   `receive` until the last byte (connection set-up is not visible through URLSession on Linux).
/// - A transport error (refused connection, timeout, unknown host) becomes a recorded failure with
///   the time it took; one after the response head (a reset or a timeout mid-body) keeps the
///   head and the bytes that came, with the failure as the response's ``RecordedResponse/interruption``.
public final class LiveForwarder: Sendable {
    /// Timeouts of forwarded requests.
    public struct Options: Sendable {
        /// How long a forwarded request may go without receiving data (URLSession's
        /// `timeoutIntervalForRequest`; corelibs counts it in whole seconds).
        public var timeout: Duration
        /// How long a forwarded request may take in all (`timeoutIntervalForResource`).
        public var resourceTimeout: Duration
        /// Send every request to this server instead (its scheme, host and port replace the
        /// request's; the path and query stay). The recording keeps the request's own URL, so a
        /// scenario can name `api.test` while recording from `127.0.0.1:8080`. Nil: as addressed.
        public var upstream: URL?

        /// Timeouts of forwarded requests (URLSession's defaults: 60 s idle, 10 minutes in all),
        /// sent where they are addressed unless `upstream` says otherwise.
        public init(timeout: Duration = .seconds(60), resourceTimeout: Duration = .seconds(600), upstream: URL? = nil) {
            self.timeout = timeout
            self.resourceTimeout = resourceTimeout
            self.upstream = upstream
        }
    }

    /// One live exchange.
    public struct Result: Sendable {
        /// The request as sent (body read from the stream when there was one).
        public var request: RecordedRequest
        /// The response, or the transport error.
        public var outcome: Interaction.Outcome
        /// How long each phase took.
        public var timings: ExchangeTimings
        /// When it started (ISO 8601, wall clock: this is the live path).
        public var startedDateTime: String

        /// A live exchange as a transport reports it.
        public init(request: RecordedRequest, outcome: Interaction.Outcome, timings: ExchangeTimings, startedDateTime: String) {
            self.request = request
            self.outcome = outcome
            self.timings = timings
            self.startedDateTime = startedDateTime
        }

        /// The result as the `index`-th interaction of a cassette.
        public func interaction(index: Int) -> Interaction {
            Interaction(index: index, startedDateTime: startedDateTime, request: request, outcome: outcome, timings: timings)
        }

        /// The result of an exchange its client cancelled: a response that came whole first
        /// stays; the failure the cancel caused — before the head, or after it and part of the
        /// body — is recorded as the client's cancellation, at the time it came.
        public var cancelledByClient: Result {
            let cancellation = RecordedFailure(code: URLError.cancelled.rawValue, message: "cancelled by the client before its answer came")
            var cancelled = self
            switch outcome {
            case .failure:
                cancelled.outcome = .failure(cancellation)
            case var .response(response) where response.interruption != nil:
                response.interruption = cancellation
                cancelled.outcome = .response(response)
            case .response:
                break
            }
            return cancelled
        }

        /// What a responder answers with this result (the unredacted live response).
        public var reply: Reply {
            CassettePlayer.reply(for: interaction(index: 0))
        }
    }

    /// The timeouts in use.
    public let options: Options
    private let session: URLSession
    private let delegate: ForwardingDelegate

    /// A forwarder with its own URLSession (ephemeral, no cache, no cookies, redirects not followed).
    public init(options: Options = Options()) {
        self.options = options
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = options.timeout.timeInterval
        configuration.timeoutIntervalForResource = options.resourceTimeout.timeInterval
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        delegate = ForwardingDelegate()
        let queue = OperationQueue()
        queue.name = "tapedeck.live-forwarder"
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends `request` to the live network; `completion` runs once, on a URLSession thread (with
    /// a `cancelled` failure after the returned cancel action was called).
    @discardableResult
    public func forward(_ request: RequestSnapshot, completion: @escaping @Sendable (Result) -> Void) -> @Sendable () -> Void {
        var urlRequest = request.urlRequest()
        urlRequest.timeoutInterval = options.timeout.timeInterval
        if let upstream = options.upstream, let url = urlRequest.url {
            urlRequest.url = Options.sending(url, to: upstream)
        }
        // A body goes as an upload's data, not as `httpBody`: corelibs adds
        // `Content-Type: application/x-www-form-urlencoded` to a POST whose `httpBody` has no type
        // (httpbin then reads an octet upload as an empty form), never to an upload task's data.
        let task: URLSessionTask
        if let body = urlRequest.httpBody, !body.isEmpty {
            urlRequest.httpBody = nil
            task = session.uploadTask(with: urlRequest, from: body)
        } else {
            task = session.dataTask(with: urlRequest)
        }
        delegate.begin(task, request: RecordedRequest(request), completion: completion)
        task.resume()
        return { task.cancel() }
    }
}

/// Collects each forwarded task's response, body and times.
private final class ForwardingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: all state is in `tasks` (a Mutex).

    struct InFlight {
        var request: RecordedRequest
        var completion: @Sendable (LiveForwarder.Result) -> Void
        var started: ContinuousClock.Instant
        var startedDate: Date
        var headAt: ContinuousClock.Instant?
        var response: HTTPURLResponse?
        var body = Data()
        /// When each piece of the body arrived, and its size (nil: not a streamed body, whose
        /// pieces are not kept).
        var pieces: [(at: ContinuousClock.Instant, bytes: Int)]?
        /// The server asked for credentials and the challenge was declined (see
        /// ``urlSession(_:task:didReceive:completionHandler:)``): the task's cancellation is the
        /// end of its response, not a failure.
        var declinedChallenge = false
    }

    private let tasks = Mutex<[Int: InFlight]>([:])
    private let clock = ContinuousClock()

    func begin(_ task: URLSessionTask, request: RecordedRequest, completion: @escaping @Sendable (LiveForwarder.Result) -> Void) {
        let entry = InFlight(request: request, completion: completion, started: clock.now, startedDate: Date())
        tasks.withLock { $0[task.taskIdentifier] = entry }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // Record the hop itself; the simulated network follows redirects on replay.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let now = clock.now
        let http = response as? HTTPURLResponse
        let streamed = BodyChunk.collectsPieces(contentType: http?.value(forHTTPHeaderField: "Content-Type"),
                                                contentLength: http?.value(forHTTPHeaderField: "Content-Length"))
        tasks.withLock { tasks in
            tasks[dataTask.taskIdentifier]?.headAt = now
            tasks[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse
            tasks[dataTask.taskIdentifier]?.pieces = streamed ? [] : nil
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = clock.now
        tasks.withLock { tasks in
            tasks[dataTask.taskIdentifier]?.body.append(data)
            tasks[dataTask.taskIdentifier]?.pieces?.append((now, data.count))
        }
    }

    /// A server's request for credentials (`401` with `WWW-Authenticate: Basic`, Digest, NTLM,
    /// Negotiate) is declined: the recording keeps the 401 as the server sent it, for the client
    /// under test to answer on replay. corelibs never finishes a task whose challenge gets the
    /// default handling (it waits past every timeout), so a test recording against such an API
    /// would stall; declined, the task ends at once, cancelled, with the 401 as its response.
    /// Other challenges (server trust, client certificates) go the default way.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let serverAuth = [NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
                          NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate]
        guard serverAuth.contains(challenge.protectionSpace.authenticationMethod) else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        tasks.withLock { $0[task.taskIdentifier]?.declinedChallenge = true }
        completionHandler(.rejectProtectionSpace, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let end = clock.now
        guard let entry = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        // A 3xx whose redirect was refused arrives as the task's response (corelibs may not call
        // didReceive for it, so fall back to the task's own response).
        let response = entry.response ?? (task.response as? HTTPURLResponse)
        let outcome: Interaction.Outcome
        let timings: ExchangeTimings
        // A declined challenge ends the task cancelled: its 401 is the answer.
        let declined = entry.declinedChallenge && response != nil && (error as? URLError)?.code == .cancelled
        let failure = error.flatMap { error -> RecordedFailure? in
            guard !declined else { return nil }
            return RecordedFailure(code: (error as? URLError)?.code.rawValue ?? URLError.unknown.rawValue, message: Self.describe(error))
        }
        if let failure, let response, let head = entry.headAt {
            // The head came, then the connection failed: the response broke off. What arrived
            // is kept, and the failure after it.
            var recorded = Self.recorded(response, body: entry.body, complete: false)
            recorded.interruption = failure
            outcome = .response(recorded)
            timings = ExchangeTimings(wait: entry.started.duration(to: head), receive: head.duration(to: end))
        } else if let failure {
            outcome = .failure(failure)
            timings = ExchangeTimings(wait: entry.started.duration(to: end))
        } else if let response {
            let head = entry.headAt ?? end
            var recorded = Self.recorded(response, body: entry.body)
            recorded.chunks = entry.pieces.flatMap { pieces in
                BodyChunk.recorded(pieces.map { (head.duration(to: $0.at), $0.bytes) }, contentType: recorded.headers.value(for: "Content-Type"))
            }
            outcome = .response(recorded)
            timings = ExchangeTimings(wait: entry.started.duration(to: head), receive: head.duration(to: end))
        } else {
            outcome = .failure(RecordedFailure(code: URLError.badServerResponse.rawValue, message: "no response"))
            timings = ExchangeTimings(wait: entry.started.duration(to: end))
        }
        entry.completion(LiveForwarder.Result(
            request: entry.request, outcome: outcome, timings: timings,
            startedDateTime: HTTPDate.iso8601(from: entry.startedDate)))
    }

    /// A response as recorded: header fields sorted by name (URLSession's dictionary has no stable
    /// order), the body as delivered, marked decoded when URLSession decoded it
    /// (`LiveForwarder.deliveredForm(of:headers:)`).
    static func recorded(_ response: HTTPURLResponse, body: Data, complete: Bool = true) -> RecordedResponse {
        var headers: [HeaderField] = []
        for (name, value) in response.allHeaderFields {
            headers.append(HeaderField("\(name)", "\(value)"))
        }
        headers.sort { ($0.name.lowercased(), $0.value) < ($1.name.lowercased(), $1.value) }
        return RecordedResponse(
            // URLSession does not show the reason phrase the server sent; HAR allows it empty.
            status: response.statusCode, statusText: "",
            headers: headers, body: body, bodyForm: LiveForwarder.deliveredForm(of: body, headers: headers, complete: complete))
    }

    static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return "URLError \(urlError.code.rawValue): \(urlError.localizedDescription)"
        }
        return "\(error)"
    }
}

extension LiveForwarder.Options {
    /// `url` with `upstream`'s scheme, host and port (its path and query kept); unchanged when it
    /// is already there.
    package static func sending(_ url: URL, to upstream: URL) -> URL {
        guard url.scheme != upstream.scheme || url.host != upstream.host || url.port != upstream.port,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.scheme = upstream.scheme
        components.host = upstream.host
        components.port = upstream.port
        return components.url ?? url
    }
}

extension LiveForwarder {
    /// Whether a body URLSession handed over is still in its `Content-Encoding` (wire) or was
    /// decoded. gzip and deflate are decoded by every URLSession. Other codings (`br`, `zstd`)
    /// are decoded only by a loader that knows them — libcurl built with brotli and zstd does, an
    /// older one does not — so the body is compared with the wire's `Content-Length`: a body of
    /// another length was decoded. Without a length (a chunked answer) a body that starts like
    /// the coding's stream is the wire form, anything else decoded, as for other tools' files.
    /// Marking a decoded `br` body `wire` made `serve` send plain text labelled `br` (curl: error
    /// 61) and kept redaction from looking inside it.
    package static func deliveredForm(of body: Data, headers: [HeaderField], complete: Bool = true) -> ResponsePlan.BodyForm {
        let coding = headers.value(for: "Content-Encoding")
        if ContentCoding.isDecodedByEveryURLSession(coding) { return .decoded }
        let codings = (coding ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard !body.isEmpty, codings.contains(where: { !$0.isEmpty && $0 != "identity" }) else { return .wire }
        // A body that broke off is short of its length and of its stream's end: its start decides.
        guard complete else { return HARCodec.inferredForm(body, contentEncoding: coding, complete: false) }
        if let length = headers.value(for: "Content-Length").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            guard length == body.count else { return .decoded }
            // The wire's length — unless a decoded body happens to have it too: wire bytes are
            // only those the coding can read (a coding Tapedeck does not know stays wire).
            return ContentCoding.isDecodable(coding) && (try? ContentCoding.decode(body, contentEncoding: coding)) == nil ? .decoded : .wire
        }
        return HARCodec.inferredForm(body, contentEncoding: coding)
    }
}
