public import Foundation
import Synchronization
public import TapedeckCassettes
import TapedeckHTTP

/// A request as the server read it off the socket: method, target, header fields in wire order
/// and case, and the body.
public struct IncomingRequest: Sendable {
    /// The method as sent (`GET`, `POST`, …).
    public var method: String
    /// The request target as sent (`/items?page=2`).
    public var target: String
    /// The header fields, in order, names spelled as sent.
    public var headers: [HeaderField]
    /// The body (empty when there was none).
    public var body: Data
    /// The request's number in arrival order on this server (from 1).
    public var number: Int
    /// Its connection's number in accept order (from 1).
    public var connection: Int
    /// How to answer it piece by piece instead of in one ``ServerAnswer`` (nil when the request
    /// did not come from a connection, as in a test calling a service directly).
    public var stream: AnswerStream?

    /// A request from its parts.
    public init(method: String, target: String, headers: [HeaderField], body: Data = Data(), number: Int = 1, connection: Int = 1,
                stream: AnswerStream? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.number = number
        self.connection = connection
        self.stream = stream
    }
}

/// An answer written to the connection as it arrives, for a service passing on an upstream's
/// response (`tapedeck record`): ``head(_:)`` once, ``body(_:taken:)`` for each piece, then ``end()`` —
/// or ``abort()`` when the upstream failed after its head. A service that streams calls none of
/// the `answer` closure. Calls may come from any thread; they are written in the order made.
///
/// Only what would complete the answer waits for ``end()`` — of a body of known length, the piece
/// that brings its last byte; of a chunked body, its last chunk — so the client gets its last byte
/// only once the service says the exchange is complete (journalled, for a recording), while
/// everything before it flows through as it comes, never buffered whole for the client.
///
/// ```swift
/// stream.head(ServerAnswer(status: 200, headers: [HeaderField("Content-Length", "5")]))
/// stream.body(Data("hel".utf8))
/// stream.body(Data("lo".utf8))   // "hel" goes out now; "lo" waits for end()
/// stream.end()
/// ```
public final class AnswerStream: Sendable {
    enum Event: Sendable {
        case head(ServerAnswer)
        case body(Data, taken: (@Sendable () -> Void)?)
        case end
        case abort
    }

    private let send: @Sendable (Event) -> Void
    /// Whether the answer was counted done (ended, broken off, or its client went away), and
    /// what to do if the client goes away first.
    private let lifecycle = Mutex<(done: Bool, clientGone: Bool, whenGone: (@Sendable () -> Void)?)>((false, false, nil))

    init(send: @escaping @Sendable (Event) -> Void) {
        self.send = send
    }

    /// Runs `action` once if the client's connection closes before the answer is complete (at
    /// once if it already has): a service stops the work that would feed a stream nobody reads.
    public func whenClientGone(_ action: @escaping @Sendable () -> Void) {
        let now = lifecycle.withLock { state -> Bool in
            if state.clientGone { return true }
            // Once done, nothing is left to stop (and the action must not be held: it often
            // captures the work that holds this stream, a cycle nothing would break).
            if !state.done { state.whenGone = action }
            return false
        }
        if now { action() }
    }

    /// Whether a service asked to hear of the client's going (``whenClientGone(_:)``) and the
    /// answer is not done yet.
    var stopsWhenClientGone: Bool {
        lifecycle.withLock { !$0.done && $0.whenGone != nil }
    }

    /// Marks the answer done, letting go of the action ``whenClientGone(_:)`` registered; true
    /// the first time (the caller counts it).
    func finishOnce() -> Bool {
        lifecycle.withLock { state in
            defer {
                state.done = true
                state.whenGone = nil
            }
            return !state.done
        }
    }

