// The request and response halves of a HAR entry, their bodies and timings (see HAR.swift).

package struct HARRequest: Codable, Hashable, Sendable {
    package var method: String
    package var url: String
    package var httpVersion: String
    package var cookies: [HARCookie]
    package var headers: [HARNameValue]
    package var queryString: [HARNameValue]
    package var postData: HARPostData?
    package var headersSize: Int
    package var bodySize: Int
    package var comment: String?
    /// HTTP Toolkit: what became of the body when the file was written — `discarded:too-large`,
    /// `discarded:not-decodable` (left out), `discarded:not-representable` (not text: the bytes
    /// are in ``content`` instead of `postData`). Nil when absent. Never written.
    package var bodyStatus: String?
    /// HTTP Toolkit (`_content`): a body that is not UTF-8, as `{text, size, encoding: "base64"}`,
    /// in place of `postData`. Never written.
    package var content: HARPostData?

    enum CodingKeys: String, CodingKey {
        case method, url, httpVersion, cookies, headers, queryString, postData, headersSize, bodySize, comment
        case bodyStatus = "_requestBodyStatus"
        case content = "_content"
    }

    package init(method: String, url: String, headers: [HARNameValue], queryString: [HARNameValue], postData: HARPostData?, bodySize: Int) {
        self.method = method
        self.url = url
        self.httpVersion = "HTTP/1.1"
        self.cookies = []
        self.headers = headers
        self.queryString = queryString
        self.postData = postData
        self.headersSize = -1
        self.bodySize = bodySize
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
        cookies = []   // not read: the Cookie header carries the same data (see HARCookie)
        headers = try container.decodeNameValues(forKey: .headers)
        queryString = try container.decodeNameValues(forKey: .queryString)
        postData = try container.decodeIfPresent(HARPostData.self, forKey: .postData)
        headersSize = try container.decodeLenientInt(forKey: .headersSize) ?? -1
        bodySize = try container.decodeLenientInt(forKey: .bodySize) ?? -1
        comment = (try? container.decodeIfPresent(String.self, forKey: .comment)) ?? nil
        bodyStatus = (try? container.decodeIfPresent(String.self, forKey: .bodyStatus)) ?? nil
        // A `_content` of another shape costs nothing: HTTP Toolkit is the only writer of it.
        content = (try? container.decodeIfPresent(HARPostData.self, forKey: .content)) ?? nil
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(httpVersion, forKey: .httpVersion)
        try container.encode(cookies, forKey: .cookies)
        try container.encode(headers, forKey: .headers)
        try container.encode(queryString, forKey: .queryString)
        try container.encodeIfPresent(postData, forKey: .postData)
        try container.encode(headersSize, forKey: .headersSize)
        try container.encode(bodySize, forKey: .bodySize)
        try container.encodeIfPresent(comment, forKey: .comment)
    }
}

package struct HARPostData: Codable, Hashable, Sendable {
    package var mimeType: String
    package var text: String?
    package var params: [HARParam]?
    /// "base64" when `text` holds a binary body in base64. HAR 1.2 defines `encoding` only for a
    /// response's content; Playwright reads it here too, so it is written as `encoding` (files of
    /// Tapedeck before 2026-11-26 wrote `_encoding`, still read).
    package var encoding: String?
    package var comment: String?
    /// Playwright (`content: 'attach'`): the name of the file beside the HAR that holds the body,
    /// with `text` empty. Never written.
    package var file: String?

    enum CodingKeys: String, CodingKey {
        case mimeType, text, params, comment, encoding
        case legacyEncoding = "_encoding"
        case file = "_file"
    }

    package init(mimeType: String, text: String, encoding: String?) {
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        text = try container.decodeIfPresent(String.self, forKey: .text)
        params = try container.decodeIfPresent([HARParam].self, forKey: .params)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
            ?? container.decodeIfPresent(String.self, forKey: .legacyEncoding)
        comment = (try? container.decodeIfPresent(String.self, forKey: .comment)) ?? nil
        file = try container.decodeIfPresent(String.self, forKey: .file)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mimeType, forKey: .mimeType)
        try container.encodeIfPresent(text, forKey: .text)
        try container.encodeIfPresent(params, forKey: .params)
        try container.encodeIfPresent(encoding, forKey: .encoding)
        try container.encodeIfPresent(comment, forKey: .comment)
    }
}

