import Foundation

/// A HAR-shaped JSON reader that builds the ``HARDocument`` model straight from the bytes.
///
/// Foundation's JSONDecoder reads cassettes at about a sixth of zlib's inflate speed here (see
/// docs/benchmarks.md); most of that is the Codable machinery, not JSON. This reader knows the
/// HAR schema, skips keys it does not know, and reads strings with one scan. It accepts only the
/// well-formed common case: on anything unexpected (a type it does not expect, invalid UTF-8, a
/// syntax error, very deep nesting) it returns nil, and the caller falls back to JSONDecoder —
/// which then produces the precise error, or reads a lenient oddity this reader declines.
enum HARFastReader {
    static func document(_ data: Data) -> HARDocument? {
        data.withUnsafeBytes { raw -> HARDocument? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var cursor = JSONCursor(base: base, count: raw.count)
            cursor.acceptsLoneSurrogates = true
            cursor.skipByteOrderMark()
            var log: HARLog?
            guard cursor.object({ cursor, key in
                guard key == "log" else { return cursor.skipValue() }
                log = readLog(&cursor)
                return log != nil
            }) else { return nil }
            cursor.skipWhitespace()
            guard cursor.atEnd, let log else { return nil }
            return HARDocument(log: log)
        }
    }

    static func readLog(_ cursor: inout JSONCursor) -> HARLog? {
        var version: String?
        var creator: HARCreator?
        var entries: [HAREntry]?
        var tapedeck: HARTapedeckInfo?
        var comment: String?
        var browser: HARCreator?
        let ok = cursor.object { cursor, key in
            switch key {
            case "version":
                guard cursor.peek() != UInt8(ascii: "\"") else { return cursor.string(into: &version) }
                // newman-reporter-har writes the version as a number (1.2).
                var number: Double?
                guard cursor.optionalLenientDouble(into: &number), let number else { return false }
                version = HARLog.versionText(number)
                return true
            case "creator": creator = readCreator(&cursor); return creator != nil
            case "browser": return cursor.nullable(into: &browser, readCreator)
            case "comment": return stringIfAny(&cursor, into: &comment)
            case "_tapedeck":
                if cursor.null() { return true }
                var format: Int?
                guard cursor.object({ cursor, key in key == "formatVersion" ? cursor.int(into: &format) : cursor.skipValue() }),
                      let format else { return false }
                tapedeck = HARTapedeckInfo(formatVersion: format)
                return true
            case "entries":
                var list: [HAREntry] = []
                guard cursor.array({ cursor in
                    guard let entry = readEntry(&cursor) else { return false }
                    list.append(entry)
                    return true
                }) else { return false }
                entries = list
                return true
            default: return cursor.skipValue()
            }
        }
        guard ok, let entries else { return nil }
        // A missing version or creator is accepted, as the model accepts it.
        var log = HARLog(version: version ?? "1.2", creator: creator ?? HARCreator(name: "unknown", version: ""), entries: entries,
                         tapedeck: tapedeck)
        log.comment = comment
        log.browser = browser
        return log
    }

