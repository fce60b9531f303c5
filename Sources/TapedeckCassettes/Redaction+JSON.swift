public import Foundation

// JSON bodies: secret fields replaced wherever they are in the document.

extension Redactor {
    /// A JSON body with secret fields replaced (anywhere in the document); other bodies unchanged.
    /// A body is taken as JSON when its type says so or when it looks like JSON (servers that echo
    /// a login as `application/octet-stream` must not leak it). Only the secrets' bytes change:
    /// layout, key order, number spellings and repeated keys stay as sent
    /// (`Redaction+JSONInPlace.swift`); a document that walk cannot read is written again compact,
    /// with sorted keys.
    public func redactJSON(_ body: Data, contentType: String?) -> Data {
        // JSONP (`callback({…});`, served as JavaScript, or under another type): its argument is
        // redacted in place.
        if !jsonFields.isEmpty || secretLookingNames, let argument = Self.jsonpArgument(body) {
            let inner = Data(body[argument])
            let redacted = redactJSON(inner, contentType: "application/json")
            guard redacted != inner else { return body }
            var result = Data(body[..<argument.lowerBound])
            result.append(redacted)
            result.append(body[argument.upperBound...])
            return result
        }
        guard !jsonFields.isEmpty || secretLookingNames, !body.isEmpty, body.count <= Self.inspectionLimit else { return body }
        // A document after an anti-hijacking prefix (`)]}'` and a line break, Gerrit's and
        // Google's APIs): the document redacted, the prefix kept.
        if let prefix = Self.antiHijackingPrefix(body) {
            let document = Data(body[(body.startIndex + prefix)...])
            let redacted = redactJSON(document, contentType: "application/json")
            return redacted == document ? body : Data(body.prefix(prefix)) + redacted
        }
        // A UTF-8 BOM before the document: the document edited in place, the BOM kept.
        if body.starts(with: [0xEF, 0xBB, 0xBF]) {
            let document = Data(body.dropFirst(3))
            let redacted = redactJSON(document, contentType: contentType)
            return redacted == document ? body : Data([0xEF, 0xBB, 0xBF]) + redacted
        }
        let typedJSON = contentType?.containsBytes(of: "json", foldingCase: true) == true
        guard typedJSON || looksLikeJSON(body) else {
            // Not one document, but lines of it may be.
            return Self.hasJSONLine(body) ? redactLines(body) : body
        }
        // The secrets replaced where they sit; every other byte as the server sent it. (The walk
        // reads JSON as strictly as a parser: what it reads needs no parse first.)
        if let edited = redactJSONInPlace(body) { return edited }
        // A document the byte walk cannot read (UTF-16, `0e5`): parsed and written again.
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            // Not one document: JSON lines (NDJSON under a JSON or text type), each redacted.
            return Self.hasJSONLine(body) ? redactLines(body) : body
        }
        var changed = false
        let redacted = redactValue(object, changed: &changed)
        guard changed, let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else {
            return body
        }
        return data
    }

    /// What a secret field's value becomes: a string the placeholder; a number `0`, so a client
    /// decoding a number still can; `null`, `true` and `false` stay (they hold no credential, and
    /// a client deciding "do I have a token?" on `null` must decide the same on replay). Nil: kept.
    static func redactedScalar(_ value: Any) -> Any? {
        if value is NSNull { return nil }
        if let number = value as? NSNumber, !(value is String) {
            // JSONSerialization's booleans are numbers of the `char` type.
            return String(cString: number.objCType) == "c" ? nil : 0
        }
        return placeholder
    }

    func redactValue(_ value: Any, changed: inout Bool) -> Any {
        if let dictionary = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, inner) in dictionary {
                if isSecretJSONField(key, value: inner), !(inner is [String: Any]), !(inner is [Any]) {
                    let replaced = Self.redactedScalar(inner)
                    result[key] = replaced ?? inner
                    if replaced != nil { changed = true }
                } else if let list = inner as? [Any], isSecretJSONField(key) {
                    // `"Set-Cookie": ["a=1", "b=2"]`, `"refresh_token": ["…"]`: the list's values
                    // are the field's values.
                    result[key] = redactSecretList(list, key: key, changed: &changed)
                } else {
                    result[key] = redactValue(inner, changed: &changed)
                }
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map { redactValue($0, changed: &changed) }
        }
        if let text = value as? String, Self.looksLikeLink(text) {
            // A link to another page or resource (`"next": "/items?page=2&access_token=…"`).
            let redacted = redactURLText(text)
            if redacted != text {
                changed = true
                return redacted
            }
        }
        return value
    }

    /// The values of a list under a secret field's name replaced as the field's own value would
    /// be (in nested lists too); objects in it are redacted by their own fields' names.
    func redactSecretList(_ list: [Any], key: String, changed: inout Bool) -> [Any] {
        list.map { element in
            if let nested = element as? [Any] { return redactSecretList(nested, key: key, changed: &changed) }
            if element is [String: Any] { return redactValue(element, changed: &changed) }
            guard isSecretJSONField(key, value: element) else { return redactValue(element, changed: &changed) }
            guard let replaced = Self.redactedScalar(element) else { return element }
            changed = true
            return replaced
        }
    }

    /// A JSON string that is a link with something to redact: absolute http(s) or starting with
    /// `/`, with a query; or absolute http(s) with a user part (`https://bob:…@host/`).
    static func looksLikeLink(_ text: String) -> Bool {
        let hasQuery = text.utf8.contains(UInt8(ascii: "?"))
        guard hasQuery || text.utf8.contains(UInt8(ascii: "@")) else { return false }
        let lowered = text.prefix(8).lowercased()
        let absolute = lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
        return absolute || (hasQuery && text.hasPrefix("/"))
    }

    /// Where the JSON argument of a JSONP body lies (`callback({…});`, a name of letters,
    /// digits, `_`, `$` and `.`, then one object or list), or nil when the body is not one.
    static func jsonpArgument(_ body: Data) -> Range<Data.Index>? {
        guard body.count >= 4, body.count <= inspectionLimit else { return nil }
        let space: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09]
        var start = body.startIndex
        // An optional `/**/` some servers put first against content sniffing.
        while start < body.endIndex, space.contains(body[start]) { start += 1 }
        if body[start...].starts(with: Data("/**/".utf8)) {
            start += 4
            while start < body.endIndex, space.contains(body[start]) { start += 1 }
        }
        var index = start
        while index < body.endIndex, body[index] == UInt8(ascii: "_") || body[index] == UInt8(ascii: "$") || body[index] == UInt8(ascii: ".")
            || (body[index] | 0x20 >= 0x61 && body[index] | 0x20 <= 0x7A) || (body[index] >= 0x30 && body[index] <= 0x39) { index += 1 }
        guard index > start, index < body.endIndex, body[index] == UInt8(ascii: "(") else { return nil }
        var end = body.endIndex
        while end > index, space.contains(body[end - 1]) || body[end - 1] == UInt8(ascii: ";") { end -= 1 }
        guard end > index + 1, body[end - 1] == UInt8(ascii: ")") else { return nil }
        var inner = (index + 1)..<(end - 1)
        while !inner.isEmpty, space.contains(body[inner.lowerBound]) { inner = (inner.lowerBound + 1)..<inner.upperBound }
        guard let first = inner.first.map({ body[$0] }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        return inner
    }

    /// Whether a body of several lines has one that starts as JSON (`{` or `[`, maybe after
    /// spaces or an event stream's `data:`): the one scan a page of HTML or a script costs before
    /// it is left alone (``redactLines(_:)`` copies the body).
    static func hasJSONLine(_ body: Data) -> Bool {
        body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            let count = bytes.count
            guard bytes.contains(0x0A) else { return false }
            var lineStart = 0
            while lineStart < count {
                var at = lineStart
                if at + 5 <= count, bytes[at] == UInt8(ascii: "d"), bytes[at + 1] == UInt8(ascii: "a"), bytes[at + 2] == UInt8(ascii: "t"),
                   bytes[at + 3] == UInt8(ascii: "a"), bytes[at + 4] == UInt8(ascii: ":") { at += 5 }
                // A JSON text sequence's record separator (RFC 7464), a UTF-8 BOM.
                if at < count, bytes[at] == 0x1E { at += 1 }
                if at + 3 <= count, bytes[at] == 0xEF, bytes[at + 1] == 0xBB, bytes[at + 2] == 0xBF { at += 3 }
                while at < count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0D { at += 1 }
                if at < count, bytes[at] == UInt8(ascii: "{") || bytes[at] == UInt8(ascii: "[") { return true }
                // The next line.
                while at < count, bytes[at] != 0x0A { at += 1 }
                lineStart = at + 1
            }
            return false
        }
    }

    func looksLikeJSON(_ body: Data) -> Bool {
        Self.looksLikeJSON(body)
    }

    /// Whether `body` starts as a JSON document: `{` or `[` after white space and a UTF-8 BOM.
    static func looksLikeJSON(_ body: Data) -> Bool {
        body.withUnsafeBytes { startsAsJSON($0.bindMemory(to: UInt8.self)) }
    }

    /// ``looksLikeJSON(_:)`` on bytes in place.
    static func startsAsJSON(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = text.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < text.count, text[index] == 0x20 || text[index] == 0x0A || text[index] == 0x0D || text[index] == 0x09 { index += 1 }
        return index < text.count && (text[index] == UInt8(ascii: "{") || text[index] == UInt8(ascii: "["))
    }

    /// The length of an anti-hijacking prefix before a JSON document — `)]}'` (or `)]}',`) then a
    /// line break or spaces, as Gerrit and Google serve it — or nil.
    static func antiHijackingPrefix(_ body: Data) -> Int? {
        guard body.starts(with: Data(")]}'".utf8)) else { return nil }
        var index = body.startIndex + 4
        if index < body.endIndex, body[index] == UInt8(ascii: ",") { index += 1 }
        while index < body.endIndex, [0x20, 0x0A, 0x0D, 0x09].contains(body[index]) { index += 1 }
        guard index < body.endIndex, body[index] == UInt8(ascii: "{") || body[index] == UInt8(ascii: "[") else { return nil }
        return index - body.startIndex
    }
}
