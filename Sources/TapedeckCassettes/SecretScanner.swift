import Foundation
import TapedeckHTTP

/// Looks through a cassette for anything that still looks like a secret.
public enum SecretScanner {
    /// Something that looks like a secret.
    public struct Finding: Hashable, Sendable, CustomStringConvertible {
        /// The entry's number, as `tapedeck cassette inspect` lists it (``Interaction/index``).
        public var entry: Int
        /// Where in the entry (a header, a query item, a JSON path).
        public var place: String
        /// Why it looks like a secret.
        public var reason: String

        /// `entry N (place): reason`.
        public var description: String { "entry \(entry) (\(place)): \(reason)" }
    }

    /// Words that make a header's name suggest a credential, beside those that make it read like
    /// a secret (``Redactor/secretLookingNames``): `X-Auth`, `X-Authorization`, `X-Cookie`.
    private static let suspiciousWords: Set<String> = ["auth", "authorization", "cookie"]

    /// Whether a header is worth a warning for its name alone: the name suggests a credential
    /// and the value could be one (not a short word or number such as `True`, `1`, `none`). A
    /// name that only mentions a session (`X-Session`) needs a value as long as an id (16 bytes):
    /// `Arr-Disable-Session-Affinity: True` is a switch.
    private static func nameSuggestsSecret(_ name: String, value: String) -> Bool {
        guard value.utf8.count >= 8 else { return false }
        if Redactor.readsLikeSecret(name) { return true }
        let words = Redactor.words(of: name)
        if words.contains(where: { suspiciousWords.contains($0) }) { return true }
        return words.contains("session") && value.utf8.count >= 16
    }

