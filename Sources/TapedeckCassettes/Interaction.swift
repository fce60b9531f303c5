public import Foundation
public import TapedeckHTTP

/// One header field as recorded: name spelling and order kept.
public struct HeaderField: Hashable, Sendable {
    /// The name, spelled as recorded.
    public var name: String
    /// The value.
    public var value: String

    /// A field `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension [HeaderField] {
    /// The first value of `name` (case-insensitive).
    public func value(for name: String) -> String? {
        first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

/// A recorded request.
public struct RecordedRequest: Hashable, Sendable {
    /// The method, as recorded (`GET`, `POST`, …).
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// The header fields, in order.
    public var headers: [HeaderField]
    /// The body (nil: none).
    public var body: Data?

    /// A request from its parts.
    public init(method: String, url: URL, headers: [HeaderField] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// From what the simulated network hands a responder.
    public init(_ snapshot: RequestSnapshot) {
        self.init(
            method: snapshot.method.rawValue, url: snapshot.url,
            headers: snapshot.headerFields.map { HeaderField($0.name.rawName, $0.value) }, body: snapshot.body)
    }
}

/// A recorded response.
///
/// A response that broke off — the server reset the connection or went silent after its head —
/// keeps the bytes that arrived and how it ended:
///
/// ```swift
/// var cut = RecordedResponse(status: 200, headers: [HeaderField("Content-Length", "1000")], body: Data(count: 400))
/// cut.interruption = RecordedFailure(code: URLError.networkConnectionLost.rawValue, message: "reset by peer")
/// ```
public struct RecordedResponse: Hashable, Sendable {
    /// The status code.
    public var status: Int
    /// The reason phrase as recorded (often empty: URLSession does not report it).
    public var statusText: String
    /// The header fields, in order.
    public var headers: [HeaderField]
    /// The body, in ``bodyForm``.
    public var body: Data
    /// Whether `body` holds the wire bytes (still encoded per Content-Encoding) or decoded bytes.
    public var bodyForm: ResponsePlan.BodyForm
    /// How a streamed body arrived (server-sent events, JSON lines): its pieces and when each came
    /// (HAR `_chunks`). Replay hands the body over in the same pieces at the same pace. Nil for
    /// other bodies, whose pieces are only how the network happened to cut them.
    public var chunks: [BodyChunk]?
    /// How the response broke off, when it did: ``body`` holds what arrived before the
    /// connection failed, and replay ends the exchange with this failure after those bytes — the
    /// client sees the head, the partial body, then the error, as it did live. Nil for a
    /// response that completed. (HAR: the entry's `_error` beside a real status.)
    public var interruption: RecordedFailure?

    /// A response from its parts.
    public init(status: Int, statusText: String = "", headers: [HeaderField] = [], body: Data = Data(), bodyForm: ResponsePlan.BodyForm = .wire,
                chunks: [BodyChunk]? = nil) {
        self.status = status
        self.statusText = statusText
        self.headers = headers
        self.body = body
        self.bodyForm = bodyForm
        self.chunks = chunks
    }
}

/// One piece of a streamed response body as it arrived when recorded.
///
/// ```swift
/// let first = BodyChunk(bytes: 16, at: .milliseconds(120))   // 16 bytes, 120 ms after the head
/// ```
public struct BodyChunk: Hashable, Sendable {
    /// Its size, in bytes of the body as stored.
    public var bytes: Int
    /// When it had arrived, from the response head.
    public var at: Duration

    /// A piece of `bytes` bytes that had arrived `at` after the head.
    public init(bytes: Int, at: Duration) {
        self.bytes = bytes
        self.at = at
    }

    /// Whether a body of this `Content-Type` is a stream whose pieces mean something to its
    /// client (server-sent events, JSON lines and sequences, multipart streams), so recording
    /// keeps them.
    public static func isStreamed(contentType: String?) -> Bool {
        guard let contentType else { return false }
        return streamedTypes.contains(HARBodyText.essence(contentType))
    }

    private static let streamedTypes: Set<String> = [
        "text/event-stream", "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines",
        "application/json-seq", "application/stream+json", "application/x-json-stream", "multipart/x-mixed-replace",
    ]

    /// Whether recording notes when each piece of a body with these header values arrives: a
    /// stream type's (``isStreamed(contentType:)``), and any body whose length the head does not
    /// give (chunked, or ended by the connection: progress output, a build log), whose pace may
    /// be the point. ``recorded(_:contentType:)`` decides what is kept.
    public static func collectsPieces(contentType: String?, contentLength: String?) -> Bool {
        contentLength == nil || isStreamed(contentType: contentType)
    }

    /// Pieces arriving closer than this to the start of the piece before are one piece, for a
    /// body that is not of a stream type.
    static let mergeWindow = Duration.milliseconds(10)
    /// A body not of a stream type keeps its pieces only if two of them came at least this far apart.
    static let meaningfulGap = Duration.milliseconds(100)

    /// The pieces as they came — (arrival, size) from the head — when the body was a stream of
    /// more than one piece; nil otherwise. A body of another type (collected because it had no
    /// length) keeps them only when they came apart — two at least 100 ms apart, as a progress
    /// stream's do and a busy server's chunked JSON does not — with the pieces that came within
    /// 10 ms of the start of the piece they join taken as one.
    public static func recorded(_ pieces: [(at: Duration, bytes: Int)], contentType: String?) -> [BodyChunk]? {
        let pieces = pieces.filter { $0.bytes > 0 }.map { BodyChunk(bytes: $0.bytes, at: max(.zero, $0.at)) }
        guard pieces.count > 1 else { return nil }
        if isStreamed(contentType: contentType) { return pieces }
        var merged: [BodyChunk] = []
        for piece in pieces {
            if let last = merged.last, piece.at - last.at < mergeWindow {
                merged[merged.count - 1].bytes += piece.bytes
            } else {
                merged.append(piece)
            }
        }
        guard merged.count > 1, zip(merged, merged.dropFirst()).contains(where: { $1.at - $0.at >= meaningfulGap }) else { return nil }
        return merged
    }
}

/// A transport error recorded instead of a response (a refused connection, a timeout).
public struct RecordedFailure: Hashable, Sendable {
    /// The `URLError` code (or the code in ``domain``).
    public var code: Int
    /// The error domain (`NSURLErrorDomain` unless recorded otherwise).
    public var domain: String
    /// The error's text as recorded (a tool's own message is kept).
    public var message: String

    /// A failure with `code` in `domain`.
    public init(code: Int, domain: String = NSURLErrorDomain, message: String) {
        self.code = code
        self.domain = domain
        self.message = message
    }
}

/// One exchange of a cassette: a request and what came back.
public struct Interaction: Hashable, Sendable {
    /// What came back.
    public enum Outcome: Hashable, Sendable {
        /// A response.
        case response(RecordedResponse)
        /// A transport error instead of a response.
        case failure(RecordedFailure)
    }

    /// Position in the recording.
    public var index: Int
    /// When it started, as the recorder wrote it (ISO 8601).
    public var startedDateTime: String
    /// The request.
    public var request: RecordedRequest
    /// What came back.
    public var outcome: Outcome
    /// Phase durations; nil when the recording has none.
    public var timings: ExchangeTimings?
    /// Set for another tool's stub that matches requests by a pattern (WireMock's
    /// `urlPathPattern`, Hoverfly's `glob`), read as it is: it answers every request the pattern
    /// matches, as often as asked, when no recorded interaction matches, and ``request`` only
    /// shows it. Nil for a recorded exchange. HAR cannot hold one: writing a cassette leaves such
    /// interactions out, but for a stub that names its request (``StubPattern/namesItsRequest``),
    /// which is written as that request.
    public var pattern: StubPattern?

    /// Whether it answers by a pattern alone, with no request a file could hold in its place
    /// (writing a cassette leaves it out).
    public var answersByPatternOnly: Bool {
        pattern.map { !$0.namesItsRequest } ?? false
    }

    /// An interaction from its parts.
    public init(index: Int, startedDateTime: String = "1970-01-01T00:00:00.000Z", request: RecordedRequest, outcome: Outcome, timings: ExchangeTimings? = nil) {
        self.index = index
        self.startedDateTime = startedDateTime
        self.request = request
        self.outcome = outcome
        self.timings = timings
    }

    /// The response, if the outcome was one.
    public var response: RecordedResponse? {
        if case let .response(response) = outcome { return response }
        return nil
    }
}

/// An entry of a HAR file that could not become an interaction (a `data:` URL, a request with no
/// method, a body that does not decode): left out of the cassette, with the reason.
public struct SkippedEntry: Hashable, Sendable, CustomStringConvertible {
    /// Its position among the file's entries (from 0).
    public var position: Int
    /// The request's method and URL as the file gives them ("" when unreadable).
    public var method: String
    /// The URL as the file gives it ("" when unreadable).
    public var url: String
    /// What is wrong, as strict loading would report it.
    public var error: CassetteError

    /// A skipped entry and why.
    public init(position: Int, method: String, url: String, error: CassetteError) {
        self.position = position
        self.method = method
        self.url = url
        self.error = error
    }

    /// `skipped <place> [<method> <url>]: <reason>`, with the URL's secret query items (and a
    /// password in it) as REDACTED: the line goes to terminals and CI logs.
    public var description: String { description(showingSecrets: false) }

    /// The line of ``description``, with the URL as the file gives it when `showingSecrets`.
    public func description(showingSecrets: Bool) -> String {
        let request = SecretFreeText.requestLabel(method: method, url: url, showingSecrets: showingSecrets)
        let place = error.place.isEmpty ? "entry \(position)" : error.place
        return "skipped \(place)\(request.isEmpty ? "" : " [\(request)]"): \(error.reason)"
    }
}

/// Something the reader had to assume about an entry it did read: the entry replays, but a part
/// of it rests on a guess (a body text's character set) or was left out (request params it could
/// not turn into a body). The CLI prints these as warnings, beside the skipped entries.
public struct LoadNote: Hashable, Sendable, CustomStringConvertible {
    /// The entry's position among the file's entries (from 0).
    public var position: Int
    /// The field concerned, inside the entry (`response.content.text`).
    public var field: String
    /// The request's method and URL as the file gives them.
    public var method: String
    /// The URL as the file gives it.
    public var url: String
    /// What was assumed or left out, and what to check.
    public var text: String

    /// A note about entry `position`'s `field`.
    public init(position: Int, field: String, method: String, url: String, text: String) {
        self.position = position
        self.field = field
        self.method = method
        self.url = url
        self.text = text
    }

    /// `note entry <n> (<field>) [<method> <url>]: <text>`, with the URL's secret query items
    /// (and a password in it) as REDACTED.
    public var description: String { description(showingSecrets: false) }

    /// The line of ``description``, with the URL as the file gives it when `showingSecrets`.
    public func description(showingSecrets: Bool) -> String {
        let request = SecretFreeText.requestLabel(method: method, url: url, showingSecrets: showingSecrets)
        return "note entry \(position) (\(field))\(request.isEmpty ? "" : " [\(request)]"): \(text)"
    }
}

/// A cassette: the interactions of a recording, in order.
///
/// ```swift
/// var cassette = try CassetteFile.read(URL(fileURLWithPath: "fixtures/cassettes/shop.har.gz"))
/// cassette.interactions.removeAll { $0.response?.status == 404 }
/// try CassetteFile.write(cassette, to: URL(fileURLWithPath: "shop-without-404.har.gz"))
/// ```
public struct Cassette: Hashable, Sendable {
    /// The interactions, in recording order.
    public var interactions: [Interaction]
    /// Entries of the file that were left out (empty for every cassette Tapedeck wrote).
    public var skipped: [SkippedEntry] = []
    /// What the reader assumed about entries it read (empty for every cassette Tapedeck wrote).
    public var notes: [LoadNote] = []
    /// The other tool's format the cassette was read from, converted in memory
    /// (``CassetteFile/read(_:strict:foreign:)`` with `.convert`); nil for a HAR file.
    public var foreignFormat: ForeignCassette.Format?
    /// What the reader said about another tool's file as a whole (`3 requests have no saved
    /// example response…`); empty for a HAR file.
    public var remarks: [String] = []
    /// Who wrote it (HAR `creator`).
    public var creator: String
    /// The writer's version (HAR `creator.version`).
    public var creatorVersion: String

    /// A cassette of `interactions`, written by `creator`.
    public init(interactions: [Interaction] = [], creator: String = "tapedeck", creatorVersion: String = Cassette.currentToolVersion) {
        self.interactions = interactions
        self.creator = creator
        self.creatorVersion = creatorVersion
    }

    /// The newest version of Tapedeck's HAR additions this build reads. It writes 2 when an entry
    /// keeps a compressed body in `_wire` (its `text` then being the decoded body) or marks a
    /// request body `encoding: base64`, which a build that reads only 1 would misread; else 1.
    public static let formatVersion = 2
    /// The version this build writes as `creator.version`.
    public static let currentToolVersion = "0.1.0"
}