    /// The client's connection closed: runs the registered action if the answer was not done, and
    /// marks it done; true when this call did that (the caller counts it).
    func clientGone() -> Bool {
        let (first, action) = lifecycle.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            state.clientGone = true
            guard !state.done else { return (false, nil) }
            state.done = true
            defer { state.whenGone = nil }
            return (true, state.whenGone)
        }
        action?()
        return first
    }

    /// The status and header fields (`answer.body` and `delivery` are ignored). A `Content-Length`
    /// among the fields is kept (the pieces must add up to it); without one the body goes chunked.
    public func head(_ answer: ServerAnswer) { send(.head(answer)) }

    /// The next piece of the body; `taken`, if given, is called once the piece is on its way to
    /// the client (written to the socket, or held back as the last piece), so that the producer
    /// reads no faster than the client does. It is called whatever happens to the connection.
    public func body(_ piece: Data, taken: (@Sendable () -> Void)? = nil) { send(.body(piece, taken: taken)) }

    /// The answer is complete: the held-back piece goes out, then the end of the message.
    public func end() { send(.end) }

    /// The answer cannot be completed: the connection is reset, as the upstream's was.
    public func abort() { send(.abort) }

    /// What the service says became of the answer, for a stop that cuts off the answers still
    /// being written (``TapedeckHTTPServer/takeUnwritten()``).
    public enum Keeping: Sendable, Equatable {
        /// Nothing said.
        case unsaid
        /// Its exchange is still being forwarded: the service names it itself if cut off.
        case forwarding
        /// What was done with the answer, said in a few words (`replayed from the cassette`).
        case said(String)
    }

    private let keeping = Mutex(Keeping.unsaid)

    /// Notes what became of the answer (the last note counts).
    public func note(_ keeping: Keeping) { self.keeping.withLock { $0 = keeping } }

    /// What the service last noted of the answer.
    public var noted: Keeping { keeping.withLock { $0 } }
}

/// An upstream answer passed on to an ``AnswerStream`` as it arrives (`record`'s live exchanges,
/// `serve`'s passthrough): its head, made a ``ServerAnswer`` by `head`, then each body piece; an
/// interim head (`1xx`) is not the answer and is only noted. Once the upstream is done, ``end(_:)``
/// ends or breaks off the stream — or says that no head went out, and the caller answers whole.
///
/// ```swift
/// let relay = AnswerRelay(stream) { head, reason in ServerAnswer(status: head.status) }
/// let cancel = client.forward(request, progress: relay.progress) { live in
///     if !relay.end(completed: isWhole(live)) { answer(whole(live)) }
/// }
/// ```
final class AnswerRelay: Sendable {
    private let stream: AnswerStream
    private let makeHead: @Sendable (ResponseHead, String) -> ServerAnswer
    private let headSent = Atomic<Bool>(false)
    private let interimStatus = Atomic<Int>(0)

    /// A relay onto `stream`, its head made by `head` from the upstream's head and reason phrase.
    init(_ stream: AnswerStream, head: @escaping @Sendable (ResponseHead, String) -> ServerAnswer) {
        self.stream = stream
        makeHead = head
    }

    /// Takes the upstream's progress.
    var progress: DeferredReply.Progress {
        { [self] progress in
            switch progress {
            case let .head(head, _) where head.status < 200:
                interimStatus.store(head.status, ordering: .releasing)
            case let .head(head, reason):
                headSent.store(true, ordering: .releasing)
                stream.head(makeHead(head, reason))
            case let .body(piece, taken):
                stream.body(piece, taken: taken)
            }
        }
    }

    /// The last interim status the upstream sent (0: none).
    var interim: Int { interimStatus.load(ordering: .acquiring) }

    /// Ends the stream (`completed`) or breaks it off, when a head went out; false when none did
    /// (the caller answers whole: a 502, say).
    func end(completed: Bool) -> Bool {
        guard headSent.load(ordering: .acquiring) else { return false }
        if completed { stream.end() } else { stream.abort() }
        return true
    }
}

/// How the server writes an answer on the socket: waits, pace and where it breaks off. Socket
/// faults and recorded timings both become a delivery.
public struct Delivery: Hashable, Sendable {
    /// How the connection is broken off before the answer is complete.
    public enum Cut: Hashable, Sendable {
        /// Close (FIN) after this many body bytes, short of the announced Content-Length.
        case truncate(afterBytes: Int)
        /// Abort (RST) after this many body bytes.
        case reset(afterBytes: Int)
        /// Abort (RST) before any byte of the answer.
        case beforeResponse
        /// A recorded response that broke off: this many body bytes, every one delivered (the
        /// output closes after them: FIN follows the bytes still queued), then a reset if the
        /// client has not closed the connection within 5 minutes. (A reset at once could throw
        /// away bytes the kernel still holds for a slow reader.)
        case brokenOff(afterBytes: Int)
    }

