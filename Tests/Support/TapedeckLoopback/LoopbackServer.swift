public import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import TapedeckHTTP

/// A real HTTP server on 127.0.0.1 (Hummingbird), started on an ephemeral port, for tests and
/// benchmarks that need the live network: JSON, binary, gzip-encoded, chunked, large, redirecting,
/// slow and failing endpoints.
///
/// | path | answer |
/// |---|---|
/// | `/get` | small JSON echoing method, path and query |
/// | `/bytes/N` | N deterministic binary bytes |
/// | `/gzip` | a JSON body sent with `Content-Encoding: gzip` |
/// | `/chunked/N` | N lines streamed in chunks (no Content-Length) |
/// | `/large/N` | N megabytes of JSON-ish lines |
/// | `/redirect/N` | 302 to `/redirect/N-1`, `/redirect/0` answers like `/get` |
/// | `/absolute-redirect/N` | 302 to `http://HOST/absolute-redirect/N-1` (the `Host` it was asked by), `…/0` like `/get` |
/// | `/delay/MS` | `/get` after MS milliseconds |
/// | `/status/N` | status N with an empty body |
/// | `/big-head/N` | `big head`, after N header fields of 1,000 bytes each |
/// | `/basic-auth` | 401 with `WWW-Authenticate: Basic realm="tapedeck"` |
/// | `/echo` | the request body back (any method) |
/// | `/headers` | the request's header fields as JSON (GET or POST) |
/// | `/cut/N` | announces 2N bytes, sends N, then drops the connection |
/// | `/gated/KEY/N` | N bytes, then the same N bytes again once a test calls `LoopbackGates.open(KEY)` |
/// | `/open-gate/KEY` | `204`, having opened the gate `KEY` (a request that lets another finish) |
///
/// Session routes (cookies, tokens in redirects and links, a `br` body): `LoopbackServer+Sessions.swift`.
public final class LoopbackServer: Sendable {
    public let port: Int
    /// `http`, or `https` for a server started with ``startTLS(certificate:key:)``.
    public let scheme: String
    private let task: Task<Void, any Error>

    /// Starts a server and returns once it listens.
    public static func start() async throws -> LoopbackServer {
        try await start(server: .http1(), scheme: "http")
    }

