public import Foundation
import HTTPTypes
import TapedeckHTTP

extension ForeignCassette {
    /// What exporting a cassette gave: the other tool's file, and the interactions it could not
    /// hold, each with the reason.
    public struct Export: Sendable {
        /// The file's bytes (YAML).
        public var data: Data
        /// How many interactions it holds.
        public var written: Int
        /// Interactions left out (`entry N [METHOD URL]: why`): transport failures and responses
        /// that broke off, which these formats cannot replay.
        public var leftOut: [String]
    }

    /// The formats ``export(_:as:)`` writes.
    public static let exportFormats: [Format] = [.vcrpy, .vcr]

    /// Writes `cassette` as another tool's cassette, so a team's Python (vcrpy) or Ruby (VCR)
    /// tests replay what Tapedeck recorded:
    ///
    /// ```swift
    /// let export = try ForeignCassette.export(try CassetteFile.read(url), as: .vcrpy)
    /// try export.data.write(to: URL(fileURLWithPath: "tests/cassettes/test_login.yaml"))
    /// ```
    ///
    /// Interactions keep their order, so identical requests replay their answers in turn. A body
    /// stored decoded under a `Content-Encoding` is written decoded without that field (and with
    /// its length), as vcrpy's `decode_compressed_response` writes it. A compressed wire body is
    /// written decoded the same way for vcrpy (whose replay would hand `requests` the compressed
    /// bytes) and as it is for VCR, as VCR records one. Text bodies that are UTF-8 are written as text, others as
    /// bytes (vcrpy: `!!binary`; VCR: `base64_string`). Throws for a format it does not write.
    public static func export(_ cassette: Cassette, as format: Format) throws(CassetteError) -> Export {
        guard exportFormats.contains(format) else {
            throw CassetteError(.io, file: "", reason: "\(format.title) cassettes are read, not written",
                                hint: "export writes \(exportFormats.map(\.rawValue).joined(separator: " or "))")
        }
        var interactions: [YAMLNode] = []
        var leftOut: [String] = []
        let dates = ForeignDates()
        for interaction in cassette.interactions {
            let label = "entry \(interaction.index) [\(SecretFreeText.requestLabel(method: interaction.request.method, url: interaction.request.url.absoluteString, showingSecrets: false))]"
            if let pattern = interaction.pattern, interaction.answersByPatternOnly {
                leftOut.append("entry \(interaction.index) [\(pattern)]: a stub matching by pattern, which \(format.title) cannot hold")
                continue
            }
            guard case let .response(response) = interaction.outcome else {
                leftOut.append("\(label): a transport failure, which \(format.title) cannot replay")
                continue
            }
            guard response.interruption == nil else {
                leftOut.append("\(label): a response that broke off, which \(format.title) cannot replay")
                continue
            }
            let (headers, body) = plainBody(response, decodingWire: format == .vcrpy)
            let reason = response.statusText.isEmpty ? standardReason(response.status) : response.statusText
            switch format {
            case .vcrpy:
                interactions.append(.map([
                    ("request", .map([
                        ("body", interaction.request.body.map(vcrpyBytes) ?? .plain("null")),
                        ("headers", headerMap(interaction.request.headers)),
                        ("method", .string(interaction.request.method)),
                        ("uri", .string(interaction.request.url.absoluteString)),
                    ])),
                    ("response", .map([
                        ("body", .map([("string", vcrpyBytes(body))])),
                        ("headers", headerMap(headers)),
                        ("status", .map([("code", .plain(String(response.status))), ("message", .string(reason))])),
                    ])),
                ]))
            default:
                interactions.append(.map([
                    ("request", .map([
                        ("method", .string(interaction.request.method.lowercased())),
                        ("uri", .string(webMockForm(interaction.request.url))),
                        ("body", vcrBody(interaction.request.body ?? Data())),
                        ("headers", headerMap(interaction.request.headers)),
                    ])),
                    ("response", .map([
                        ("status", .map([("code", .plain(String(response.status))), ("message", .string(reason))])),
                        ("headers", headerMap(headers)),
                        ("body", vcrBody(body)),
                        ("http_version", .plain("null")),
                    ])),
                    ("recorded_at", .string(HTTPDate.string(from: dates.date(interaction.startedDateTime) ?? Date(timeIntervalSince1970: 0)))),
                ]))
            }
        }
        let root: YAMLNode = format == .vcrpy
            ? .map([("interactions", .list(interactions)), ("version", .plain("1"))])
            : .map([("http_interactions", .list(interactions)), ("recorded_with", .string("Tapedeck \(Cassette.currentToolVersion)"))])
        let text = (format == .vcr ? "---\n" : "") + root.yaml(indent: 0)
        return Export(data: Data(text.utf8), written: interactions.count, leftOut: leftOut)
    }

