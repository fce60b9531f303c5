import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import TapedeckScheduling
public import TapedeckCassettes
public import TapedeckHTTP

/// The recording proxy's way to its one upstream: pooled keep-alive HTTP/1.1 connections
/// (async-http-client), each opened on the event loop of the client connection that needs it, so a
/// proxied exchange never changes thread.
///
/// What it records, and why it is not the in-process `LiveForwarder` (an inner URLSession):
/// - Bodies exactly as they travelled: a gzip/deflate/br answer stays compressed (`_bodyForm: wire`)
///   and reaches the proxy's client byte for byte; URLSession would have decoded it.
/// - Header fields in the order and case the upstream sent them.
/// - Speed: corelibs URLSession funnels every task through one queue (a few hundred exchanges a
///   second here); this client keeps up with the upstream (docs/benchmarks.md).
/// - Redirects are not followed (each hop is its own interaction); failures become failure
///   entries with the `URLError` code URLSession would report (refused −1004, unknown host −1003,
///   timed out −1001, connection lost −1005, cancelled −999).
///
/// ```swift
/// let client = UpstreamClient(upstream: URL(string: "http://127.0.0.1:8080")!)
/// var options = CassetteRecorder.Options(mode: .once)
/// options.transport = client
/// // … when done:
/// client.shutdown()
/// ```
public final class UpstreamClient: LiveTransport {
    /// Where every request goes (its scheme, host and port replace the request's).
    public let upstream: URL
    /// Timeouts: `timeout` between reads (and to connect), `resourceTimeout` for the whole exchange.
    public let options: LiveForwarder.Options
    private let configuration: HTTPClient.Configuration
    /// One client per event loop (keyed by the loop's identity), made on first use.
    private let clients = Mutex<[ObjectIdentifier: HTTPClient]>([:])
    private let closed = Atomic<Bool>(false)

