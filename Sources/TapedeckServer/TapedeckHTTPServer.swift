import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import TapedeckScheduling

/// An HTTP/1.1 server on real sockets (SwiftNIO) that hands every complete request to an
/// ``ExchangeService`` and writes its ``ServerAnswer`` as the answer's ``Delivery`` says: delays,
/// pace, truncation, resets. It enforces ``ServerOptions``' limits and answers malformed HTTP with
/// `400` (a head too large `431`, a body too large `413`, too many connections `503`, a slow head
/// `408`); no input makes it crash.
///
/// ```swift
/// let server = try TapedeckHTTPServer(service: myService, options: ServerOptions())
/// print("listening on \(server.port)")
/// try server.shutdown()
/// ```
public final class TapedeckHTTPServer: Sendable {
    /// The options it was started with.
    public let options: ServerOptions
    /// The port it listens on.
    public let port: Int
    private let group: MultiThreadedEventLoopGroup
    /// The listening sockets: one, or for `localhost` its IPv4 and IPv6 loopback addresses.
    private let channels: [any Channel]
    private let counters: ServerCounters
    private let service: any ExchangeService
    private let stopping = OnceFlag()

    /// Binds and starts serving; throws when the address cannot be bound.
    public init(service: any ExchangeService, options: ServerOptions) throws {
        self.options = options
        let group = MultiThreadedEventLoopGroup(numberOfThreads: options.loopThreads)
        let counters = ServerCounters()
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = options.maxHeaderBytes
        limits.maxHeaderListSize = options.maxHeaderBytes
        let decoderLimits = limits
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 2_048)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            // A client that half-closes after its request still gets the answer — except a live
            // exchange `record` streams, which takes the end of input for the client going away.
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let number = counters.accepted.add(1, ordering: .relaxed).newValue
                    let connections = counters.connections.add(1, ordering: .relaxed).newValue
                    channel.closeFuture.whenComplete { _ in counters.connections.subtract(1, ordering: .relaxed) }
                    if connections > options.maxConnections {
                        try channel.pipeline.syncOperations.addHandler(RejectHandler(status: 503, reason: "too many connections (at most \(options.maxConnections))"))
                        return
                    }
                    if service.dropsConnection(number) {
                        try channel.pipeline.syncOperations.addHandler(RejectHandler(status: nil, reason: ""))
                        return
                    }
                    let outlet = RawOutlet()
                    try channel.pipeline.syncOperations.addHandler(outlet)
                    // Before the parser, which refuses raw non-ASCII in a request target.
                    try channel.pipeline.syncOperations.addHandler(RequestTargetEscaper())
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: false,
                        withEncoderConfiguration: HTTPResponseEncoder.Configuration(),
                        withDecoderLimitConfiguration: decoderLimits)
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionHandler(service: service, options: options, connection: number, counters: counters, outlet: outlet))
                }
            }
        var channels: [any Channel] = []
        do {
            // `localhost` is both loopback addresses (a client may resolve it to either: Node's
            // fetch takes ::1 where /etc/hosts lists it first, as macOS's does), on one port.
            let isLocalhost = options.host.lowercased() == "localhost"
            let first = try bootstrap.bind(host: isLocalhost ? "127.0.0.1" : options.host, port: options.port).wait()
            channels.append(first)
            if isLocalhost, let bound = first.localAddress?.port,
               let second = try? bootstrap.bind(host: "::1", port: bound).wait() {   // no IPv6 here: IPv4 alone
                channels.append(second)
            }
        } catch {
            for channel in channels { try? channel.close().wait() }
            try? group.syncShutdownGracefully()
            throw error
        }
        self.channels = channels
        port = channels[0].localAddress?.port ?? options.port
        self.group = group
        self.counters = counters
        self.service = service
    }

    /// Requests being answered right now.
    public var inFlight: Int { counters.inFlight.load(ordering: .relaxed) }

    /// Requests whose body is still arriving right now (`POST /upload`), in no order: a stop
    /// waits for them as for ``inFlight``, and names those it cuts off.
    public var receiving: [String] { counters.receiving.withLock { Array($0.values) } }

    /// Answers not yet handed whole to the kernel, in no order: those being produced (as
    /// ``inFlight``) and those complete but still queued for a client that reads slowly. A stop
    /// waits for them too: once every byte is with the kernel, closing the connection loses none.
    public var unwrittenAnswers: Int { counters.unwritten.withLock { $0.count } }

    /// Takes every answer not yet handed whole to the kernel off the list (a stop whose wait ran
    /// out: a slow client still reading a large answer), in arrival order, each with what its
    /// service noted of it; ``CutOffAnswer/reset()`` then cuts it off, so its client gets a
    /// cut-off answer, never one that looks complete. (Taken before the service stops its own
    /// work, whose resets would take the answers off the list unnamed.)
    public func takeUnwritten() -> [CutOffAnswer] {
        counters.unwritten.withLock { unwritten in
            defer { unwritten = [:] }
            return unwritten.sorted { $0.key < $1.key }.map { CutOffAnswer(name: $0.value.name, channel: $0.value.channel, stream: $0.value.stream) }
        }
    }

    /// Connections open right now.
    public var openConnections: Int { counters.connections.load(ordering: .relaxed) }

    /// Stops accepting connections (open ones finish what they are doing).
    public func stopAccepting() {
        for channel in channels { try? channel.close().wait() }
    }

    /// Stops accepting, lets the service release what lives on the event loops, closes every
    /// connection and stops the loops.
    public func shutdown() throws {
        stopAccepting()
        if stopping.claim() { service.serverWillStop() }
        try group.syncShutdownGracefully()
    }
}