    /// Everything in `cassette` that `rules` (or the defaults) would redact and is stored unredacted,
    /// headers whose names suggest a secret, and any header, query item or body whose value is
    /// shaped like a token.
    public static func scan(_ cassette: Cassette, rules: Redactor = Redactor()) -> [Finding] {
        var findings: [Finding] = []
        let defaults = Redactor.standard
        for interaction in cassette.interactions {
            func report(_ place: String, _ reason: String) {
                findings.append(Finding(entry: interaction.index, place: place, reason: reason))
            }
            func checkHeaders(_ headers: [HeaderField], _ side: String) {
                for field in headers where !Redactor.looksRedacted(field.value) && !field.value.isEmpty {
                    let name = field.name.lowercased()
                    // Cookies are redacted value by value: names and attributes stay.
                    if name == "cookie" || name == "set-cookie",
                       Redactor.redactCookies(field.value, setCookie: name == "set-cookie", kept: rules.keptCookies) == field.value
                        || cookieValuesLookRedacted(field.value, setCookie: name == "set-cookie") { continue }
                    // A `Link` field's targets are URLs as a `Location` is.
                    let links = name == "link" ? Self.linkTargets(field.value) : Redactor.urlHeaders.contains(name) ? [field.value] : []
                    if let item = links.lazy.compactMap({ secretQueryItem(inLink: $0, rules: rules) }).first {
                        report("\(side).headers.\(field.name)", "the URL's query item '\(item)' is a credential stored unredacted")
                    } else if links.contains(where: Self.holdsPassword) {
                        report("\(side).headers.\(field.name)", "the URL's user part holds a password stored unredacted")
                    } else if links.contains(where: Self.holdsTokenUser) {
                        report("\(side).headers.\(field.name)", "the URL's user part looks like a token stored unredacted")
                    } else if rules.isSecretHeader(name) || defaults.isSecretHeader(name) {
                        report("\(side).headers.\(field.name)", "a credential header is stored unredacted")
                    } else if !Redactor.notSecretHeaders.contains(name), nameSuggestsSecret(name, value: field.value) {
                        report("\(side).headers.\(field.name)", "the header's name suggests a secret")
                    } else if !Redactor.shapeExemptHeaders.contains(name), let kind = secretShape(Self.withoutPositions(field.value, links: links)) {
                        // Validators and trace ids stay, as redaction leaves them.
                        report("\(side).headers.\(field.name)", "the value looks like \(kind)")
                    }
                }
            }
            checkHeaders(interaction.request.headers, "request")
            if holdsPassword(interaction.request.url.absoluteString) {
                report("request.url", "the URL's user part holds a password stored unredacted")
            } else if holdsTokenUser(interaction.request.url.absoluteString) {
                report("request.url", "the URL's user part looks like a token stored unredacted")
            }
            if let kind = secretShape(interaction.request.url.path) {
                report("request.url path", "a path segment looks like \(kind) (redaction leaves paths as they are: edit the entry)")
            }
            for item in URLComponents(url: interaction.request.url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
                guard let value = item.value, !Redactor.looksRedacted(value), !value.isEmpty else { continue }
                if rules.isSecretQueryName(item.name) || defaults.isSecretQueryName(item.name) {
                    report("request.url query '\(item.name)'", "a credential query item is stored unredacted")
                } else if Redactor.looksLikeLink(value), let inner = secretQueryItem(inLink: value, rules: rules) {
                    report("request.url query '\(item.name)'", "the link it holds has the credential query item '\(inner)' unredacted")
                } else if !Redactor.namesPosition(item.name), let kind = secretShape(value) {
                    // A page cursor stays, as redaction leaves it (replay tells pages apart by it).
                    report("request.url query '\(item.name)'", "the value looks like \(kind)")
                }
            }
            // A compressed upload is checked decoded (``unreadBodies(in:)`` names one that is not).
            let requestCoding = interaction.request.headers.value(for: "Content-Encoding")
            var requestBody = interaction.request.body, requestPlace = "request.body"
            if let body = requestBody, case let .decoded(content, _) = BodyCodings.read(body, contentEncoding: requestCoding) {
                requestBody = content
                requestPlace = "request.body (decoded \(requestCoding ?? ""))"
            }
            var bodies: [(String, Data)] = requestBody.map { [(requestPlace, $0)] } ?? []
            // A form's credential fields, in either direction (an OAuth 1.0a token answer is a form).
            func checkForm(_ body: Data?, contentType: String?, _ place: String) {
                // (A JSON document under the form type is read as JSON, below, as redaction reads it.)
                guard let body, Redactor.isForm(contentType), !Redactor.looksLikeJSON(body), let text = String(data: body, encoding: .utf8) else { return }
                let fields = Redactor.formFields(text)
                let kind = FormKind(names: fields.map(\.name))
                for field in fields {
                    guard let value = field.value, !Redactor.looksRedacted(String(value)), !value.isEmpty else { continue }
                    if rules.isSecretFormName(field.name, in: kind) || defaults.isSecretFormName(field.name, in: kind) {
                        report("\(place) form field '\(field.name)'", "a credential form field is stored unredacted")
                    }
                }
            }
            checkForm(requestBody, contentType: interaction.request.headers.value(for: "Content-Type"), "request.body")
            if let body = requestBody,
               let parts = Redactor.multipartParts(body, contentType: interaction.request.headers.value(for: "Content-Type")), !parts.isEmpty {
                // Read part by part, as redaction does: an uploaded file is not looked into.
                bodies.removeAll { $0.0 == requestPlace }
                let kind = FormKind(names: parts.compactMap { $0.isFile ? nil : $0.name })
                for part in parts {
                    let content = body[part.content]
                    if !part.isFile, let name = part.name, !content.isEmpty, !Redactor.looksRedacted(String(decoding: content, as: UTF8.self)),
                       rules.isSecretFormName(name, in: kind) || defaults.isSecretFormName(name, in: kind) {
                        report("request.body multipart field '\(name)'", "a credential form field is stored unredacted")
                    }
                    if !part.isFile {
                        bodies.append(("request.body part '\(part.name ?? "")'", Data(content)))
                    }
                }
            }
            if let response = interaction.response {
                checkHeaders(response.headers, "response")
                let coding = response.headers.value(for: "Content-Encoding")
                if response.interruption != nil {
                    // Cut short: as far as it decodes, to the last whole character, and — JSON
                    // that stops mid-way does not parse — looked at without parsing.
                    // (One that does not decode at all is named by unreadBodies(in:).)
                    let content = Redactor.cutContent(of: response, limit: Redactor.inspectionLimit)?.content ?? Data()
                    let text = Redactor.splitCutCharacter(content).text
                    if (try? JSONSerialization.jsonObject(with: text, options: [.fragmentsAllowed])) == nil {
                        let fields = rules.redactCutJSON(text).fields + defaults.redactCutJSON(text).fields
                        for (position, key) in fields.enumerated() where !fields[..<position].contains(key) {
                            report("response.body (cut short) field '\(key)'", "a credential field is stored unredacted")
                        }
                    }
                    bodies.append(("response.body (cut short)", text))
                } else if response.bodyForm == .decoded {
                    bodies.append(("response.body", response.body))
                } else {
                    switch BodyCodings.read(response.body, contentEncoding: coding) {
                    case .plain: bodies.append(("response.body", response.body))
                    case let .decoded(plain, _): bodies.append(("response.body (decoded \(coding ?? ""))", plain))
                    case .unreadable: break   // named by unreadBodies(in:)
                    }
                }
            }
            // (Not a body cut short: redaction reads only JSON there.)
            if let response = interaction.response, let (place, body) = bodies.last, place.hasPrefix("response.body"), !place.contains("cut short") {
                checkForm(body, contentType: response.headers.value(for: "Content-Type"), place)
            }
            for (place, body) in bodies {
                // As redaction does: a body past the inspection limit is not parsed.
                guard body.count <= Redactor.inspectionLimit, let text = String(data: body, encoding: .utf8) else { continue }
                // The JSON documents in the body: itself, a JSONP call's argument, or each line of
                // a stream (NDJSON, an event stream's `data:` lines), as redaction reads them.
                var positions: [String] = []
                for object in jsonDocuments(in: body) {
                    for key in secretFields(in: object, isSecret: { rules.isSecretJSONField($0, value: $1) || defaults.isSecretJSONField($0, value: $1) }) {
                        report("\(place) field '\(key)'", "a credential field is stored unredacted")
                    }
                    for item in secretLinkItems(in: object, rules: rules) {
                        report("\(place) link", "a link's \(item) is a credential stored unredacted")
                    }
                    positions += positionValues(in: object)
                }
                // A page cursor (under `cursor`, `next`, `page_token`…, or a link's such item)
                // stays, as redaction leaves it: it is not looked at for a shape.
                var looked = text
                for value in positions where value.utf8.count >= 16 { looked = looked.replacingOccurrences(of: value, with: "") }
                if let kind = secretShape(looked) {
                    report(place, "contains what looks like \(kind)")
                }
            }
        }
        return findings
    }

