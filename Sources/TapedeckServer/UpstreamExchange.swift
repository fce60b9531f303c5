import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import TapedeckCassettes
import TapedeckHTTP

/// One upstream exchange as it is received (``UpstreamConnections`` carries it): the head, the body as received, the arrival of each
/// piece of a streamed body, and the times; reported once, as a response or as a failure with the
/// `URLError` code URLSession would give.
final class UpstreamExchange: @unchecked Sendable {
    // @unchecked Sendable: head and body arrive on one event loop, one at a time; `reported`
    // guards the single report against a failure arriving from another thread (a cancel).
    private let request: RecordedRequest
    /// Told the head and each body piece as they arrive (nil: only the whole exchange is reported).
    let progress: DeferredReply.Progress?
    private let completion: @Sendable (LiveForwarder.Result) -> Void
    // The live path: what is recorded is when the real exchange started and how long it took.
    private let started = ContinuousClock.now
    private let startedDate = Date()
    private var headAt: ContinuousClock.Instant?
    private var head: (status: Int, reason: String, headers: HTTPHeaders)?
    /// The body as received, kept once (the recorded response takes it as it is).
    private var body = Data()
    /// When each piece of the body arrived, and its size (nil: not a streamed body, whose pieces
    /// are not kept).
    private var pieces: [(at: ContinuousClock.Instant, bytes: Int)]?
    private let reported = Atomic<Bool>(false)

    init(request: RequestSnapshot, progress: DeferredReply.Progress?, completion: @escaping @Sendable (LiveForwarder.Result) -> Void) {
        self.request = RecordedRequest(request)
        self.progress = progress
        self.completion = completion
    }

    /// Whether the response's head has arrived (a failure after it cuts a response short).
    var hasHead: Bool { head != nil }

    /// The response's head, passed on to ``progress`` at once.
    func received(head status: Int, reason: String, headers: HTTPHeaders) {
        headAt = .now
        head = (status, reason, headers)
        pieces = BodyChunk.collectsPieces(contentType: headers.first(name: "Content-Type"), contentLength: headers.first(name: "Content-Length")) ? [] : nil
        if let progress {
            var fields = HTTPFieldsBuilder()
            for field in headers { fields.append(field.name, field.value) }
            progress(.head(ResponseHead(status: status, headerFields: fields.fields), reason: reason))
        }
    }

    /// A piece of the body: kept, and passed on to ``progress`` with `taken`, which the consumer
    /// calls once the piece has left it. Without a ``progress`` `taken` is not called: the caller
    /// reads on at once.
    func received(body buffer: ByteBuffer, taken: @escaping @Sendable () -> Void) {
        let piece = Data(buffer.readableBytesView)
        body.append(piece)
        pieces?.append((.now, piece.count))
        progress?(.body(piece, taken: taken))
    }

    /// The response ended: reported as recorded (a response without a head is a lost connection).
    func finished() {
        guard head != nil else { return fail(UpstreamFailure.lost) }
        report(response(), interruption: nil)
    }

    /// The response as received so far (its head must have come), with the timings to now.
    private func response() -> (RecordedResponse, ExchangeTimings) {
        let end = ContinuousClock.now
        let head = head!
        let headers = head.headers.map { HeaderField($0.name, $0.value) }
        let headAt = headAt ?? end
        let chunks = pieces.flatMap { pieces in
            BodyChunk.recorded(pieces.map { (headAt.duration(to: $0.at), $0.bytes) }, contentType: head.headers.first(name: "Content-Type"))
        }
        let response = RecordedResponse(status: head.status, statusText: head.reason, headers: headers, body: body, bodyForm: .wire, chunks: chunks)
        body = Data()   // the response holds it now; the exchange no longer needs a copy
        return (response, ExchangeTimings(wait: started.duration(to: headAt), receive: headAt.duration(to: end)))
    }

    private func report(_ received: (RecordedResponse, ExchangeTimings), interruption: RecordedFailure?) {
        var (response, timings) = received
        response.interruption = interruption
        report(.response(response), timings)
    }