    /// Wait before the status line (recorded wait, latency or slow-first-byte faults).
    public var headDelay: Duration = .zero
    /// Wait between the head and the body (recorded receive time).
    public var bodyDelay: Duration = .zero
    /// The body's pace (nil: as fast as the socket takes it).
    public var bytesPerSecond: Int?
    /// The body in these pieces, each sent (and flushed) when its time from the head has come —
    /// a recorded stream's pace (nil: in one write, or at ``bytesPerSecond``, which overrides it).
    public var pieces: [BodyChunk]?
    /// Where the answer breaks off (nil: it completes).
    public var cut: Cut?
    /// Wait between the last byte sent and the cut (a recorded response that broke off after
    /// a silence: the bytes came at once, the failure at the end of the recorded receive time).
    public var cutDelay: Duration = .zero
    /// What the head says of the body's length.
    public var framing: Framing = .sent

    /// What the head says of the body's length.
    public enum Framing: Hashable, Sendable {
        /// `Content-Length`: the bytes of the answer's body (as usual).
        case sent
        /// `Content-Length` of this many bytes, more than are sent: a recorded response that broke
        /// off announces what its server announced, and the cut comes short of it.
        case announced(Int)
        /// No length: the body goes chunked (to an HTTP/1.0 client, which cannot read chunks,
        /// with a length one byte more than is sent), as a recorded response that broke off
        /// without a length went: either way its end comes short.
        case unannounced
    }
    /// Never answer: the connection stays open until the client gives up.
    public var stall = false

    /// An immediate, complete delivery.
    public init() {}
}

/// What the server writes for one request: a status, header fields (order and case kept), a body
/// and how to deliver them.
///
/// ```swift
/// let answer = ServerAnswer(status: 404, headers: [HeaderField("Content-Type", "text/plain")], body: Data("no\n".utf8))
/// ```
public struct ServerAnswer: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields to send (the server sets Content-Length itself).
    public var headers: [HeaderField]
    /// The body bytes, exactly as sent.
    public var body: Data
    /// How to deliver it.
    public var delivery: Delivery
    /// Close the connection after this answer.
    public var close: Bool
    /// The status line's reason phrase (empty: the status's standard one). One that could not
    /// stand in a status line (a control character) is replaced by the standard one.
    public var reasonPhrase = ""

    /// An answer from its parts.
    public init(status: Int, headers: [HeaderField] = [], body: Data = Data(), delivery: Delivery = Delivery(), close: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delivery = delivery
        self.close = close
    }

    /// A plain-text answer (`Content-Type: text/plain; charset=utf-8`).
    public static func text(_ status: Int, _ text: String, headers: [HeaderField] = [], close: Bool = false) -> ServerAnswer {
        ServerAnswer(status: status, headers: [HeaderField("Content-Type", "text/plain; charset=utf-8")] + headers,
                     body: Data(text.utf8), close: close)
    }

    /// The answer to an asterisk-form request (`OPTIONS * HTTP/1.1`, which asks about the server,
    /// not a resource): `501`, since no cassette entry is for it and the upstream client cannot
    /// send one (it would go out as `OPTIONS /*`, another request). Nil for any other target.
    static func asteriskForm(_ request: IncomingRequest) -> ServerAnswer? {
        guard request.target == "*" else { return nil }
        return .text(501, "tapedeck: '\(request.method) *' asks about the server as a whole; it is neither forwarded, recorded nor replayed\n")
    }
}

/// What answers the requests a ``TapedeckHTTPServer`` reads: the replay service, the recording
/// proxy, or a test's own.
public protocol ExchangeService: Sendable {
    /// Whether to drop connection number `connection` (from 1) at accept, before reading anything.
    func dropsConnection(_ connection: Int) -> Bool
    /// Answers `request` by calling `answer` once, from any thread.
    func handle(_ request: IncomingRequest, answer: @escaping @Sendable (ServerAnswer) -> Void)
    /// Descriptors one client connection costs the process (a proxy's upstream connection makes
    /// two): the server keeps its connection limit within what the process may open.
    var descriptorsPerConnection: Int { get }
    /// The server is about to stop its event loops: release what lives on them (upstream
    /// connections). Called once, by ``TapedeckHTTPServer/shutdown()``, off the loops.
    func serverWillStop()
}

extension ExchangeService {
    /// By default no connection is dropped at accept.
    public func dropsConnection(_ connection: Int) -> Bool { false }
    /// By default nothing lives on the server's loops.
    public func serverWillStop() {}
    /// By default a connection is one descriptor.
    public var descriptorsPerConnection: Int { 1 }
}