    /// The response's headers and body as the other tools replay them: a decoded body loses the
    /// `Content-Encoding` it no longer has, and its `Content-Length` becomes its own. With
    /// `decodingWire` (vcrpy, whose replay hands `requests` a body as it is stored, never decoding
    /// it), a compressed wire body is decoded too; one that does not decode stays as it is.
    private static func plainBody(_ response: RecordedResponse, decodingWire: Bool) -> ([HeaderField], Data) {
        guard let coding = response.headers.value(for: "Content-Encoding") else { return (response.headers, response.body) }
        var body = response.body
        if response.bodyForm == .wire {
            guard decodingWire, let decoded = try? ContentCoding.decode(body, contentEncoding: coding) else { return (response.headers, body) }
            body = decoded
        }
        var headers = response.headers.filter { !$0.name.equalsIgnoringASCIICase("Content-Encoding") }
        Redactor.setContentLength(&headers, body.count)
        return (headers, body)
    }

    /// A URL as WebMock hands it to VCR's matcher (WebMock 3's `normalize_uri`: its query mapper,
    /// then Addressable's normalisation): query items sorted by name; the last of a repeated name
    /// kept, but every value of a `name[]` list, the values sorted; names and values decoded
    /// (`+` in a value as a space), then escaped again but for the characters a query may hold
    /// bare (`/`, `:`, `@`, `=`, `!`, `$`, `'`, `(`, `)`, `*`, `,`, `?` and the unreserved ones):
    /// `cursor=abc%3D%3D` becomes `cursor=abc==`, `q=a;b` becomes `q=a%3Bb`, `a=b+c` becomes
    /// `a=b%20c`. VCR with WebMock compares a recorded `uri` with the request's so normalised; one
    /// written as sent would not match (`?b=1&a=2`). VCR then drops a standard port (`:80` for
    /// `http`, `:443` for `https`) through Ruby's URI, which also escapes `'` as `%27`: so does
    /// this, for such a URL.
    package static func webMockForm(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        let standardPort = components.scheme?.lowercased() == "https" ? 443 : 80
        let portDropped = components.port == nil || components.port == standardPort
        if components.port == standardPort { components.port = nil }
        guard let query = components.percentEncodedQuery, !query.isEmpty else {
            return components.url?.absoluteString ?? url.absoluteString
        }
        var pairs: [(name: [UInt8], values: [[UInt8]?])] = []
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(Substring(parts[0]), plusAsSpace: false)
            let value = parts.count > 1 ? percentDecoded(parts[1], plusAsSpace: true) : nil
            let isList = name.count > 2 && name.suffix(2) == Array("[]".utf8) && !name.dropLast(2).contains(UInt8(ascii: "["))
            if isList, let at = pairs.firstIndex(where: { $0.name == name }) {
                pairs[at].values.append(value)
            } else {
                pairs.removeAll { $0.name == name }
                pairs.append((name, [value]))
            }
        }
        pairs.sort { $0.name.lexicographicallyPrecedes($1.name) }
        var items: [String] = []
        for pair in pairs {
            let values = pair.values.count > 1 ? pair.values.sorted { ($0 ?? []).lexicographicallyPrecedes($1 ?? []) } : pair.values
            for value in values {
                items.append(webMockEscaped(pair.name, quote: portDropped) + (value.map { "=" + webMockEscaped($0, quote: portDropped) } ?? ""))
            }
        }
        components.percentEncodedQuery = items.joined(separator: "&")
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// The bytes `text` stands for: `%XX` escapes decoded (one that is not two hex digits stays
    /// as written), `+` a space when `plusAsSpace` (a form value).
    private static func percentDecoded(_ text: Substring, plusAsSpace: Bool) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var at = 0
        while at < bytes.count {
            if bytes[at] == UInt8(ascii: "%"), at + 2 < bytes.count,
               bytes[(at + 1)...(at + 2)].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
               let byte = UInt8(String(decoding: bytes[(at + 1)...(at + 2)], as: UTF8.self), radix: 16) {
                out.append(byte)
                at += 3
            } else {
                out.append(plusAsSpace && bytes[at] == UInt8(ascii: "+") ? UInt8(ascii: " ") : bytes[at])
                at += 1
            }
        }
        return out
    }

    /// Bytes escaped as WebMock and Addressable leave a query's name or value: bare if unreserved
    /// or one of `/:@=!$'()*,?`, else `%XX` in capitals (`+`, `;`, `&`, `#`, `[`, `]`, spaces,
    /// `%` and every byte past ASCII among them); `'` too when `quote`.
    private static func webMockEscaped(_ bytes: [UInt8], quote: Bool) -> String {
        let bare = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/:@=!$()*,?\(quote ? "" : "'")".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            if bare.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The status's reason phrase (RFC 9110's), which the tools write beside the code; empty for
    /// a code it does not name.
    private static func standardReason(_ status: Int) -> String {
        let known: [HTTPResponse.Status] = [
            .switchingProtocols, .earlyHints, .ok, .created, .accepted, .nonAuthoritativeInformation, .noContent,
            .resetContent, .partialContent, .multipleChoices, .movedPermanently, .found, .seeOther, .notModified,
            .temporaryRedirect, .permanentRedirect, .badRequest, .unauthorized, .forbidden, .notFound,
            .methodNotAllowed, .notAcceptable, .proxyAuthenticationRequired, .requestTimeout, .conflict, .gone, .lengthRequired,
            .preconditionFailed, .contentTooLarge, .uriTooLong, .unsupportedMediaType, .rangeNotSatisfiable, .expectationFailed,
            .misdirectedRequest, .unprocessableContent, .tooEarly, .upgradeRequired, .preconditionRequired, .tooManyRequests,
            .requestHeaderFieldsTooLarge, .unavailableForLegalReasons, .internalServerError, .notImplemented, .badGateway,
            .serviceUnavailable, .gatewayTimeout, .httpVersionNotSupported, .networkAuthenticationRequired,
        ]
        return known.first { $0.code == status }?.reasonPhrase ?? ""
    }

    /// Header fields as the tools keep them: each name once (as first spelt), with its values in order.
    /// (Names are compared ignoring case, as HTTP does: `Set-Cookie` and `set-cookie` are one
    /// key, spelt as first seen — two keys would reach the client as two fields or one.)
    private static func headerMap(_ fields: [HeaderField]) -> YAMLNode {
        var order: [String] = []
        var spelling: [String: String] = [:]
        var values: [String: [String]] = [:]
        for field in fields {
            let folded = field.name.lowercased()
            if spelling[folded] == nil {
                spelling[folded] = field.name
                order.append(folded)
            }
            values[folded, default: []].append(field.value)
        }
        return .map(order.map { (spelling[$0]!, .list(values[$0]!.map(YAMLNode.string))) })
    }

    /// vcrpy's body: text when it is UTF-8, else `!!binary`.
    private static func vcrpyBytes(_ data: Data) -> YAMLNode {
        String(data: data, encoding: .utf8).map(YAMLNode.string) ?? .binary(data)
    }

    /// VCR's body: `{encoding, string}` for UTF-8 text, `{encoding: ASCII-8BIT, base64_string}` else.
    private static func vcrBody(_ data: Data) -> YAMLNode {
        if let text = String(data: data, encoding: .utf8) {
            return .map([("encoding", .string("UTF-8")), ("string", .string(text))])
        }
        return .map([("encoding", .string("ASCII-8BIT")), ("base64_string", .string(data.base64EncodedString()))])
    }
}