    /// Reports `error` as a recorded failure (once; a later success or failure is ignored). After
    /// the head it is the response's interruption: the head and the bytes that came are kept.
    func fail(_ error: any Error) {
        let (code, message) = Self.urlError(for: error)
        let failure = RecordedFailure(code: code, message: "URLError \(code): \(message)")
        // (A cancel may come from another thread: it reads nothing of the response, and a
        // cancelled exchange is not recorded anyway.)
        let cancelled = (error as? UpstreamFailure)?.code == .cancelled
        if !cancelled, head != nil, !reported.load(ordering: .acquiring) {
            return report(response(), interruption: failure)
        }
        report(.failure(failure), ExchangeTimings(wait: started.duration(to: .now)))
    }

    private func report(_ outcome: Interaction.Outcome, _ timings: ExchangeTimings) {
        guard !reported.exchange(true, ordering: .acquiringAndReleasing) else { return }
        completion(LiveForwarder.Result(request: request, outcome: outcome, timings: timings,
                                        startedDateTime: HTTPDate.iso8601(from: startedDate)))
    }

    /// The `URLError` code (and a description) URLSession reports for what happened.
    static func urlError(for error: any Error) -> (Int, String) {
        if let failure = error as? UpstreamFailure {
            return (failure.code.rawValue, failure.message)
        }
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            let text = "\(error)"
            if text.contains("failedToValidateHostname") {
                return (URLError.serverCertificateUntrusted.rawValue, "the upstream's TLS certificate does not name the host the "
                    + "proxy connected to (\(text)); give --upstream the name the certificate is for")
            }
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                return (URLError.serverCertificateUntrusted.rawValue, "the upstream's TLS certificate is not trusted (\(text)); "
                    + "for a server with its own certificate authority, pass it with --upstream-ca FILE.pem")
            }
            return (URLError.secureConnectionFailed.rawValue, "the TLS connection to the upstream failed (\(text))")
        }
        if let connection = error as? NIOConnectionError {
            if connection.dnsAError != nil || connection.dnsAAAAError != nil, connection.connectionErrors.isEmpty {
                return (URLError.cannotFindHost.rawValue, "the upstream host was not found")
            }
            // Each address tried, in the system's words ("Connection refused"), not NIO's error dump.
            let attempts = connection.connectionErrors.map { attempt -> String in
                let address = attempt.target.ipAddress.map { ip in
                    (ip.contains(":") ? "[\(ip)]" : ip) + (attempt.target.port.map { ":\($0)" } ?? "")
                } ?? "\(attempt.target)"
                guard let io = attempt.error as? IOError else { return "\(address): \(attempt.error)" }
                return "\(address): \(String(cString: strerror(io.errnoCode)))"
            }
            let refused = !connection.connectionErrors.isEmpty
                && connection.connectionErrors.allSatisfy { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
            return (URLError.cannotConnectToHost.rawValue, (refused ? "the upstream refused the connection" : "could not connect to the upstream")
                + " (\(attempts.joined(separator: "; ")))")
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
        if let parser = error as? HTTPParserError, case .invalidEOFState = parser {
            // The upstream closed cleanly before the body its head announced was complete.
            return (URLError.networkConnectionLost.rawValue, UpstreamFailure.lost.message)
        }
        if let parser = error as? HTTPParserError {
            // The parser's word for it: an answer it refuses is HTTP it cannot trust (both a
            // Content-Length and chunked framing, say), not necessarily something else.
            return (URLError.badServerResponse.rawValue, "the upstream's answer is not valid HTTP/1.1 (the parser says: \(parser))")
        }
        return (URLError.networkConnectionLost.rawValue, "\(error)")
    }
}

/// What went wrong with an upstream exchange, as the `URLError` code URLSession would report.
struct UpstreamFailure: Error {
    /// The code recorded.
    let code: URLError.Code
    /// Why, for the failure entry and the 502 answer.
    let message: String

    static let cancelled = UpstreamFailure(code: .cancelled, message: "cancelled")
    static let lost = UpstreamFailure(code: .networkConnectionLost, message: "the upstream closed the connection before the whole response")
    static let timedOut = UpstreamFailure(code: .timedOut, message: "the upstream sent nothing for longer than the upstream timeout")
    static let deadline = UpstreamFailure(code: .timedOut, message: "the upstream exchange took longer than the resource timeout")
}
