import Foundation
import TapedeckCassettes
import TapedeckHTTP

// Content negotiation on replay: an answer recorded compressed for a client that asked for it,
// served to one that did not.

extension ReplayService {
    /// An answer whose server chose its content coding by the request's `Accept-Encoding` (it
    /// says `Vary: Accept-Encoding`) is sent decoded to a client that does not accept that coding
    /// (an explicit `identity`, a list without it, or no `Accept-Encoding` at all, as such a
    /// server answers one), as the server would have: a cassette recorded by a client asking for
    /// gzip serves a client that cannot read it. Any other answer goes as recorded.
    ///
    /// ```swift
    /// ReplayService.accepts("gzip", acceptEncoding: "br;q=1, gzip;q=0")   // false
    /// ```
    static func negotiateEncoding(_ answer: inout ServerAnswer, acceptEncoding: String?) {
        guard let value = answer.headers.first(where: { $0.name.equalsIgnoringASCIICase("Content-Encoding") })?.value,
              answer.headers.contains(where: { field in
                  field.name.equalsIgnoringASCIICase("Vary") && field.value.split(separator: ",").contains {
                      let token = $0.trimmingCharacters(in: .whitespaces).lowercased()
                      return token == "accept-encoding" || token == "*"
                  }
              }),
              // A part of a body (206) is a range of the encoded bytes: it stays as it is. So does
              // an answer without its body (a HEAD's: its decoded length is not known here).
              answer.status != 206, !answer.headers.contains(where: { $0.name.equalsIgnoringASCIICase("Content-Range") }),
              !answer.body.isEmpty
        else { return }
        // The codings in the order they were applied; only ones this server can undo, or it
        // would send encoded bytes labelled plain.
        let codings = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty, codings.allSatisfy(ContentCoding.decodable.contains),
              !codings.allSatisfy({ accepts($0, acceptEncoding: acceptEncoding) }) else { return }
        var decoded = answer.body
        if case .brokenOff = answer.delivery.cut, codings.count == 1 {
            // A body that broke off is a cut stream: what it decodes to as far as it goes, and the
            // reset after that (its announced length was of the encoded body: none now).
            decoded = ContentCoding.decodePrefix(decoded, contentEncoding: codings[0])
            answer.delivery.cut = .brokenOff(afterBytes: decoded.count)
            answer.delivery.framing = .unannounced
        } else {
            for coding in codings.reversed() {
                guard let undone = try? ContentCoding.decode(decoded, contentEncoding: coding) else { return }
                decoded = undone
            }
        }
        answer.headers.removeAll { $0.name.equalsIgnoringASCIICase("Content-Encoding") }
        // The length is the decoded body's.
        for index in answer.headers.indices where answer.headers[index].name.equalsIgnoringASCIICase("Content-Length") {
            answer.headers[index].value = String(decoded.count)
        }
        // Recorded pieces are of the encoded bytes: a gzip stream is decoded piece by piece, so
        // each decoded piece keeps its time (an event stream stays live); another coding's decoded
        // body goes at the pace's end.
        if let pieces = answer.delivery.pieces {
            if codings == ["gzip"] || codings == ["x-gzip"], let decodedPieces = Self.decodedPieces(pieces, of: answer.body, total: decoded.count) {
                answer.delivery.pieces = decodedPieces
            } else {
                answer.delivery.pieces = nil
                answer.delivery.bodyDelay = pieces.last?.at ?? .zero
            }
        }
        answer.body = decoded
    }

    /// The pieces of a gzip body's decoded bytes, each due when the encoded piece that completes
    /// it was: nil when the pieces do not cover `encoded` or decode to other than `total` bytes.
    static func decodedPieces(_ pieces: [BodyChunk], of encoded: Data, total: Int) -> [BodyChunk]? {
        guard pieces.reduce(0, { $0 + $1.bytes }) == encoded.count, let inflater = try? Inflater(format: .gzip) else { return nil }
        var decoded: [BodyChunk] = []
        var offset = encoded.startIndex
        for piece in pieces {
            guard let out = try? inflater.append(encoded[offset..<offset + piece.bytes]) else { return nil }
            offset += piece.bytes
            if !out.isEmpty { decoded.append(BodyChunk(bytes: out.count, at: piece.at)) }
        }
        guard decoded.reduce(0, { $0 + $1.bytes }) == total, let lastText = decoded.last, let end = pieces.last else { return nil }
        // Trailing pieces that decode to nothing (the gzip trailer) keep the stream's end.
        if end.at > lastText.at { decoded.append(BodyChunk(bytes: 0, at: end.at)) }
        return decoded
    }

    /// Whether `Accept-Encoding` accepts `coding` (RFC 9110 12.5.3: by name or `*`, a `q` above
    /// 0; `x-gzip` is `gzip`). No field at all accepts none here (see ``negotiateEncoding(_:acceptEncoding:)``).
    static func accepts(_ coding: String, acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        func normal(_ name: Substring) -> String {
            let name = name.trimmingCharacters(in: .whitespaces).lowercased()
            return name == "x-gzip" ? "gzip" : name
        }
        let wanted = normal(Substring(coding))
        var star: Bool?
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let name = parts.first.map(normal) else { continue }
            let q = parts.dropFirst().compactMap { parameter -> Double? in
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "q" else { return nil }
                return Double(pair[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 1
            if name == wanted { return q > 0 }
            if name == "*" { star = q > 0 }
        }
        return star ?? false
    }
}