    static func readCreator(_ cursor: inout JSONCursor) -> HARCreator? {
        var name: String?
        var version: String?
        var comment: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "name": return cursor.string(into: &name)
            case "version": return cursor.string(into: &version)
            case "comment": return stringIfAny(&cursor, into: &comment)
            default: return cursor.skipValue()
            }
        }), let name, let version else { return nil }
        var creator = HARCreator(name: name, version: version)
        creator.comment = comment
        return creator
    }

    static func readEntry(_ cursor: inout JSONCursor) -> HAREntry? {
        var started: String?
        var time: Double?
        var request: HARRequest?
        var response: HARResponse?
        var timings: HARTimings?
        var index: Int?
        var error: HARTransportError?
        var serverIPAddress: String?
        var connection: String?
        var comment: String?
        var wasPushed: Bool?
        var responseIsNull = false
        guard cursor.object({ cursor, key in
            switch key {
            case "startedDateTime": return cursor.optionalString(into: &started)
            case "time": return cursor.optionalLenientDouble(into: &time)
            case "request": request = readRequest(&cursor); return request != nil
            case "response":
                if cursor.null() {
                    responseIsNull = true
                    return true
                }
                response = readResponse(&cursor)
                return response != nil
            case "timings": return cursor.nullable(into: &timings, readTimings)
            case "_index": return cursor.optionalInt(into: &index)
            case "_error": return cursor.nullable(into: &error, readTransportError)
            case "serverIPAddress": return cursor.optionalString(into: &serverIPAddress)
            case "connection": return cursor.optionalString(into: &connection)
            case "comment": return stringIfAny(&cursor, into: &comment)
            case "_was_pushed": return cursor.flagIfAny(into: &wasPushed)
            case "cache":
                // HARCache holds nothing; anything but an object or null goes to the strict reader.
                return cursor.null() || cursor.object { cursor, _ in cursor.skipValue() }
            default: return cursor.skipValue()
            }
        }), let request else { return nil }
        guard let response else {
            // No response, or a null one (a request still in flight when exported, a request-only
            // HAR): the placeholder the model makes, so both readers give the same document.
            var placeholder = HAREntry.unreadable(responseIsNull ? .nullResponse : .noResponse)
            placeholder.request.method = request.method
            placeholder.request.url = request.url
            return placeholder
        }
        var entry = HAREntry(
            startedDateTime: started ?? "", time: time ?? -1, request: request, response: response,
            timings: timings ?? HARTimings(send: 0, wait: 0, receive: 0), index: index, error: error)
        entry.serverIPAddress = serverIPAddress
        entry.connection = connection
        entry.comment = comment
        entry.wasPushed = wasPushed ?? false
        return entry
    }

    static func readTransportError(_ cursor: inout JSONCursor) -> HARTransportError? {
        // mitmproxy writes `_error` as a bare message.
        if cursor.peek() == UInt8(ascii: "\"") {
            var message: String?
            guard cursor.string(into: &message), let message else { return nil }
            return HARTransportError(code: -1, domain: "NSURLErrorDomain", message: message)
        }
        var code: Int?
        var domain: String?
        var message: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "code": return cursor.int(into: &code)
            case "domain": return cursor.string(into: &domain)
            case "message": return cursor.string(into: &message)
            default: return cursor.skipValue()
            }
        }), let code, let domain, let message else { return nil }
        return HARTransportError(code: code, domain: domain, message: message)
    }

    static func readNameValues(_ cursor: inout JSONCursor, into list: inout [HARNameValue]) -> Bool {
        if cursor.null() { return true }
        return cursor.array { cursor in
            var name: String?
            var values: [String]?
            guard cursor.object({ cursor, key in
                switch key {
                case "name": return cursor.string(into: &name)
                case "value":
                    // A field whose value is null carries nothing to send: left out, not the entry.
                    if cursor.null() { values = []; return true }
                    return readOneOrMany(&cursor, into: &values)
                default: return cursor.skipValue()
                }
            }), let name, let values else { return false }
            for value in values { list.append(HARNameValue(name: name, value: value)) }
            return true
        }
    }

    /// A string, or an array of strings (Polly.JS 1.x writes repeated fields as one such item).
    static func readOneOrMany(_ cursor: inout JSONCursor, into values: inout [String]?) -> Bool {
        if cursor.peek() == UInt8(ascii: "[") {
            var list: [String] = []
            guard cursor.array({ cursor in
                var value: String?
                guard cursor.string(into: &value), let value else { return false }
                list.append(value)
                return true
            }) else { return false }
            values = list
            return true
        }
        if cursor.peek() != UInt8(ascii: "\""), let text = scalarText(&cursor) {
            values = [text]
            return true
        }
        var value: String?
        guard cursor.string(into: &value), let value else { return false }
        values = [value]
        return true
    }

    /// A number or boolean written where text belongs (Polly.JS 5 writes a `content-length`
    /// header's value as a number), as the text it spells; nil for anything else.
    static func scalarText(_ cursor: inout JSONCursor) -> String? {
        switch cursor.peek() {
        case UInt8(ascii: "t")?: return cursor.literal("true") ? "true" : nil
        case UInt8(ascii: "f")?: return cursor.literal("false") ? "false" : nil
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?:
            let start = cursor.position
            guard cursor.readNumber() != nil else { return nil }
            return String(decoding: UnsafeBufferPointer(start: cursor.base + start, count: cursor.position - start), as: UTF8.self)
        default: return nil
        }
    }

    /// A string when the value is one; any other value is skipped (as `try?` does in the model).
    static func stringIfAny(_ cursor: inout JSONCursor, into value: inout String?) -> Bool {
        cursor.peek() == UInt8(ascii: "\"") ? cursor.string(into: &value) : cursor.skipValue()
    }

    static func readParams(_ cursor: inout JSONCursor, into list: inout [HARParam]?) -> Bool {
        if cursor.null() { return true }
        var params: [HARParam] = []
        guard cursor.array({ cursor in
            var param = HARParam(name: "")
            var name: String?
            guard cursor.object({ cursor, key in
                switch key {
                case "name": return cursor.string(into: &name)
                case "value":
                    // chrome-har writes objects here (a JSON body parsed into params): kept as "not a string".
                    guard cursor.peek() == UInt8(ascii: "\"") || cursor.peek() == UInt8(ascii: "n") else {
                        param.hasNonStringValue = true
                        return cursor.skipValue()
                    }
                    return cursor.optionalString(into: &param.value)
                case "fileName": return cursor.optionalString(into: &param.fileName)
                case "contentType": return cursor.optionalString(into: &param.contentType)
                default: return cursor.skipValue()
                }
            }), let name else { return false }
            param.name = name
            params.append(param)
            return true
        }) else { return false }
        list = params
        return true
    }
}
