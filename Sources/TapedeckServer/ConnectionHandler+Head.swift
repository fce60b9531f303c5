import NIOHTTP1
import TapedeckCassettes

/// How an answer becomes the response head on the wire.
extension ConnectionHandler {
    /// 1xx, 204 and 304 answers carry no body (RFC 9110 §6.4.1): neither a length nor bytes.
    static func isBodyless(_ status: Int) -> Bool {
        status < 200 || status == 204 || status == 304
    }

    /// The response head NIO writes for `answer`: its fields in their order, hop-by-hop ones
    /// left out, `Content-Length` set to what is sent (none for a bodyless status, nor for a
    /// stream recorded without one: NIO then frames it chunked).
    /// `chunked: false` (an HTTP/1.0 request) sends the length even then.
    static func head(_ answer: ServerAnswer, close: Bool, isHead: Bool, chunked chunkedAllowed: Bool = true) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        // The length goes where the recording had it (the answer's bytes then match what was
        // recorded, field for field), with the body's real length; at the end when it had none.
        var placedLength = false
        let hopByHop = Self.hopByHopNames(in: answer.headers)
        // An empty body (one the writer did not capture) is not encoded: a strict decoder fails
        // on zero bytes of `br` or `gzip`.
        let dropsCoding = answer.body.isEmpty && !isHead && answer.delivery.pieces == nil
        for field in answer.headers {
            let name = field.name.lowercased()
            if dropsCoding, name == "content-encoding" { continue }
            if name == "content-length" {
                guard !placedLength, !isBodyless(answer.status), answer.delivery.framing != .unannounced || isHead else { continue }
                var length = String(answer.body.count)
                if isHead { length = field.value } else if case let .announced(bytes) = answer.delivery.framing { length = String(bytes) }
                headers.add(name: field.name, value: length)
                placedLength = true
                continue
            }
            if hopByHop.contains(name) { continue }
            headers.add(name: field.name, value: field.value)
        }
        // A stream sent in its recorded pieces without a recorded length goes chunked, as it was
        // recorded: a client that reads a known length to its end (Python's requests does) would
        // wait for the last piece before handing over the first.
        let chunked = (answer.delivery.pieces != nil || answer.delivery.framing == .unannounced) && !isHead && chunkedAllowed
        // A HEAD whose recording gave no length gets none: `0` would say the GET's body is empty.
        if !placedLength, !isBodyless(answer.status), !chunked, !isHead {
            // An answer that broke off with no length, to an HTTP/1.0 client (no chunks): one
            // byte more than is sent, so that its end comes short of the length — a body framed
            // by the connection's end would read as whole.
            let extra = answer.delivery.framing == .unannounced ? 1 : 0
            headers.add(name: "Content-Length", value: String(answer.body.count + extra))
        }
        addConnection(&headers, close: close, http10: !chunkedAllowed)
        return HTTPResponseHead(version: .http1_1, status: status(answer), headers: headers)
    }

    /// `Connection: close` when the connection closes after this answer; `Connection: keep-alive`
    /// when an HTTP/1.0 client asked to keep it (such a client takes an answer without it as the
    /// last on the connection, RFC 9112 §9.3).
    static func addConnection(_ headers: inout HTTPHeaders, close: Bool, http10: Bool) {
        if close {
            headers.add(name: "Connection", value: "close")
        } else if http10 {
            headers.add(name: "Connection", value: "keep-alive")
        }
    }

    /// Whether a request offers a protocol upgrade the way NIO's parser takes one (`Upgrade` and a
    /// `Connection` naming `upgrade`): after it the parser reads nothing more from the connection,
    /// so the answer — the offer ignored, as a server may (RFC 9110 §7.8) — is its last.
    static func offersUpgrade(_ head: HTTPRequestHead) -> Bool {
        guard head.headers.contains(name: "Upgrade") else { return false }
        return head.headers[canonicalForm: "Connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// The answer's status with its reason phrase: the recorded one when it is not the standard
    /// one and can stand in a status line (tab, space and visible bytes only: no line break can
    /// be smuggled into the head), else the standard one. A bodyless status keeps the standard
    /// phrase: NIO frames a custom 204 or 304 as if it had a body (chunked, with a last chunk a
    /// keep-alive client then reads as the start of the next answer).
    static func status(_ answer: ServerAnswer) -> HTTPResponseStatus {
        let standard = HTTPResponseStatus(statusCode: answer.status)
        let phrase = answer.reasonPhrase
        guard !phrase.isEmpty, phrase != standard.reasonPhrase, answer.status >= 100, answer.status <= 999, !isBodyless(answer.status),
              phrase.utf8.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }) else { return standard }
        return .custom(code: UInt(answer.status), reasonPhrase: phrase)
    }

    /// Fields that describe one hop, not the message: never replayed.
    static let hopByHop: Set<String> = ["connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"]

    /// The hop-by-hop fields of `fields`, lower-cased: ``hopByHop``, and those its `Connection`
    /// fields name (`Connection: X-Hop` makes `X-Hop` one, RFC 9110 §7.6.1).
    static func hopByHopNames(in fields: [HeaderField]) -> Set<String> {
        var names = hopByHop
        for field in fields where field.name.equalsIgnoringASCIICase("Connection") {
            for token in field.value.split(separator: ",") {
                let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
                let trimmed = token.drop(while: isSpace)
                let name = String(trimmed[..<(trimmed.lastIndex { !isSpace($0) }.map(trimmed.index(after:)) ?? trimmed.startIndex)]).lowercased()
                if !name.isEmpty, !names.contains(name) { names.insert(name) }
            }
        }
        return names
    }
}