    /// The bodies ``scan(_:rules:)`` could not look into, each with why: a request or response
    /// body under a `Content-Encoding` Tapedeck cannot decode (`compress`, a coding of its own, a
    /// list holding one), or whose bytes do not decode as it says. Such a body may hold secrets:
    /// the check cannot say it holds none.
    public static func unreadBodies(in cassette: Cassette) -> [Finding] {
        var unread: [Finding] = []
        for interaction in cassette.interactions {
            if let body = interaction.request.body,
               case let .unreadable(reason) = BodyCodings.read(body, contentEncoding: interaction.request.headers.value(for: "Content-Encoding")) {
                unread.append(Finding(entry: interaction.index, place: "request.body", reason: "not checked for secrets: \(reason)"))
            }
            guard let response = interaction.response, response.bodyForm == .wire else { continue }
            let coding = response.headers.value(for: "Content-Encoding")
            if response.interruption != nil, ContentCoding.isDecodable(coding) {
                // A body that broke off is read as far as it decodes (scan(_:rules:) looks at
                // that); one whose stored bytes decode to nothing (a zstd block cut before its
                // end) was not read at all.
                if !response.body.isEmpty, ContentCoding.decodePrefix(response.body, contentEncoding: coding, limit: 1).isEmpty {
                    unread.append(Finding(entry: interaction.index, place: "response.body",
                                          reason: "not checked for secrets: the body broke off before any of it decodes as '\(coding ?? "")'"))
                }
            } else if case let .unreadable(reason) = BodyCodings.read(response.body, contentEncoding: coding) {
                unread.append(Finding(entry: interaction.index, place: "response.body", reason: "not checked for secrets: \(reason)"))
            }
        }
        return unread
    }

    private static func secretFields(in value: Any, isSecret: (String, Any?) -> Bool) -> [String] {
        if let dictionary = value as? [String: Any] {
            return dictionary.keys.sorted().flatMap { key -> [String] in
                let inner = dictionary[key]!
                if let string = inner as? String, isSecret(key, string), !Redactor.looksRedacted(string), !string.isEmpty {
                    return [key]
                }
                if isSecret(key, nil), let list = inner as? [Any], holdsText(list, isSecret: { isSecret(key, $0) }) {
                    return [key]   // a list of the field's values (`"Set-Cookie": ["a=1"]`)
                }
                return secretFields(in: inner, isSecret: isSecret)
            }
        }
        if let array = value as? [Any] {
            return array.flatMap { secretFields(in: $0, isSecret: isSecret) }
        }
        return []
    }