package struct HARParam: Codable, Hashable, Sendable {
    package var name: String
    package var value: String?
    package var fileName: String?
    package var contentType: String?
    /// The writer gave `value` as something other than a string or null (chrome-har stores a JSON
    /// body parsed into params, with objects as values): `value` is then nil. Never written.
    package var hasNonStringValue = false

    enum CodingKeys: String, CodingKey {
        case name, value, fileName, contentType
    }

    package init(name: String, value: String? = nil, fileName: String? = nil, contentType: String? = nil) {
        self.name = name
        self.value = value
        self.fileName = fileName
        self.contentType = contentType
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        if container.contains(.value), try !container.decodeNil(forKey: .value) {
            value = try? container.decode(String.self, forKey: .value)
            hasNonStringValue = value == nil
        }
        fileName = try container.decodeIfPresent(String.self, forKey: .fileName)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
    }
}

package struct HARResponse: Codable, Hashable, Sendable {
    package var status: Int
    package var statusText: String
    package var httpVersion: String
    package var cookies: [HARCookie]
    package var headers: [HARNameValue]
    package var content: HARContent
    package var redirectURL: String
    package var headersSize: Int
    package var bodySize: Int
    package var comment: String?
    /// Why another tool recorded no response: Chromium's and Playwright's `_failureText`
    /// (`net::ERR_ABORTED`), or the `_error` text DevTools and mitmproxy put here. Tapedeck writes
    /// a failure's message here as `_error` (what DevTools shows), beside the entry's own `_error`
    /// object, which is what it reads back.
    package var failureText: String?
    /// Tapedeck: how a streamed body arrived, piece by piece (`RecordedResponse.chunks`).
    package var chunks: [HARChunk]?

    enum CodingKeys: String, CodingKey {
        case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize, comment
        case failureText = "_failureText"
        case error = "_error"
        case chunks = "_chunks"
    }

    package init(status: Int, statusText: String, headers: [HARNameValue], content: HARContent, redirectURL: String, bodySize: Int) {
        self.status = status
        self.statusText = statusText
        self.httpVersion = "HTTP/1.1"
        self.cookies = []
        self.headers = headers
        self.content = content
        self.redirectURL = redirectURL
        self.headersSize = -1
        self.bodySize = bodySize
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decodeLenientInt(forKey: .status) ?? 0
        statusText = try container.decodeIfPresent(String.self, forKey: .statusText) ?? ""
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
        cookies = []   // not read: the Set-Cookie headers carry the same data (see HARCookie)
        headers = try container.decodeNameValues(forKey: .headers)
        content = try container.decodeIfPresent(HARContent.self, forKey: .content) ?? HARContent(size: 0, mimeType: "", text: nil, encoding: nil, bodyForm: nil)
        redirectURL = try container.decodeIfPresent(String.self, forKey: .redirectURL) ?? ""
        headersSize = try container.decodeLenientInt(forKey: .headersSize) ?? -1
        bodySize = try container.decodeLenientInt(forKey: .bodySize) ?? -1
        comment = (try? container.decodeIfPresent(String.self, forKey: .comment)) ?? nil
        failureText = Self.nonEmpty(try? container.decodeIfPresent(String.self, forKey: .failureText))
            ?? Self.nonEmpty(try? container.decodeIfPresent(String.self, forKey: .error))
        // A malformed `_chunks` costs only the pacing, not the entry.
        chunks = (try? container.decodeIfPresent([HARChunk].self, forKey: .chunks)) ?? nil
    }

    static func nonEmpty(_ text: String??) -> String? {
        guard let text = text ?? nil, !text.isEmpty else { return nil }
        return text
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(statusText, forKey: .statusText)
        try container.encode(httpVersion, forKey: .httpVersion)
        try container.encode(cookies, forKey: .cookies)
        try container.encode(headers, forKey: .headers)
        try container.encode(content, forKey: .content)
        try container.encode(redirectURL, forKey: .redirectURL)
        try container.encode(headersSize, forKey: .headersSize)
        try container.encode(bodySize, forKey: .bodySize)
        try container.encodeIfPresent(comment, forKey: .comment)
        try container.encodeIfPresent(failureText, forKey: .error)
        try container.encodeIfPresent(chunks, forKey: .chunks)
    }
}

/// Tapedeck: one piece of a streamed body in `response._chunks` — its size in bytes of the body as
/// stored, and when it had arrived, in milliseconds from the response head (as HAR's timings).
package struct HARChunk: Codable, Hashable, Sendable {
    package var bytes: Int
    package var time: Double

    package init(bytes: Int, time: Double) {
        self.bytes = bytes
        self.time = time
    }
}

