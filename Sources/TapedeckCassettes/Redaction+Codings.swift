import Foundation
import TapedeckHTTP

/// A body under its `Content-Encoding`, as redaction, the secrets check and body matching read it:
/// every coding of the list undone, the last applied first (RFC 9110 §8.4), so a request body a
/// client compressed (`Content-Encoding: gzip` on an upload) and a response coded twice
/// (`gzip, gzip`) are looked into like any other body.
enum BodyCodings {
    /// What a body is under its codings.
    enum Reading: Equatable {
        /// No coding (none named, or only `identity`): the body is its own content.
        case plain
        /// The content, decoded from `codings` (in the order they were applied).
        case decoded(Data, codings: [String])
        /// The content cannot be read: why (a coding Tapedeck does not know, bytes that do not
        /// decode, or content past ``Redactor/inspectionLimit``).
        case unreadable(String)
    }

    /// The codings a `Content-Encoding` value names, in the order they were applied, lowercased,
    /// without `identity`.
    static func codings(_ contentEncoding: String?) -> [String] {
        guard let contentEncoding else { return [] }
        return contentEncoding.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
    }

    /// `body` read under `contentEncoding`, each coding undone up to ``Redactor/inspectionLimit``.
    /// A body that cannot be decoded but is UTF-8 text is read as it stands: another tool's HAR
    /// may hold a compressed request's body decoded beside its `Content-Encoding`, and compressed
    /// bytes are not UTF-8 text.
    static func read(_ body: Data, contentEncoding: String?) -> Reading {
        let codings = codings(contentEncoding)
        guard !codings.isEmpty, !body.isEmpty else { return .plain }
        func unreadable(_ reason: String) -> Reading {
            body.count <= Redactor.inspectionLimit && String(data: body, encoding: .utf8) != nil ? .plain : .unreadable(reason)
        }
        if let unknown = codings.first(where: { !ContentCoding.decodable.contains($0) }) {
            return unreadable("its Content-Encoding '\(contentEncoding ?? "")' has the coding '\(unknown)', which Tapedeck cannot decode")
        }
        var content = body
        for coding in codings.reversed() {
            do {
                content = try ContentCoding.decode(content, contentEncoding: coding, limit: Redactor.inspectionLimit)
            } catch {
                return unreadable("it does not decode as its Content-Encoding '\(contentEncoding ?? "")' says "
                    + "(bytes that are not \(coding), or more than \(Redactor.inspectionLimit / 1_048_576) MiB once decoded)")
            }
        }
        return .decoded(content, codings: codings)
    }

    /// `content` coded again with `codings` (in the order they were applied); nil if one fails.
    static func encode(_ content: Data, codings: [String]) -> Data? {
        var body = content
        for coding in codings {
            guard let encoded = try? ContentCoding.encode(body, contentEncoding: coding) else { return nil }
            body = encoded
        }
        return body
    }

    /// The content of `body`: decoded when its codings could be undone, else the body as stored.
    static func content(of body: Data, contentEncoding: String?) -> Data {
        if case let .decoded(content, _) = read(body, contentEncoding: contentEncoding) { return content }
        return body
    }

    /// `body` with `transform` applied to its content: decoded first and coded again only when
    /// the content changed; unchanged when the content cannot be read (the secrets check names it).
    static func transforming(_ body: Data, contentEncoding: String?, _ transform: (Data) -> Data) -> Data {
        switch read(body, contentEncoding: contentEncoding) {
        case .plain:
            return transform(body)
        case let .decoded(content, codings):
            let changed = transform(content)
            guard changed != content else { return body }
            return encode(changed, codings: codings) ?? body
        case .unreadable:
            return body
        }
    }
}

extension RecordedRequest {
    /// The body's content: decoded per the request's `Content-Encoding` when it can be (a client
    /// that compressed its upload), else the body as stored.
    var content: Data? {
        body.map { BodyCodings.content(of: $0, contentEncoding: headers.value(for: "Content-Encoding")) }
    }
}