    /// A client for `upstream` with `options`' timeouts (`options.upstream` is ignored).
    public init(upstream: URL, options: LiveForwarder.Options = LiveForwarder.Options()) {
        self.upstream = upstream
        self.options = options
        let nanoseconds = options.timeout.wholeNanoseconds
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .nanoseconds(nanoseconds), read: .nanoseconds(nanoseconds)),
            decompression: .disabled)
        configuration.httpVersion = .http1Only
        // A refused upstream is an answer to record at once, not something to retry until a deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        // As many upstream connections as client connections want (the server limits those).
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 4_096
        self.configuration = configuration
    }

    deinit {
        shutdown()
    }

    /// Closes every pooled connection; later requests fail as cancelled. Call it before the event
    /// loops stop; off the loops it waits until the connections are closed, on one it does not.
    public func shutdown() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        let all = clients.withLock { clients in
            defer { clients.removeAll() }
            return Array(clients.values)
        }
        let onLoop = MultiThreadedEventLoopGroup.currentEventLoop != nil
        for client in all {
            if onLoop {
                client.shutdown { _ in }
            } else {
                try? client.syncShutdown()
            }
        }
    }

    /// Sends `request` to the upstream; `completion` runs once, on an event loop thread.
    @discardableResult
    public func forward(_ request: RequestSnapshot, completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void {
        forward(request, reporting: nil, completion: completion)
    }

    /// Sends `request` to the upstream, telling `progress` the response's head and each body piece
    /// as they arrive (on the event loop of the connection that asked, before `completion`).
    @discardableResult
    public func forward(_ request: RequestSnapshot, progress: @escaping DeferredReply.Progress,
                        completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void {
        forward(request, reporting: progress, completion: completion)
    }

    private func forward(_ request: RequestSnapshot, reporting progress: DeferredReply.Progress?,
                         completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void {
        let collector = ExchangeCollector(request: RecordedRequest(request), progress: progress, readTimeout: options.timeout, completion: completion)
        guard let (client, loop) = client() else {
            collector.fail(HTTPClientError.cancelled)
            return {}
        }
        let outgoing: HTTPClient.Request
        do {
            outgoing = try HTTPClient.Request(
                url: LiveForwarder.Options.sending(request.url, to: upstream), method: HTTPMethod(rawValue: request.method.rawValue),
                headers: HTTPHeaders(request.headerFields.map { ($0.name.rawName, $0.value) }),
                body: request.body.map(Self.streamed))
        } catch {
            collector.fail(error)
            return {}
        }
        // A streamed exchange goes at the client's pace (backpressure): a slow reader of a large
        // body must not make a healthy upstream look timed out, so only the read timeout bounds it.
        let deadline = progress == nil ? NIODeadline.now() + .nanoseconds(options.resourceTimeout.wholeNanoseconds) : nil
        // The client's group is this one loop, so its connections are on it already. Requiring it
        // (`.delegateAndChannel`) would make every connection an "overflow" one, closed after use.
        let task = client.execute(request: outgoing, delegate: collector, eventLoop: loop.map { .delegate(on: $0) } ?? .indifferent,
                                  deadline: deadline)
        task.futureResult.whenFailure { collector.fail($0) }
        return { task.cancel() }
    }

    /// A request body sent in 64 KiB slices, each made when the one before is written: the body
    /// is held once (by the request, for the journal), not a second time for the socket.
    static func streamed(_ body: Data) -> HTTPClient.Body {
        let slice = 65_536
        return .stream(contentLength: Int64(body.count)) { writer in
            @Sendable func piece(_ offset: Int) -> ByteBuffer {
                let start = body.startIndex + offset
                return ByteBuffer(bytes: body[start..<min(start + slice, body.endIndex)])
            }
            var written = writer.write(.byteBuffer(piece(0)))
            for offset in stride(from: slice, to: body.count, by: slice) {
                written = written.flatMap { writer.write(.byteBuffer(piece(offset))) }
            }
            return written
        }
    }

    /// The client of the calling event loop (or a shared one off the loops), nil once shut down.
    private func client() -> (HTTPClient, (any EventLoop)?)? {
        let loop = MultiThreadedEventLoopGroup.currentEventLoop
        let key = loop.map { ObjectIdentifier($0) } ?? ObjectIdentifier(UpstreamClient.self)
        return clients.withLock { clients in
            guard !closed.load(ordering: .relaxed) else { return nil }
            if let existing = clients[key] { return (existing, loop) }
            let made = HTTPClient(eventLoopGroup: loop ?? HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[key] = made
            return (made, loop)
        }
    }
}

/// Collects one exchange (head, body as received, times) and reports it once.
private final class ExchangeCollector: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked Sendable: the delegate callbacks run on one event loop, one at a time; `reported`
    // guards the single report against a failure arriving from another thread.
    typealias Response = Void

    private let request: RecordedRequest
    private let progress: DeferredReply.Progress?
    /// The upstream client's read timeout (see ``didReceiveBodyPart(task:_:)``).
    private let readTimeout: Duration
    /// The longest a piece waits for the client to take the one before it.
    static let patience = Duration.milliseconds(50)
    private let completion: @Sendable (LiveForwarder.Result) -> Void
    // The live path: what is recorded is when the real exchange started and how long it took.
    private let started = ContinuousClock.now
    private let startedDate = Date()
    private var headAt: ContinuousClock.Instant?
    private var head: HTTPResponseHead?
    /// The body as received, kept once (the recorded response takes it as it is).
    private var body = Data()
    /// When each piece of the body arrived, and its size (nil: not a streamed body, whose pieces
    /// are not kept).
    private var pieces: [(at: ContinuousClock.Instant, bytes: Int)]?
    private let reported = Atomic<Bool>(false)

    init(request: RecordedRequest, progress: DeferredReply.Progress?, readTimeout: Duration,
         completion: @escaping @Sendable (LiveForwarder.Result) -> Void) {
        self.request = request
        self.progress = progress
        self.readTimeout = readTimeout
        self.completion = completion
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        headAt = .now
        self.head = head
        pieces = BodyChunk.isStreamed(contentType: head.headers.first(name: "Content-Type")) ? [] : nil
        if let progress {
            var fields = HTTPFieldsBuilder()
            for field in head.headers { fields.append(field.name, field.value) }
            progress(.head(ResponseHead(status: Int(head.status.code), headerFields: fields.fields), reason: head.status.reasonPhrase))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    /// Each piece is passed on, and the next one read only once the client's connection has taken
    /// this one (``ReplyProgress/body(_:taken:)``): a slow reader holds the upstream back instead of
    /// having the whole body queued for it beside the copy kept for the journal. A piece waits at
    /// most ``patience`` for that, though: async-http-client's read timer runs while it waits (it
    /// restarts only when bytes are read from the socket, not when pieces it already holds are
    /// handed over), so a client that stops reading slows the upstream to a piece per
    /// ``patience`` rather than turning its pause into an upstream timeout.
    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let piece = Data(buffer.readableBytesView)
        body.append(piece)
        pieces?.append((.now, piece.count))
        guard let progress else { return task.eventLoop.makeSucceededVoidFuture() }
        let promise = task.eventLoop.makePromise(of: Void.self)
        let once = OnceFlag()
        let wait = min(Self.patience, readTimeout / 8)
        let patience = task.eventLoop.scheduleTask(in: .nanoseconds(wait.wholeNanoseconds)) {
            if once.claim() { promise.succeed(()) }
        }
        progress(.body(piece, taken: {
            if once.claim() {
                patience.cancel()
                promise.succeed(())
            }
        }))
        return promise.futureResult
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        fail(error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        let end = ContinuousClock.now
        guard let head else { return fail(HTTPClientError.remoteConnectionClosed) }
        let headers = head.headers.map { HeaderField($0.name, $0.value) }
        let headAt = headAt ?? end
        let chunks = pieces.flatMap { pieces in
            BodyChunk.recorded(pieces.map { (headAt.duration(to: $0.at), $0.bytes) }, contentType: head.headers.first(name: "Content-Type"))
        }
        let response = RecordedResponse(
            status: Int(head.status.code), statusText: head.status.reasonPhrase,
            headers: headers, body: body, bodyForm: .wire, chunks: chunks)
        body = Data()   // the response holds it now; this collector no longer needs a copy
        report(.response(response), ExchangeTimings(wait: started.duration(to: headAt), receive: headAt.duration(to: end)))
    }

    /// Reports `error` as a recorded failure (once; a later success or failure is ignored).
    func fail(_ error: any Error) {
        let (code, message) = Self.urlError(for: error)
        report(.failure(RecordedFailure(code: code, message: "URLError \(code): \(message)")), ExchangeTimings(wait: started.duration(to: .now)))
    }

    private func report(_ outcome: Interaction.Outcome, _ timings: ExchangeTimings) {
        guard !reported.exchange(true, ordering: .acquiringAndReleasing) else { return }
        completion(LiveForwarder.Result(request: request, outcome: outcome, timings: timings,
                                        startedDateTime: HTTPDate.iso8601(from: startedDate)))
    }

    /// The `URLError` code (and a description) URLSession reports for what happened.
    static func urlError(for error: any Error) -> (Int, String) {
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout: return (URLError.timedOut.rawValue, "connecting to the upstream timed out")
            case .readTimeout, .deadlineExceeded, .writeTimeout: return (URLError.timedOut.rawValue, "the upstream request timed out (\(client))")
            case .remoteConnectionClosed: return (URLError.networkConnectionLost.rawValue, "the upstream closed the connection before the whole response")
            case .cancelled: return (URLError.cancelled.rawValue, "cancelled")
            default: return (URLError.badServerResponse.rawValue, "\(client)")
            }
        }
        if let connection = error as? NIOConnectionError {
            if connection.dnsAError != nil || connection.dnsAAAAError != nil, connection.connectionErrors.isEmpty {
                return (URLError.cannotFindHost.rawValue, "the upstream host was not found")
            }
            return (URLError.cannotConnectToHost.rawValue, "could not connect to the upstream (\(connection.connectionErrors.map { "\($0.error)" }.joined(separator: "; ")))")
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED: return (URLError.cannotConnectToHost.rawValue, "the upstream refused the connection")
            case ECONNRESET, EPIPE: return (URLError.networkConnectionLost.rawValue, "the upstream reset the connection")
            case ETIMEDOUT: return (URLError.timedOut.rawValue, "the upstream connection timed out")
            default: return (URLError.cannotConnectToHost.rawValue, "\(io)")
            }
        }
        if let channel = error as? ChannelError, case .connectTimeout = channel {
            return (URLError.timedOut.rawValue, "connecting to the upstream timed out")
        }
        return (URLError.networkConnectionLost.rawValue, "\(error)")
    }
}