    /// The JSON documents a body holds, parsed, as redaction reads them: the body itself when it
    /// parses; else the document after an anti-hijacking prefix, or a JSONP call's argument
    /// (`cb({…});`); else each line that starts as JSON and parses (NDJSON, an event stream's
    /// `data:` lines, a JSON text sequence's records).
    static func jsonDocuments(in body: Data) -> [Any] {
        func parsed(_ data: Data) -> Any? { try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) }
        if let whole = parsed(body) { return [whole] }
        if let prefix = Redactor.antiHijackingPrefix(body) { return parsed(Data(body.dropFirst(prefix))).map { [$0] } ?? [] }
        if let argument = Redactor.jsonpArgument(body) { return parsed(Data(body[argument])).map { [$0] } ?? [] }
        // Lines only where one starts as JSON, and only those parsed, as redaction reads them (a
        // page of text, or an upload of a log, is not parsed line by line).
        guard Redactor.hasJSONLine(body) else { return [] }
        return body.split(separator: 0x0A).compactMap { line in
            let content = line.starts(with: Data("data:".utf8)) ? Data(line.dropFirst(5)) : line.first == 0x1E ? Data(line.dropFirst()) : Data(line)
            return Redactor.looksLikeJSON(content) ? parsed(content) : nil
        }
    }

    /// The values a replay needs to tell pages apart: strings under a name that says it is a
    /// position in a list (``Redactor/namesPosition(_:)``), and such query items of links.
    static func positionValues(in value: Any) -> [String] {
        if let dictionary = value as? [String: Any] {
            return dictionary.flatMap { key, inner -> [String] in
                if let text = inner as? String {
                    var found = Redactor.namesPosition(key) ? [text] : []
                    if Redactor.looksLikeLink(text), let items = URLComponents(string: text)?.queryItems {
                        found += items.filter { Redactor.namesPosition($0.name) }.compactMap(\.value)
                    }
                    return found
                }
                return positionValues(in: inner)
            }
        }
        if let array = value as? [Any] { return array.flatMap(positionValues(in:)) }
        return []
    }

    /// Whether every cookie of a `Cookie` (or `Set-Cookie`) value is a placeholder (``Redactor.looksRedacted(_:)``).
    static func cookieValuesLookRedacted(_ value: String, setCookie: Bool) -> Bool {
        let cookies = setCookie ? [value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""] : value.split(separator: ";").map(String.init)
        let values = cookies.compactMap { pair -> String? in
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            return String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        }
        return !values.isEmpty && values.allSatisfy { $0.isEmpty || Redactor.looksRedacted($0) }
    }

    /// Whether a URL's user part holds a password other than the placeholder (`http://bob:…@host/`).
    /// Whether the user name of `url` is a token (``Redactor/isTokenUser(_:)``) not yet redacted.
    static func holdsTokenUser(_ url: String) -> Bool {
        guard url.utf8.contains(UInt8(ascii: "@")), let user = URLComponents(string: url)?.percentEncodedUser else { return false }
        return !Redactor.looksRedacted(user) && Redactor.isTokenUser(user)
    }

    /// `value` without the values of position-named query items (a page cursor) of its `links`.
    static func withoutPositions(_ value: String, links: [String]) -> String {
        var result = value
        for link in links {
            for item in URLComponents(string: link)?.percentEncodedQueryItems ?? [] where Redactor.namesPosition(MatchRules.formDecoded(item.name)) {
                if let spelt = item.value, !spelt.isEmpty { result = result.replacingOccurrences(of: spelt, with: "") }
            }
        }
        return result
    }

    /// The `<target>`s of a `Link` field.
    static func linkTargets(_ value: String) -> [String] {
        Redactor.linkTargetRanges(value).map { String(value[$0]) }
    }

    static func holdsPassword(_ url: String) -> Bool {
        guard url.utf8.contains(UInt8(ascii: "@")), let password = URLComponents(string: url)?.percentEncodedPassword else { return false }
        return !password.isEmpty && !Redactor.looksRedacted(password)
    }

    /// Whether a list (or a list in it) holds a non-empty string other than the placeholder.
    /// Whether `list` (nested lists too) holds a text that is a secret by `isSecret` (a value
    /// public by its shape is not) and is not redacted yet.
    private static func holdsText(_ list: [Any], isSecret: (String) -> Bool) -> Bool {
        list.contains { element in
            if let nested = element as? [Any] { return holdsText(nested, isSecret: isSecret) }
            if let string = element as? String { return !string.isEmpty && !Redactor.looksRedacted(string) && isSecret(string) }
            return false
        }
    }

    /// The first credential query item of a link (a `Location` value, a JSON link) whose value is
    /// stored unredacted, by the default rules or `rules`.
    /// A query value that is a link itself (`/login?return=/account?token=…`) is looked into, as
    /// redaction does, to a few levels.
    private static func secretQueryItem(inLink text: String, rules: Redactor, depth: Int = 0) -> String? {
        guard text.utf8.contains(UInt8(ascii: "?")) || text.utf8.contains(UInt8(ascii: "#")), let components = URLComponents(string: text) else { return nil }
        var items = components.queryItems ?? []
        // A fragment spelt as a query (OAuth's implicit flow: `#access_token=…`).
        if let fragment = components.percentEncodedFragment, fragment.utf8.contains(UInt8(ascii: "=")) {
            var parts = URLComponents()
            parts.percentEncodedQuery = fragment
            items += parts.queryItems ?? []
        }
        for item in items {
            guard let value = item.value, !value.isEmpty, !Redactor.looksRedacted(value) else { continue }
            if rules.isSecretQueryName(item.name) || Redactor.standard.isSecretQueryName(item.name) { return item.name }
            if depth < 4, Redactor.looksLikeLink(value), let inner = secretQueryItem(inLink: value, rules: rules, depth: depth + 1) {
                return "\(item.name) → \(inner)"
            }
        }
        return nil
    }

    private static func secretLinkItems(in value: Any, rules: Redactor) -> [String] {
        if let dictionary = value as? [String: Any] {
            return dictionary.keys.sorted().flatMap { secretLinkItems(in: dictionary[$0]!, rules: rules) }
        }
        if let array = value as? [Any] {
            return array.flatMap { secretLinkItems(in: $0, rules: rules) }
        }
        guard let text = value as? String, Redactor.looksLikeLink(text) else { return [] }
        // A password in a link's user part is what an Authorization field would carry.
        let password = holdsPassword(text) && rules.isSecretHeader("authorization") ? ["user part's password"] : []
        return password + (secretQueryItem(inLink: text, rules: rules).map { ["query item '\($0)'"] } ?? [])
    }

    /// Recognisable secret formats inside a value.
    ///
    /// Each pattern is tried only where its fixed start occurs (a byte search), so a body of prose
    /// or data costs a scan, not a regular expression per pattern (megabytes of bodies are checked).
    static func secretShape(_ text: String) -> String? {
        guard mayHoldShape(text) else { return nil }
        // The same rule redaction applies (not a word after `Bearer`, not the placeholder).
        if text.containsBytes(of: "bearer", foldingCase: true), Redactor.containsBearerToken(text) { return "a bearer token" }
        for shape in shapes where text.containsBytes(of: shape.start, foldingCase: false) {
            if text.range(of: shape.pattern, options: .regularExpression) != nil { return shape.kind }
        }
        return nil
    }

    /// Whether `text` holds the first two bytes of any shape's start (`ey`, `AK`, `gh`, `--`, or
    /// `be` in any case for a bearer token): one pass over the bytes that most values — a date, a
    /// content type, a user agent — fail, before any search for a whole start.
    static func mayHoldShape(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            switch (previous, byte) {
            case (UInt8(ascii: "e"), UInt8(ascii: "y")), (UInt8(ascii: "A"), UInt8(ascii: "K")), (UInt8(ascii: "g"), UInt8(ascii: "h")),
                 (UInt8(ascii: "-"), UInt8(ascii: "-")):
                return true
            default:
                if previous | 0x20 == UInt8(ascii: "b"), byte | 0x20 == UInt8(ascii: "e") { return true }
            }
            previous = byte
        }
        return false
    }

    /// Recognisable secret formats: the text each starts with, its pattern, and its name.
    private static let shapes: [(start: String, pattern: String, kind: String)] = [
        ("eyJ", #"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"#, "a JSON Web Token"),
        ("AKIA", #"AKIA[0-9A-Z]{16}"#, "an AWS access key id"),
        // One needle per prefix: `gh` alone is in "through" and "high", each a regular expression run.
        ("ghp_", #"ghp_[A-Za-z0-9]{30,}"#, "a GitHub token"),
        ("gho_", #"gho_[A-Za-z0-9]{30,}"#, "a GitHub token"),
        ("ghu_", #"ghu_[A-Za-z0-9]{30,}"#, "a GitHub token"),
        ("ghs_", #"ghs_[A-Za-z0-9]{30,}"#, "a GitHub token"),
        ("ghr_", #"ghr_[A-Za-z0-9]{30,}"#, "a GitHub token"),
        ("-----BEGIN ", #"-----BEGIN [A-Z ]*PRIVATE KEY-----"#, "a private key"),
    ]
}
