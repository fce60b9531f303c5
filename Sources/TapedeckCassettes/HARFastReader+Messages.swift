import Foundation

// The request and response halves of an entry (HARFastReader.swift reads the log and entries).
extension HARFastReader {
    static func readRequest(_ cursor: inout JSONCursor) -> HARRequest? {
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

    static func readPostData(_ cursor: inout JSONCursor) -> HARPostData? {
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
            case "text": return cursor.optionalBodyText(into: &text)
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

    static func readResponse(_ cursor: inout JSONCursor) -> HARResponse? {
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
    static func readChunks(_ cursor: inout JSONCursor) -> [HARChunk]? {
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

    static func readContent(_ cursor: inout JSONCursor) -> HARContent? {
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
            case "text": return cursor.optionalBodyText(into: &text)
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

    static func readTimings(_ cursor: inout JSONCursor) -> HARTimings? {
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