package struct HARContent: Codable, Hashable, Sendable {
    package var size: Int
    package var compression: Int?
    package var mimeType: String
    package var text: String?
    /// "base64" when `text` is base64 (binary bodies).
    package var encoding: String?
    package var comment: String?
    /// Tapedeck: "wire" when the body is kept as sent (still compressed per Content-Encoding),
    /// "decoded" when `text` holds the decoded bytes (as browsers and mitmproxy write it). Absent:
    /// inferred from the bytes. A wire body is in ``wire``, with `text` its decoded bytes as HAR 1.2
    /// says; in files of Tapedeck before 2026-11-26 `text` held the wire bytes themselves.
    package var bodyForm: String?
    /// Tapedeck: the body as sent, base64, when it is compressed (`_bodyForm: "wire"`): what a
    /// replay sends, byte for byte; `text`, `size` and `compression` describe the decoded body for
    /// every other reader.
    package var wire: String?
    /// Playwright (`recordHar` with `content: 'attach'`, or a `.zip` HAR): the name of the file,
    /// beside the HAR, that holds the body instead of `text`. Never written.
    package var file: String?
    /// Polly.JS 2–5 (`_isBinary: true`): `text` holds the body as hex, a JSON array of hex chunks
    /// or one hex string. Nil when absent or not a boolean. Never written.
    package var isBinary: Bool?

    enum CodingKeys: String, CodingKey {
        case size, compression, mimeType, text, encoding, comment
        case bodyForm = "_bodyForm"
        case wire = "_wire"
        case file = "_file"
        case isBinary = "_isBinary"
    }

    package init(size: Int, mimeType: String, text: String?, encoding: String?, bodyForm: String?) {
        self.size = size
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
        self.bodyForm = bodyForm
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decodeLenientInt(forKey: .size) ?? -1
        compression = try container.decodeLenientInt(forKey: .compression)
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        text = try container.decodeIfPresent(String.self, forKey: .text)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        comment = (try? container.decodeIfPresent(String.self, forKey: .comment)) ?? nil
        bodyForm = try container.decodeIfPresent(String.self, forKey: .bodyForm)
        wire = try container.decodeIfPresent(String.self, forKey: .wire)
        file = try container.decodeIfPresent(String.self, forKey: .file)
        isBinary = (try? container.decodeIfPresent(Bool.self, forKey: .isBinary)) ?? nil
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(size, forKey: .size)
        try container.encodeIfPresent(compression, forKey: .compression)
        try container.encode(mimeType, forKey: .mimeType)
        try container.encodeIfPresent(text, forKey: .text)
        try container.encodeIfPresent(encoding, forKey: .encoding)
        try container.encodeIfPresent(comment, forKey: .comment)
        try container.encodeIfPresent(bodyForm, forKey: .bodyForm)
        try container.encodeIfPresent(wire, forKey: .wire)
    }
}

/// Phase durations in milliseconds; -1 (or absent) means "does not apply".
package struct HARTimings: Codable, Hashable, Sendable {
    package var blocked: Double?
    package var dns: Double?
    package var connect: Double?
    package var send: Double
    package var wait: Double
    package var receive: Double
    package var ssl: Double?
    package var comment: String?

    package init(blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double, wait: Double, receive: Double, ssl: Double? = -1) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        blocked = try container.decodeLenientDouble(forKey: .blocked)
        dns = try container.decodeLenientDouble(forKey: .dns)
        connect = try container.decodeLenientDouble(forKey: .connect)
        send = try container.decodeLenientDouble(forKey: .send) ?? 0
        wait = try container.decodeLenientDouble(forKey: .wait) ?? 0
        receive = try container.decodeLenientDouble(forKey: .receive) ?? 0
        ssl = try container.decodeLenientDouble(forKey: .ssl)
        comment = (try? container.decodeIfPresent(String.self, forKey: .comment)) ?? nil
    }
}

/// Tapedeck: a transport error recorded in place of a response.
package struct HARTransportError: Codable, Hashable, Sendable {
    /// The `URLError` code (e.g. -1001 timed out, -1004 cannot connect).
    package var code: Int
    package var domain: String
    package var message: String

    package init(code: Int, domain: String, message: String) {
        self.code = code
        self.domain = domain
        self.message = message
    }
}
