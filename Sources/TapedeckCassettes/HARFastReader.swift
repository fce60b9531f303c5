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

    private static func readLog(_ cursor: inout JSONCursor) -> HARLog? {
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

    private static func readCreator(_ cursor: inout JSONCursor) -> HARCreator? {
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

    private static func readEntry(_ cursor: inout JSONCursor) -> HAREntry? {
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
        return entry
    }

    private static func readTransportError(_ cursor: inout JSONCursor) -> HARTransportError? {
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

    private static func readNameValues(_ cursor: inout JSONCursor, into list: inout [HARNameValue]) -> Bool {
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
    private static func readOneOrMany(_ cursor: inout JSONCursor, into values: inout [String]?) -> Bool {
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
        var value: String?
        guard cursor.string(into: &value), let value else { return false }
        values = [value]
        return true
    }

    /// A string when the value is one; any other value is skipped (as `try?` does in the model).
    private static func stringIfAny(_ cursor: inout JSONCursor, into value: inout String?) -> Bool {
        cursor.peek() == UInt8(ascii: "\"") ? cursor.string(into: &value) : cursor.skipValue()
    }

    private static func readParams(_ cursor: inout JSONCursor, into list: inout [HARParam]?) -> Bool {
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

    private static func readRequest(_ cursor: inout JSONCursor) -> HARRequest? {
        var method: String?
        var url: String?
        var httpVersion: String?
        var headers: [HARNameValue] = []
        var query: [HARNameValue] = []
        var postData: HARPostData?
        var headersSize: Int?
        var bodySize: Int?
        var comment: String?
        var bodyStatus: String?
        var content: HARPostData?
        guard cursor.object({ cursor, key in
            switch key {
            case "method": return cursor.string(into: &method)
            case "url": return cursor.string(into: &url)
            case "httpVersion": return cursor.optionalString(into: &httpVersion)
            case "cookies": return cursor.skipValue()   // not read (see HARCookie)
            case "headers": return readNameValues(&cursor, into: &headers)
            case "queryString": return readNameValues(&cursor, into: &query)
            case "postData": return cursor.nullable(into: &postData, readPostData)
            case "headersSize": return cursor.optionalLenientInt(into: &headersSize)
            case "bodySize": return cursor.optionalLenientInt(into: &bodySize)
            case "comment": return stringIfAny(&cursor, into: &comment)
            case "_requestBodyStatus": return stringIfAny(&cursor, into: &bodyStatus)
            case "_content":
                // HTTP Toolkit's base64 body; any other shape is ignored, as the model does.
                var attempt = cursor
                if attempt.nullable(into: &content, readPostData) {
                    cursor = attempt
                    return true
                }
                content = nil
                return cursor.skipValue()
            default: return cursor.skipValue()
            }
        }), let method, let url else { return nil }
        var request = HARRequest(method: method, url: url, headers: headers, queryString: query, postData: postData, bodySize: bodySize ?? -1)
        request.httpVersion = httpVersion ?? "HTTP/1.1"
        request.headersSize = headersSize ?? -1
        request.comment = comment
        request.bodyStatus = bodyStatus
        request.content = content
        return request
    }

    private static func readPostData(_ cursor: inout JSONCursor) -> HARPostData? {
        var mimeType: String?
        var text: String?
        var encoding: String?
        var comment: String?
        var params: [HARParam]?
        var file: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "mimeType": return cursor.optionalString(into: &mimeType)
            case "_file": return cursor.optionalString(into: &file)
            case "text": return cursor.optionalString(into: &text)
            case "encoding", "_encoding": return cursor.optionalString(into: &encoding)
            case "comment": return stringIfAny(&cursor, into: &comment)
            case "params": return readParams(&cursor, into: &params)
            default: return cursor.skipValue()
            }
        }) else { return nil }
        var postData = HARPostData(mimeType: mimeType ?? "", text: text ?? "", encoding: encoding)
        postData.text = text
        postData.params = params
        postData.comment = comment
        postData.file = file
        return postData
    }

    private static func readResponse(_ cursor: inout JSONCursor) -> HARResponse? {
        var status: Int?
        var statusText: String?
        var httpVersion: String?
        var headers: [HARNameValue] = []
        var content: HARContent?
        var redirectURL: String?
        var headersSize: Int?
        var bodySize: Int?
        var comment: String?
        var failureText: String?
        var error: String?
        var chunks: [HARChunk]?
        guard cursor.object({ cursor, key in
            switch key {
            case "status": return cursor.optionalLenientInt(into: &status)
            case "statusText": return cursor.optionalString(into: &statusText)
            case "httpVersion": return cursor.optionalString(into: &httpVersion)
            case "cookies": return cursor.skipValue()   // not read (see HARCookie)
            case "headers": return readNameValues(&cursor, into: &headers)
            case "content": return cursor.nullable(into: &content, readContent)
            case "redirectURL": return cursor.optionalString(into: &redirectURL)
            case "headersSize": return cursor.optionalLenientInt(into: &headersSize)
            case "bodySize": return cursor.optionalLenientInt(into: &bodySize)
            case "comment": return stringIfAny(&cursor, into: &comment)
            case "_failureText": return stringIfAny(&cursor, into: &failureText)
            case "_error": return stringIfAny(&cursor, into: &error)
            case "_chunks":
                // A malformed `_chunks` costs only the pacing, not the entry: skipped.
                var attempt = cursor
                if attempt.nullable(into: &chunks, readChunks) {
                    cursor = attempt
                    return true
                }
                chunks = nil
                return cursor.skipValue()
            default: return cursor.skipValue()
            }
        }) else { return nil }
        var response = HARResponse(
            status: status ?? 0, statusText: statusText ?? "", headers: headers,
            content: content ?? HARContent(size: 0, mimeType: "", text: nil, encoding: nil, bodyForm: nil),
            redirectURL: redirectURL ?? "", bodySize: bodySize ?? -1)
        response.httpVersion = httpVersion ?? "HTTP/1.1"
        response.headersSize = headersSize ?? -1
        response.comment = comment
        response.failureText = HARResponse.nonEmpty(failureText) ?? HARResponse.nonEmpty(error)
        response.chunks = chunks
        return response
    }

    /// `response._chunks`: `[{"bytes": 16, "time": 100.5}, …]`.
    private static func readChunks(_ cursor: inout JSONCursor) -> [HARChunk]? {
        var chunks: [HARChunk] = []
        guard cursor.array({ cursor in
            var bytes: Int?
            var time: Double?
            guard cursor.object({ cursor, key in
                switch key {
                case "bytes": return cursor.optionalLenientInt(into: &bytes)
                case "time": return cursor.optionalLenientDouble(into: &time)
                default: return cursor.skipValue()
                }
            }), let bytes, let time else { return false }
            chunks.append(HARChunk(bytes: bytes, time: time))
            return true
        }) else { return nil }
        return chunks
    }

    private static func readContent(_ cursor: inout JSONCursor) -> HARContent? {
        var size: Int?
        var compression: Int?
        var mimeType: String?
        var text: String?
        var encoding: String?
        var comment: String?
        var bodyForm: String?
        var wire: String?
        var file: String?
        var isBinary: Bool?
        guard cursor.object({ cursor, key in
            switch key {
            case "size": return cursor.optionalLenientInt(into: &size)
            case "compression": return cursor.optionalLenientInt(into: &compression)
            case "mimeType": return cursor.optionalString(into: &mimeType)
            case "text": return cursor.optionalString(into: &text)
            case "encoding": return cursor.optionalString(into: &encoding)
            case "comment": return stringIfAny(&cursor, into: &comment)
            case "_bodyForm": return cursor.optionalString(into: &bodyForm)
            case "_wire": return cursor.optionalString(into: &wire)
            case "_file": return cursor.optionalString(into: &file)
            case "_isBinary": return cursor.boolIfAny(into: &isBinary)
            default: return cursor.skipValue()
            }
        }) else { return nil }
        var content = HARContent(size: size ?? -1, mimeType: mimeType ?? "", text: text, encoding: encoding, bodyForm: bodyForm)
        content.wire = wire
        content.file = file
        content.isBinary = isBinary
        content.compression = compression
        content.comment = comment
        return content
    }

    private static func readTimings(_ cursor: inout JSONCursor) -> HARTimings? {
        var values: [String: Double] = [:]
        var comment: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "blocked", "dns", "connect", "send", "wait", "receive", "ssl":
                var value: Double?
                guard cursor.optionalLenientDouble(into: &value) else { return false }
                values[key] = value
                return true
            case "comment": return stringIfAny(&cursor, into: &comment)
            default: return cursor.skipValue()
            }
        }) else { return nil }
        var timings = HARTimings(
            blocked: values["blocked"], dns: values["dns"], connect: values["connect"],
            send: values["send"] ?? 0, wait: values["wait"] ?? 0, receive: values["receive"] ?? 0, ssl: values["ssl"])
        timings.comment = comment
        return timings
    }
}