    /// Starts the same server over TLS with a PEM certificate (chain) and its private key.
    public static func startTLS(certificate: URL, key: URL) async throws -> LoopbackServer {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.path).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem)))
        tls.applicationProtocols = ["http/1.1"]
        return try await start(server: try .tls(.http1(), tlsConfiguration: tls), scheme: "https")
    }

    private static func start(server: HTTPServerBuilder, scheme: String) async throws -> LoopbackServer {
        let router = Router()
        Self.addRoutes(to: router)
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "tapedeck.loopback")
        logger.logLevel = .error
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "tapedeck-loopback"),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        // The server's tasks (and every handler, which inherit the preference) run on their own
        // thread, so tests that block the cooperative pool can still be answered.
        let task = Task(executorPreference: LoopbackExecutor.shared) { try await app.runService() }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw LoopbackError.didNotStart
        }
        return LoopbackServer(port: port, scheme: scheme, task: task)
    }

    /// Starts a server from synchronous code (a benchmark's main thread). The start runs on the
    /// server's own executor, so this never waits for a thread of the cooperative pool.
    public static func startBlocking() throws -> LoopbackServer {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: LoopbackExecutor.shared) {
            do { box.set(.success(try await start())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return try box.get()
    }

    private init(port: Int, scheme: String, task: Task<Void, any Error>) {
        self.port = port
        self.scheme = scheme
        self.task = task
    }

    public var baseURL: URL { URL(string: "\(scheme)://127.0.0.1:\(port)")! }

    public func url(_ path: String) -> URL { URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")! }

    public func stop() {
        task.cancel()
    }

    deinit {
        task.cancel()
    }

    static func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("get") { request, _ in json(request) }
        router.get("bytes/:count") { _, context in
            let count = try context.parameters.require("count", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                            body: .init(byteBuffer: ByteBuffer(bytes: LoopbackServer.bytes(count))))
        }
        router.head("bytes/:count") { _, context in
            // What GET would say of the body, without it.
            let count = try context.parameters.require("count", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream", .contentLength: String(count)])
        }
        router.get("gzip") { request, _ in
            let body = try Zlib.compress(Data(json(request).utf8), format: .gzip)
            return Response(status: .ok, headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                            body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("chunked/:lines") { _, context in
            let lines = try context.parameters.require("lines", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody { writer in
                for line in 0..<lines {
                    try await writer.write(ByteBuffer(string: "chunk \(line)\n"))
                }
                try await writer.finish(nil)
            })
        }
        router.get("large/:megabytes") { _, context in
            let megabytes = try context.parameters.require("megabytes", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                var written = 0
                var line = 0
                while written < megabytes * 1_048_576 {
                    var buffer = ByteBuffer()
                    for _ in 0..<1_000 {
                        written += buffer.writeString("{\"line\":\(line),\"text\":\"tapedeck large body\"}\n")
                        line += 1
                    }
                    try await writer.write(buffer)
                }
                try await writer.finish(nil)
            })
        }
        router.get("redirect/:count") { request, context in
            let count = try context.parameters.require("count", as: Int.self)
            if count <= 0 { return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json(request)))) }
            return Response(status: .found, headers: [.location: "/redirect/\(count - 1)"])
        }
        router.get("absolute-redirect/:count") { request, context in
            let count = try context.parameters.require("count", as: Int.self)
            if count <= 0 { return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json(request)))) }
            let host = request.head.authority ?? "127.0.0.1"
            return Response(status: .found, headers: [.location: "http://\(host)/absolute-redirect/\(count - 1)"])
        }
        router.get("delay/:milliseconds") { request, context in
            let milliseconds = try context.parameters.require("milliseconds", as: Int.self)
            try await Task.sleep(for: .milliseconds(milliseconds))   // a slow server, on purpose (live test peer)
            return json(request)
        }
        router.get("big-head/:fields") { _, context in
            // N fields of 1,000 bytes: a head past llhttp's default 80 KiB that browsers still read.
            let count = try context.parameters.require("fields", as: Int.self)
            var headers = HTTPFields()
            for index in 0..<count {
                headers.append(HTTPField(name: HTTPField.Name("X-Filler-\(index)")!, value: String(repeating: "f", count: 1_000)))
            }
            headers[.contentType] = "text/plain"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "big head")))
        }
        router.get("status/:code") { _, context in
            let code = try context.parameters.require("code", as: Int.self)
            return Response(status: .init(code: code))
        }
        router.get("basic-auth") { _, _ in
            // A server asking for credentials, as HTTP Basic APIs do: corelibs never finishes
            // such a task unless its delegate declines the challenge.
            Response(status: .unauthorized, headers: [.wwwAuthenticate: #"Basic realm="tapedeck""#, .contentType: "text/plain"],
                     body: .init(byteBuffer: ByteBuffer(string: "who are you?")))
        }
        router.post("echo") { request, _ in
            let body = try await request.body.collect(upTo: 64 * 1_048_576)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: body))
        }
        router.get("gated/:key/:bytes") { _, context in
            // N bytes, then nothing until a test opens the gate named `key`, then N more: shows
            // whether a proxy passes a body on as it comes or holds it until the end.
            let key = try context.parameters.require("key")
            let count = try context.parameters.require("bytes", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(bytes: LoopbackServer.bytes(count)))
                await LoopbackGates.wait(key)
                try await writer.write(ByteBuffer(bytes: LoopbackServer.bytes(count)))
                try await writer.finish(nil)
            })
        }
        router.get("open-gate/:key") { _, context in
            // Opens the gate named `key` (as LoopbackGates.open): a client's request that lets
            // another one, held at /gated/KEY, finish — it can only if both are under way at once.
            LoopbackGates.open(try context.parameters.require("key"))
            return Response(status: .noContent)
        }
        router.get("cut/:bytes") { _, context in
            // Announces twice N bytes, sends N, then the connection drops: a response that broke off.
            let count = try context.parameters.require("bytes", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody(contentLength: 2 * count) { writer in
                try await writer.write(ByteBuffer(bytes: LoopbackServer.bytes(count)))
                throw CancellationError()
            })
        }
        router.get("gated-length/:key/:bytes") { _, context in
            // As /gated, with the body's length announced: shows whether a proxy passes on a
            // body of known length as it comes (all but what would complete it).
            let key = try context.parameters.require("key")
            let count = try context.parameters.require("bytes", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody(contentLength: 2 * count) { writer in
                try await writer.write(ByteBuffer(bytes: LoopbackServer.bytes(count)))
                await LoopbackGates.wait(key)
                try await writer.write(ByteBuffer(bytes: LoopbackServer.bytes(count)))
                try await writer.finish(nil)
            })
        }
        router.get("events/:key") { _, context in
            // Three server-sent events, the second and third each held until a test opens the gate
            // `KEY/1`, then `KEY/2`: the pieces of a stream arrive apart, in a known order.
            let key = try context.parameters.require("key")
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: LoopbackServer.events[0]))
                await LoopbackGates.wait("\(key)/1")
                try await writer.write(ByteBuffer(string: LoopbackServer.events[1]))
                await LoopbackGates.wait("\(key)/2")
                try await writer.write(ByteBuffer(string: LoopbackServer.events[2]))
                try await writer.finish(nil)
            })
        }
        addShopAPI(to: router)
        addSessionRoutes(to: router)
        let echoHeaders: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let fields = request.headers.map { "\"\($0.name.canonicalName)\":\"\($0.value)\"" }.joined(separator: ",")
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\(fields)}")))
        }
        router.get("headers", use: echoHeaders)
        router.post("headers", use: echoHeaders)
    }

    /// A small shop API the scenario fixtures are recorded from: a list of items, one item, the
    /// caller's profile and orders, a large gzip report, a slow search.
    static func addShopAPI(to router: Router<BasicRequestContext>) {
        router.get("api/items") { _, _ in
            reply(#"{"items":[{"id":1,"name":"tape"},{"id":2,"name":"deck"},{"id":3,"name":"reel"}],"total":3}"#)
        }
        router.get("api/items/:id") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            return reply(#"{"id":\#(id),"name":"item \#(id)","price":\#(id * 250)}"#)
        }
        router.get("api/me") { _, _ in reply(#"{"id":42,"name":"Ada","plan":"pro"}"#) }
        router.get("api/orders") { _, _ in
            reply(#"{"orders":[{"id":"A-1","total":1250},{"id":"A-2","total":990}]}"#)
        }
        router.get("api/report") { _, _ in
            var lines: [String] = []
            for day in 1...600 { lines.append(#"{"day":\#(day),"orders":\#(day * 7 % 97),"revenue":\#(day * 1_337 % 10_007)}"#) }
            let body = try Zlib.compress(Data(("[" + lines.joined(separator: ",") + "]").utf8), format: .gzip)
            return Response(status: .ok, headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                            body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("api/search") { request, _ in
            try await Task.sleep(for: .milliseconds(1_500))   // a slow endpoint, on purpose (live test peer)
            let query = request.uri.queryParameters["q"].map(String.init) ?? ""
            return reply(#"{"query":"\#(query)","results":[]}"#)
        }
    }

    /// A 200 with a JSON body.
    @Sendable private static func reply(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func json(_ request: Request) -> String {
        let query = request.uri.query ?? ""
        return "{\"method\":\"\(request.method.rawValue)\",\"path\":\"\(request.uri.path)\",\"query\":\"\(query)\"}"
    }

    /// The events `/events/KEY` sends, in order.
    public static let events = ["data: {\"token\":\"Hel\"}\n\n", "data: {\"token\":\"lo\"}\n\n", "event: done\ndata: [DONE]\n\n"]

    /// The bytes `/bytes/N` serves: a fixed pattern, so tests can check them.
    public static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }
}

/// Gates a test opens to let `/gated/KEY/N` finish its body.
public enum LoopbackGates {
    private static let gates = Mutex<[String: Gate]>([:])

    private enum Gate {
        case open
        case waiting([CheckedContinuation<Void, Never>])
    }

    /// Lets every request waiting at `key` (and every later one) go on.
    public static func open(_ key: String) {
        let waiting = gates.withLock { gates -> [CheckedContinuation<Void, Never>] in
            defer { gates[key] = .open }
            if case let .waiting(continuations)? = gates[key] { return continuations }
            return []
        }
        for continuation in waiting { continuation.resume() }
    }

    static func wait(_ key: String) async {
        await withCheckedContinuation { continuation in
            let isOpen = gates.withLock { gates -> Bool in
                switch gates[key] {
                case .open?: return true
                case let .waiting(continuations)?: gates[key] = .waiting(continuations + [continuation])
                case nil: gates[key] = .waiting([continuation])
                }
                return false
            }
            if isOpen { continuation.resume() }
        }
    }
}

public enum LoopbackError: Error {
    case didNotStart
}

private final class ResultBox: @unchecked Sendable {
    // @unchecked Sendable: written once before a semaphore signal, read after the wait.
    private var result: Result<LoopbackServer, any Error>?
    func set(_ value: Result<LoopbackServer, any Error>) { result = value }
    func get() throws -> LoopbackServer { try result!.get() }
}