/// Counters shared by the server's connections.
final class ServerCounters: Sendable {
    let accepted = Atomic<Int>(0)
    let connections = Atomic<Int>(0)
    let requests = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    /// Requests whose body is still arriving, by connection: `POST /upload` (only requests with a
    /// body are listed, so a GET costs nothing here).
    let receiving = Mutex<[Int: String]>([:])
    /// Answers not yet handed whole to the kernel, by request number.
    let unwritten = Mutex<[Int: UnwrittenAnswer]>([:])

    /// The answer to request `number` is with the kernel whole, or can no longer be written.
    func written(_ number: Int?) {
        guard let number else { return }
        unwritten.withLock { _ = $0.removeValue(forKey: number) }
    }
}

/// An answer not yet handed whole to the kernel: its request, and where it is written.
struct UnwrittenAnswer: Sendable {
    /// `GET /target`, as the client sent it.
    let name: String
    let channel: any Channel
    let stream: AnswerStream
}

/// An answer a stop cuts off while it is still being written (see
/// ``TapedeckHTTPServer/takeUnwritten()``).
public struct CutOffAnswer: Sendable {
    /// The request's method and target, as the client sent them (`GET /big?token=…`: redact
    /// before showing it).
    public let name: String
    let channel: any Channel
    let stream: AnswerStream

    /// Resets its client's connection (once its service has stopped its own work for it).
    public func reset() { abort(channel) }

    /// What the service noted of the answer, read now (a note may come after the cut: an
    /// exchange whose journalling was under way).
    public var noted: AnswerStream.Keeping { stream.noted }
}

/// Answers a connection that is not served (over the connection limit: `503`; dropped at accept
/// by a fault: nothing, an abortive close).
final class RejectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let status: Int?
    let reason: String

    init(status: Int?, reason: String) {
        self.status = status
        self.reason = reason
    }

    func channelActive(context: ChannelHandlerContext) {
        guard let status else {
            abort(context.channel)
            return
        }
        let body = "tapedeck: \(reason)\n"
        var buffer = context.channel.allocator.buffer(capacity: 128 + body.utf8.count)
        buffer.writeString("HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            // Half-close, so a request the client is still sending does not turn the close into a reset.
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Closes `channel` with a reset (SO_LINGER 0) instead of a FIN.
func abort(_ channel: any Channel) {
    if let provider = channel as? any SocketOptionProvider {
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    } else {
        channel.close(promise: nil)
    }
}