/// A YAML document in block style, written by hand where Yams cannot: Yams writes no tags, and
/// vcrpy's binary bodies need `!!binary`. Every string is double-quoted with escapes, so no text
/// (a leading `*`, a `: `, a control character) can change what it reads as.
enum YAMLNode {
    case map([(String, YAMLNode)])
    case list([YAMLNode])
    /// A string, double-quoted.
    case string(String)
    /// A scalar written as it is (`null`, `200`).
    case plain(String)
    /// Bytes, as `!!binary` base64.
    case binary(Data)

    /// The node at `indent` spaces (a mapping or a list: one line per entry, ending in a line break).
    func yaml(indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        switch self {
        case let .map(pairs):
            return pairs.map { key, value in pad + Self.key(key) + ":" + value.after(indent: indent) }.joined()
        case let .list(elements):
            return elements.map { element -> String in
                switch element {
                case .map(let pairs) where !pairs.isEmpty:
                    // `- first: …` then the other keys under it.
                    let inner = element.yaml(indent: indent + 2)
                    return pad + "- " + inner.dropFirst(indent + 2)
                default:
                    return pad + "-" + element.after(indent: indent)
                }
            }.joined()
        default:
            return pad + scalar + "\n"
        }
    }

    /// The text after `key:` or `-`: the scalar on the same line, or a nested block on the next.
    private func after(indent: Int) -> String {
        switch self {
        case let .map(pairs) where pairs.isEmpty: " {}\n"
        case let .list(elements) where elements.isEmpty: " []\n"
        case .map: "\n" + yaml(indent: indent + 2)
        case .list: "\n" + yaml(indent: indent + 2)
        default: " " + scalar + "\n"
        }
    }

    private var scalar: String {
        switch self {
        case let .string(text): Self.quoted(text)
        case let .plain(text): text
        case let .binary(data): "!!binary \"" + data.base64EncodedString() + "\""
        case .map, .list: ""
        }
    }

    /// A key plain when it cannot be misread (header names, the formats' own keys), else quoted.
    /// (A key is plain only when it starts with a letter and holds letters, digits, `-` and `_`,
    /// and is no YAML 1.1 boolean or null: `-1`, `.5`, `.inf`, `on` would read as numbers or
    /// booleans — a vcrpy cassette with a number for a header name does not load.)
    private static func key(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
              text.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }),
              !["null", "true", "false", "yes", "no", "on", "off", "y", "n"].contains(text.lowercased()) else { return quoted(text) }
        return text
    }

    /// `text` in double quotes, with YAML's escapes for quotes, backslashes, control characters
    /// and everything outside printable ASCII (so the file is ASCII whatever the text).
    static func quoted(_ text: String) -> String {
        ForeignNode.quoted(text, asciiOnly: true)
    }
}
