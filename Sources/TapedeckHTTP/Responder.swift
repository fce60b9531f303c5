public import Foundation
public import TapedeckScheduling

/// "Given this request, here is how the exchange goes": what stubs, handlers and cassettes
/// implement and the simulated network consumes. A responder never imports the network.
///
/// ```swift
/// struct Teapot: Responder {
///     func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
///         .response(ResponsePlan(status: 418, body: Data("short and stout".utf8)))
///     }
/// }
/// ```
public protocol Responder: Sendable {
    /// Called on the simulated network's queue, in the simulation's deterministic order, once per
    /// transaction (a followed redirect asks again for the new request).
    func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply
}

/// Where an exchange stands when a responder is asked.
public struct ResponderContext: Hashable, Sendable {
    /// The exchange's number (the order in which tasks were started).
    public let exchange: Int
    /// 0 for the first request of the exchange, n for the n-th followed redirect.
    public let transaction: Int
    /// The network's virtual time when the responder is asked.
    public let time: VirtualInstant

    /// A context for the `transaction`-th request of exchange number `exchange`, at `time`.
    public init(exchange: Int, transaction: Int, time: VirtualInstant) {
        self.exchange = exchange
        self.transaction = transaction
        self.time = time
    }
}

/// A responder's answer.
public enum Reply: Sendable {
    /// Answer with this response.
    case response(ResponsePlan)
    /// Fail at the transport level, `after` the start of the exchange (e.g. a refused connection).
    case failure(TransportFailure, after: Duration = .zero)
    /// Never answer (a timeout, if one is set, ends it).
    case stall
    /// This responder has nothing for the request; `reason` says why (shown in "no route" errors).
    case noMatch(reason: String)
    /// The answer comes later from another thread — a live network call while recording. The
    /// simulation expects it (in the deterministic order of the request) and waits for it in real
    /// time, up to the deferred reply's patience; virtual time stands still meanwhile.
    case deferred(DeferredReply)
}

/// An answer a responder cannot give at once: `start` begins the work, calls `deliver` once, from
/// any thread, with the final reply (a further `.deferred` fails the exchange), and returns how to
/// cancel the work — called instead when the exchange ends first (the client cancelled).
///
/// A live exchange can also report its head and body as they arrive (``startReporting``), for a
/// consumer that passes them on at once — a recording proxy streaming to its client. The simulated
/// network waits for the final reply only: it has to, to stay deterministic.
public struct DeferredReply: Sendable {
    /// Hands the final reply over (once, from any thread).
    public typealias Deliver = @Sendable (Reply) -> Void
    /// Stops the work (called instead of waiting, when the exchange ends first).
    public typealias Cancel = @Sendable () -> Void
    /// Receives the head, then the body bytes, as they arrive, before `deliver` is called.
    public typealias Progress = @Sendable (ReplyProgress) -> Void

    /// Names the wait in traces and in "external work timed out" reports.
    public let label: String
    /// How long, in real time, the simulation may wait for `deliver`.
    public let patience: Duration
    /// Begins the work; returns how to cancel it.
    public let start: @Sendable (_ deliver: @escaping Deliver) -> Cancel
    /// Begins the work reporting progress too (nil when the work cannot say anything early).
    public let startReporting: (@Sendable (_ progress: @escaping Progress, _ deliver: @escaping Deliver) -> Cancel)?

    /// A deferred reply named `label`, waited for at most `patience` of real time.
    public init(label: String, patience: Duration, start: @escaping @Sendable (_ deliver: @escaping Deliver) -> Cancel) {
        self.label = label
        self.patience = patience
        self.start = start
        startReporting = nil
    }

    /// A deferred reply that can report its head and body as they arrive (`start` reports to
    /// nobody).
    ///
    /// ```swift
    /// let reply = DeferredReply(label: "live GET /", patience: .seconds(30)) { progress, deliver in
    ///     progress(.body(Data("hel".utf8)))
    ///     deliver(.response(.text(200, "hello")))
    ///     return {}
    /// }
    /// ```
    public init(label: String, patience: Duration,
                reporting: @escaping @Sendable (_ progress: @escaping Progress, _ deliver: @escaping Deliver) -> Cancel) {
        self.label = label
        self.patience = patience
        // Nobody listens: every piece is taken as it comes.
        start = { deliver in reporting({ progress in if case let .body(_, taken?) = progress { taken() } }, deliver) }
        startReporting = reporting
    }
}

