import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import TapedeckCassettes
import TapedeckScheduling

/// One connection: assembles requests (within the limits), hands them to the service, writes the
/// answers as their deliveries say, and answers bad input with a 4xx instead of failing.
///
/// States: waiting for a head (the header timer runs) → reading a body → answering (the service
/// has the request) → waiting again (keep-alive) or closed. Pipelined requests wait in NIO's
/// pipelining handler until the answer before them is complete.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    enum State {
        case waitingForHead
        /// The body so far is in `requestBody` (kept out of the enum, so appending to it never
        /// finds a second reference and copies the whole buffer: quadratic for a large upload).
        case readingBody(HTTPRequestHead)
        /// Refusing the rest of a request that broke a limit (its answer is on the way, then close).
        case discarding
        case answering(keepAlive: Bool)
        /// An answer is being streamed (its head is out); `held` (the piece that completes a body
        /// of known length) waits for the stream's end; `remaining`: the bytes of a known length
        /// still to come (nil: chunked, its end is its last chunk, written at the end).
        case streaming(close: Bool, held: Data?, remaining: Int?)
        case closed
    }

    private let service: any ExchangeService
    private let options: ServerOptions
    private let connection: Int
    let counters: ServerCounters
    let outlet: RawOutlet
    var state = State.waitingForHead
    private var headerTimer: Scheduled<Void>?
    /// How many request heads this connection has read (an HTTP/2 preface after one is no
    /// HTTP/2 client's first bytes: it gets an HTTP/1.1 refusal).
    var headsRead = 0
    /// The client half-closed while an answer was under way: close after it.
    var closeAfterAnswer = false
    /// The answer under way is a stall fault: it never writes, so nothing holds the connection
    /// once the client's input ends (it gave up).
    var stalled = false
    /// The client's input ended (it closed its side, or gave up).
    var inputHasEnded = false
    /// When body bytes last came for the request being read (nil: none yet): the body's timeout
    /// counts from there (see `startHeaderTimer`).
    var lastBodyRead: NIODeadline?
    /// Whether the request being read is listed in `counters.receiving` (one with a body).
    private var receivingListed = false
    /// The stream of the request being answered (it also counts the answer done, once).
    private var answering: AnswerStream?
    /// The number of the request last handed to the service, when the server keeps the list of
    /// answers not yet written whole (``ServerOptions/tracksUnwrittenAnswers``): its answer is on
    /// it until its last bytes are with the kernel.
    var currentRequest: Int?
    /// The producer of a streamed answer waiting to hear its last piece was taken (see
    /// ``AnswerStream/body(_:taken:)``): called when the piece before it is written, or when the
    /// answer or the connection ends — never left waiting.
    var pendingTaken: (@Sendable () -> Void)?
    /// `Keep-Alive: timeout=N` on every answer that keeps the connection: how long it may sit idle
    /// before the server closes it (the header timeout), so a pooling client (Node's agents,
    /// undici) retires it first instead of sending a request into the close.
    /// None under a second: whole seconds would overstate it.
    let keepAliveHint: String?
    /// Whether the request being answered may get a chunked body: not an HTTP/1.0 one (RFC 9112
    /// 6.1), which gets a length, or a body that ends with the connection.
    var chunkedAllowed = true
    /// The body of the request being read (state `readingBody`), and its announced length.
    private var requestBody = ByteBuffer()
    private var expectedBodyBytes = 0

    init(service: any ExchangeService, options: ServerOptions, connection: Int, counters: ServerCounters, outlet: RawOutlet) {
        self.outlet = outlet
        self.service = service
        self.options = options
        self.connection = connection
        self.counters = counters
        let seconds = Int(options.headerTimeout.timeInterval)
        keepAliveHint = seconds >= 1 ? "timeout=\(seconds)" : nil
    }

    func channelActive(context: ChannelHandlerContext) {
        startHeaderTimer(context)
        outlet.onInputClosed = { [weak self, weak context] in
            if let self, let context { self.inputEnded(context) }
        }
        context.fireChannelActive()
    }

    /// The client's input ended while its answer may still be under way. A service that stops
    /// its work when the client goes (a live exchange streamed by `tapedeck record`) takes the
    /// end of input for the client's going, as nginx does for a proxied request: the upstream
    /// exchange stops and the connection closes. So does a stall fault's, which never writes. Any
    /// other answer is still written (a client may half-close after its request), then the
    /// connection closes.
    private func inputEnded(_ context: ChannelHandlerContext) {
        inputHasEnded = true
        if stalled {
            // A stalled answer would keep the socket half-open forever (CLOSE-WAIT), and enough
            // of them fill --max-connections: the client that gave up is let go.
            state = .closed
            context.close(promise: nil)
            return
        }
        guard let answering, answering.stopsWhenClientGone else { return }
        clientWent()
        state = .closed
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        headerTimer?.cancel()
        bodyArrived()
        state = .closed
        clientWent()
        // (An earlier answer's pending end fails with the close, and leaves the list then.)
        counters.written(currentRequest)
        context.fireChannelInactive()
    }

    /// The request being read is no longer arriving (whole, refused, or its client gone): off
    /// the server's list of bodies still arriving.
    private func bodyArrived() {
        guard receivingListed else { return }
        receivingListed = false
        counters.receiving.withLock { _ = $0.removeValue(forKey: connection) }
    }

    /// The client is gone: a request still being answered ends here for the count (once), and a
    /// service streaming its answer is told (so it can stop the upstream exchange).
    private func clientWent() {
        if let answering, answering.clientGone() { counters.inFlight.subtract(1, ordering: .relaxed) }
        answering = nil
        releaseTaken()
    }

    /// The answer under way ended (whole or broken off): counted done once, forgotten.
    func answerEnded() {
        if answering?.finishOnce() == true { counters.inFlight.subtract(1, ordering: .relaxed) }
        answering = nil
        releaseTaken()
    }

    /// Tells a waiting producer its piece was taken.
    func releaseTaken() {
        let taken = pendingTaken
        pendingTaken = nil
        taken?()
    }

    func startHeaderTimer(_ context: ChannelHandlerContext, at deadline: NIODeadline? = nil) {
        headerTimer?.cancel()
        outlet.receivedBytes = false
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        headerTimer = context.eventLoop.scheduleTask(deadline: deadline ?? .now() + .nanoseconds(options.headerTimeout.wholeNanoseconds)) {
            let (handler, context) = bound.value
            switch handler.state {
            case .waitingForHead where !handler.outlet.receivedBytes:
                // Idle between requests (or never used): closed quietly, as nginx and gunicorn
                // do. A 408 here would sit in the socket and be read as the answer to the
                // client's next request.
                handler.state = .closed
                context.close(promise: nil)
            case .waitingForHead:
                handler.refuse(context, status: 408, "no complete request head within \(handler.options.headerTimeout)")
            case .readingBody where handler.lastBodyRead.map({ NIODeadline.now() < $0 + .nanoseconds(handler.options.headerTimeout.wholeNanoseconds) }) ?? false:
                // Bytes came within the bound: a slow upload still moving gets until the bound
                // after its last read (the timeout is between reads, as nginx's client_body_timeout is).
                handler.startHeaderTimer(context, at: handler.lastBodyRead! + .nanoseconds(handler.options.headerTimeout.wholeNanoseconds))
            case .readingBody:
                // A body that stops coming would hold the connection (and its buffer) forever.
                handler.refuse(context, status: 408, "no request body bytes for \(handler.options.headerTimeout)")
            default:
                return
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case let (.head(head), .waitingForHead):
            headsRead += 1
            lastBodyRead = nil
            startHeaderTimer(context)   // the same bound again, now between the body's reads
            if head.headers["Host"].count > 1 {
                // Which host did it mean? (RFC 9112 §3.2: answered 400, never guessed.)
                refuse(context, status: 400, "the request has more than one Host field")
                return
            }
            if let host = head.headers.first(name: "Host"), !Self.isValidHost(host) {
                // RFC 9112 §3.2: an invalid Host is answered 400, never guessed at.
                refuse(context, status: 400, "the Host field is no host[:port] (a name, an IPv4 address or a bracketed IPv6 one, then a port of at most 65535)")
                return
            }
            if head.version == .http1_1, !head.headers.contains(name: "Host"), !head.uri.contains("://") {
                // RFC 9112 §3.2: an HTTP/1.1 request without one is answered 400 (an absolute
                // target, as sent to a proxy, names its host itself and is let through).
                refuse(context, status: 400, "an HTTP/1.1 request must have a Host field (RFC 9112 §3.2)")
                return
            }
            if let coding = Self.unsupportedTransferCoding(head.headers) {
                // RFC 9112 §6.1: a transfer coding the server does not understand is answered 501,
                // never passed on as if the body were plain (the upstream would get the coded bytes).
                refuse(context, status: 501, "the request's transfer coding '\(coding)' is not supported: only chunked is")
                return
            }
            if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > options.maxBodyBytes {
                refuse(context, status: 413, "the body (\(length) bytes) is over the limit of \(options.maxBodyBytes) bytes")
                return
            }
            // A body of a known length gets a buffer of that size once its first bytes come (not
            // on the header's word alone): no growth copies, and the request hands the service
            // this very storage (below), no spare capacity held.
            expectedBodyBytes = head.headers.first(name: "Content-Length").flatMap(Int.init).map { min($0, options.maxBodyBytes) } ?? 0
            requestBody = context.channel.allocator.buffer(capacity: 0)
            state = .readingBody(head)
            if expectedBodyBytes > 0 || head.headers.contains(name: "Transfer-Encoding") {
                let name = "\(head.method.rawValue) \(head.uri)"
                counters.receiving.withLock { $0[connection] = name }
                receivingListed = true
            }
            if head.version == .http1_1, head.headers.first(name: "Expect")?.lowercased() == "100-continue" {
                sendContinue(context)
            }
        case (.body(var chunk), .readingBody):
            guard requestBody.readableBytes + chunk.readableBytes <= options.maxBodyBytes else {
                refuse(context, status: 413, "the body is over the limit of \(options.maxBodyBytes) bytes")
                return
            }
            if requestBody.capacity < expectedBodyBytes { requestBody.reserveCapacity(expectedBodyBytes) }
            requestBody.writeBuffer(&chunk)
            lastBodyRead = .now()
        case (.end, .readingBody(let head)):
            let body = requestBody
            requestBody = ByteBuffer()
            headerTimer?.cancel()
            // Counted in flight before it leaves the list of bodies arriving: a stop's drain,
            // reading that list first, never sees the request in neither.
            dispatch(context, head: head, body: body)
            bodyArrived()
        case (_, .discarding), (_, .closed):
            return
        default:
            refuse(context, status: 400, "request parts out of order")
        }
    }

    private func dispatch(_ context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer) {
        state = .answering(keepAlive: head.isKeepAlive)
        chunkedAllowed = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        if Self.offersUpgrade(head) { closeAfterAnswer = true }
        let number = counters.requests.add(1, ordering: .relaxed).newValue
        counters.inFlight.add(1, ordering: .relaxed)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let isHead = head.method == .HEAD
        let stream = AnswerStream { event in
            eventLoop.execute {
                let (handler, context) = bound.value
                handler.stream(event, context, isHead: isHead)
            }
        }
        answering = stream
        if options.tracksUnwrittenAnswers {
            currentRequest = number
            counters.unwritten.withLock {
                $0[number] = UnwrittenAnswer(name: "\(head.method.rawValue) \(head.uri)", channel: context.channel, stream: stream)
            }
        }
        let request = IncomingRequest(
            method: head.method.rawValue, target: head.uri, headers: head.headers.map { HeaderField($0.name, $0.value) },
            // Large bodies are not copied: the Data shares the buffer's storage (NIO's `.automatic`
            // copies only up to 256 KiB), so a request body is held once.
            body: body.getData(at: body.readerIndex, length: body.readableBytes) ?? Data(),
            number: number, connection: connection, stream: stream)
        service.handle(request) { answer in
            eventLoop.execute {
                let (handler, context) = bound.value
                handler.write(context, answer, isHead: isHead, whenDone: { self_ in
                    if stream.finishOnce() { self_.counters.inFlight.subtract(1, ordering: .relaxed) }
                })
            }
        }
    }

    // MARK: refusing

    /// Stops reading the request under way for a refusal; false when the refusal is not to be
    /// written: an answer is under way (nothing more can be said on this connection once it has
    /// gone out whole — closing now would drop its writes not yet flushed, the answer to a
    /// `Connection: close` request followed by more bytes, which llhttp refuses; an HTTP/2 preface
    /// pipelined behind it would garble it), or the last answer is ending and closes the
    /// connection once flushed.
    func beginRefusal() -> Bool {
        headerTimer?.cancel()
        bodyArrived()
        requestBody = ByteBuffer()
        switch state {
        case .answering, .streaming:
            closeAfterAnswer = true
            return false
        case .closed:
            return false
        case .waitingForHead, .readingBody, .discarding:
            state = .discarding
            return true
        }
    }

    /// Answers `status` with `reason` and closes (limits, timeouts, malformed input).
    private func refuse(_ context: ChannelHandlerContext, status: Int, _ reason: String) {
        guard beginRefusal() else { return }
        // Straight to the socket, past NIO's pipelining handler and encoder: a refusal may come
        // before any request was read (a slow head), which those handlers do not allow.
        let body = "tapedeck: \(reason)\n"
        let phrase = HTTPResponseStatus(statusCode: status).reasonPhrase
        var buffer = context.channel.allocator.buffer(capacity: 160 + body.utf8.count)
        buffer.writeString("HTTP/1.1 \(status) \(phrase)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        let channel = context.channel
        guard let outlet = outlet.context else {
            channel.close(promise: nil)
            return
        }
        outlet.writeAndFlush(NIOAny(buffer)).whenComplete { _ in
            // Half-close, so unread request bytes do not turn the close into a reset before the client reads the answer.
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }

    /// `100 Continue` for a client that waits for it before sending its body (curl does for
    /// bodies over 1 MB, for up to a second), once the head was found within the limits. Straight
    /// to the socket: NIO's pipelining handler holds a request's parts while an earlier answer is
    /// written, so this never comes between another answer's bytes.
    private func sendContinue(_ context: ChannelHandlerContext) {
        guard let outlet = outlet.context else { return }
        var buffer = context.channel.allocator.buffer(capacity: 32)
        buffer.writeString("HTTP/1.1 100 Continue\r\n\r\n")
        outlet.writeAndFlush(NIOAny(buffer), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let parse = error as? HTTPParserError, parse == .paused {
            // llhttp pauses at HTTP/2's connection preface (`PRI * HTTP/2.0`): a client speaking
            // HTTP/2 from the first byte (curl --http2-prior-knowledge, gRPC).
            if headsRead == 0 {
                refuseHTTP2(context)
            } else {
                refuse(context, status: 505, "HTTP/2's connection preface after an HTTP/1.1 request on the same connection: this server speaks HTTP/1.1")
            }
        } else if case .discarding = state, let decoding = error as? ByteToMessageDecoderError,
                  case .dataReceivedInErrorState = decoding {
            // More bytes after a refusal (an HTTP/2 client's SETTINGS acknowledgement): the
            // refusal closes the connection when it is done; closing at once could cut it short.
        } else if let parse = error as? HTTPParserError, parse == .headerOverflow {
            // NIO's own words ("too many header bytes seen; overflow detected") name no limit.
            refuse(context, status: 431, "the request head (its request line and header fields) is over the limit of \(options.maxHeaderBytes) bytes "
                + "(--max-header-bytes sets it)")
        } else if let parse = error as? HTTPParserError {
            refuse(context, status: 400, "malformed request: \(parse)")
        } else {
            state = .closed
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            // The client sent all it will send: close once nothing is being answered (NIO's
            // pipelining handler passes this on only after the answers under way are complete).
            switch state {
            case .waitingForHead, .readingBody:
                state = .closed
                context.close(promise: nil)
            case .answering, .streaming:
                closeAfterAnswer = true
            case .discarding, .closed:
                break
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