/// What a live exchange has received so far: its head, then its body in the pieces it arrived in
/// (as they travelled: still compressed when `Content-Encoding` says so).
public enum ReplyProgress: Sendable {
    /// The status, reason phrase and header fields, in the order and case received.
    case head(ResponseHead, reason: String)
    /// The next piece of the body. A producer that reads no more until the piece is on its way
    /// (backpressure: a slow client slows the upstream instead of filling memory) passes `taken`;
    /// a consumer must call it once, when the piece has left it — at once, if it keeps no pace.
    case body(Data, taken: (@Sendable () -> Void)? = nil)
}

/// How a response goes: its head, its body, how the body is cut into chunks and how long each
/// phase takes.
public struct ResponsePlan: Sendable, Hashable {
    /// Whether `body` holds the bytes as sent on the wire (encoded per `Content-Encoding`) or
    /// bytes that were already decoded (as some HAR writers store them).
    public enum BodyForm: String, Sendable, Hashable {
        /// As sent on the wire (compressed when `Content-Encoding` says so).
        case wire
        /// Already decoded; `Content-Encoding` only tells how it was sent.
        case decoded
    }

    /// Status and header fields.
    public var head: ResponseHead
    /// The body bytes, in ``bodyForm``.
    public var body: Data
    /// Whether ``body`` is as on the wire or already decoded.
    public var bodyForm: BodyForm
    /// Sizes of the chunks the body arrives in (nil: as the route's bandwidth cuts it, or in one piece).
    public var chunkSizes: [Int]?
    /// When each of ``chunkSizes`` had arrived, from the response head, as a recording saw it (a
    /// streamed body: server-sent events, JSON lines). The network spreads the chunks over the
    /// body's receive time in these proportions instead of by their share of bytes, so an event
    /// that came late comes late on replay too (nil: by bytes).
    public var chunkOffsets: [Duration]?
    /// Recorded phase durations; used when the route replays recorded timings.
    public var timings: ExchangeTimings?
    /// The status line's reason phrase as recorded (`200 Okay`); empty for the status's standard
    /// one. URLSession does not show it; a server replaying over sockets sends it.
    public var reasonPhrase = ""
    /// How the response broke off, when it did: ``body`` holds the bytes that arrived before the
    /// connection failed, and after them the exchange ends with this failure instead of
    /// completing (a recording of a server that reset or timed out mid-body). Nil: it completes.
    public var interruption: TransportFailure?

    /// A plan from its parts.
    public init(
        head: ResponseHead, body: Data = Data(), bodyForm: BodyForm = .wire, chunkSizes: [Int]? = nil,
        timings: ExchangeTimings? = nil
    ) {
        self.head = head
        self.body = body
        self.bodyForm = bodyForm
        self.chunkSizes = chunkSizes
        self.timings = timings
    }

    /// A response with `status`, header fields given as pairs, and `body`.
    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        var fields = HTTPFieldsBuilder()
        for (name, value) in headers { fields.append(name, value) }
        self.init(head: ResponseHead(status: status, headerFields: fields.fields), body: body)
    }

    /// A JSON response (`Content-Type: application/json`).
    public static func json(_ status: Int = 200, _ text: String, headers: [(String, String)] = []) -> ResponsePlan {
        ResponsePlan(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(text.utf8))
    }

    /// A plain-text response (`Content-Type: text/plain; charset=utf-8`).
    public static func text(_ status: Int = 200, _ text: String, headers: [(String, String)] = []) -> ResponsePlan {
        ResponsePlan(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: Data(text.utf8))
    }
}

/// The phases of an exchange, as HAR records them.
public struct ExchangeTimings: Hashable, Sendable {
    /// Connection set-up (nil: the connection was reused).
    public var connect: Duration?
    /// Sending the request.
    public var send: Duration
    /// Waiting for the first byte of the response.
    public var wait: Duration
    /// Receiving the response body.
    public var receive: Duration

    /// Phase durations; `connect` nil means a reused connection.
    public init(connect: Duration? = nil, send: Duration = .zero, wait: Duration, receive: Duration = .zero) {
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
    }

    /// Every phase multiplied by `factor`, rounded to whole nanoseconds.
    public func scaled(by factor: Double) -> ExchangeTimings {
        func scale(_ duration: Duration) -> Duration { .seconds(rounding: duration.timeInterval * factor) }
        return ExchangeTimings(connect: connect.map(scale), send: scale(send), wait: scale(wait), receive: scale(receive))
    }
}
