// The HAR 1.2 document as JSON (http://www.softwareishard.com/blog/har-12-spec/), read leniently —
// browsers, mitmproxy and other tools each leave out or add different fields — and written with
// every field HAR requires. Tapedeck's own data lives under `_`-prefixed keys, which HAR allows.

/// A whole HAR file: `{"log": {...}}`.
public struct HARDocument: Codable, Hashable, Sendable {
    public var log: HARLog

    public init(log: HARLog) {
        self.log = log
    }
}

public struct HARLog: Codable, Hashable, Sendable {
    public var version: String
    public var creator: HARCreator
    public var browser: HARCreator?
    public var entries: [HAREntry]
    public var comment: String?
    /// Tapedeck's format data (absent in HAR files other tools wrote).
    public var tapedeck: HARTapedeckInfo?

    enum CodingKeys: String, CodingKey {
        case version, creator, browser, entries, comment
        case tapedeck = "_tapedeck"
    }

    public init(version: String = "1.2", creator: HARCreator, entries: [HAREntry], tapedeck: HARTapedeckInfo?) {
        self.version = version
        self.creator = creator
        self.entries = entries
        self.tapedeck = tapedeck
    }
}

public struct HARTapedeckInfo: Codable, Hashable, Sendable {
    /// The version of Tapedeck's additions (`_`-keys and their meaning).
    public var formatVersion: Int

    public init(formatVersion: Int) {
        self.formatVersion = formatVersion
    }
}

public struct HARCreator: Codable, Hashable, Sendable {
    public var name: String
    public var version: String
    public var comment: String?

    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

public struct HARNameValue: Codable, Hashable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

public struct HARCookie: Codable, Hashable, Sendable {
    public var name: String
    public var value: String
    public var path: String?
    public var domain: String?
    public var expires: String?
    public var httpOnly: Bool?
    public var secure: Bool?
    public var sameSite: String?
}

public struct HAREntry: Codable, Hashable, Sendable {
    public var startedDateTime: String
    /// Total time in milliseconds.
    public var time: Double
    public var request: HARRequest
    public var response: HARResponse
    public var cache: HARCache
    public var timings: HARTimings
    public var serverIPAddress: String?
    public var connection: String?
    public var comment: String?
    /// Tapedeck: the entry's position in the recording (identical requests replay in this order).
    public var index: Int?
    /// Tapedeck: the transport error that ended the exchange instead of a response.
    public var error: HARTransportError?

    enum CodingKeys: String, CodingKey {
        case startedDateTime, time, request, response, cache, timings, serverIPAddress, connection, comment
        case index = "_index"
        case error = "_error"
    }

    public init(
        startedDateTime: String, time: Double, request: HARRequest, response: HARResponse, timings: HARTimings,
        index: Int?, error: HARTransportError?
    ) {
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = HARCache()
        self.timings = timings
        self.index = index
        self.error = error
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        startedDateTime = try container.decodeIfPresent(String.self, forKey: .startedDateTime) ?? ""
        time = try container.decodeIfPresent(Double.self, forKey: .time) ?? -1
        request = try container.decode(HARRequest.self, forKey: .request)
        response = try container.decode(HARResponse.self, forKey: .response)
        cache = try container.decodeIfPresent(HARCache.self, forKey: .cache) ?? HARCache()
        timings = try container.decodeIfPresent(HARTimings.self, forKey: .timings) ?? HARTimings(send: 0, wait: 0, receive: 0)
        serverIPAddress = try container.decodeIfPresent(String.self, forKey: .serverIPAddress)
        connection = try container.decodeIfPresent(String.self, forKey: .connection)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        index = try container.decodeIfPresent(Int.self, forKey: .index)
        if let recorded = try? container.decodeIfPresent(HARTransportError.self, forKey: .error) {
            error = recorded
        } else if let message = try? container.decodeIfPresent(String.self, forKey: .error) {
            // mitmproxy writes `_error` as a message for flows that failed without a response.
            error = HARTransportError(code: -1, domain: "NSURLErrorDomain", message: message)
        } else {
            error = nil
        }
    }
}

/// HAR's `cache` object; Tapedeck neither reads nor writes its contents.
public struct HARCache: Codable, Hashable, Sendable {
    public init() {}
}

public struct HARRequest: Codable, Hashable, Sendable {
    public var method: String
    public var url: String
    public var httpVersion: String
    public var cookies: [HARCookie]
    public var headers: [HARNameValue]
    public var queryString: [HARNameValue]
    public var postData: HARPostData?
    public var headersSize: Int
    public var bodySize: Int
    public var comment: String?

    public init(method: String, url: String, headers: [HARNameValue], queryString: [HARNameValue], postData: HARPostData?, bodySize: Int) {
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

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
        cookies = try container.decodeIfPresent([HARCookie].self, forKey: .cookies) ?? []
        headers = try container.decodeIfPresent([HARNameValue].self, forKey: .headers) ?? []
        queryString = try container.decodeIfPresent([HARNameValue].self, forKey: .queryString) ?? []
        postData = try container.decodeIfPresent(HARPostData.self, forKey: .postData)
        headersSize = try container.decodeLenientInt(forKey: .headersSize) ?? -1
        bodySize = try container.decodeLenientInt(forKey: .bodySize) ?? -1
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

public struct HARPostData: Codable, Hashable, Sendable {
    public var mimeType: String
    public var text: String?
    public var params: [HARParam]?
    /// Tapedeck: "base64" when `text` holds a binary body in base64 (HAR 1.2 has no such field
    /// for requests; readers that do not know it see base64 text).
    public var encoding: String?
    public var comment: String?

    enum CodingKeys: String, CodingKey {
        case mimeType, text, params, comment
        case encoding = "_encoding"
    }

    public init(mimeType: String, text: String, encoding: String?) {
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        text = try container.decodeIfPresent(String.self, forKey: .text)
        params = try container.decodeIfPresent([HARParam].self, forKey: .params)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

public struct HARParam: Codable, Hashable, Sendable {
    public var name: String
    public var value: String?
    public var fileName: String?
    public var contentType: String?
}

public struct HARResponse: Codable, Hashable, Sendable {
    public var status: Int
    public var statusText: String
    public var httpVersion: String
    public var cookies: [HARCookie]
    public var headers: [HARNameValue]
    public var content: HARContent
    public var redirectURL: String
    public var headersSize: Int
    public var bodySize: Int
    public var comment: String?

    public init(status: Int, statusText: String, headers: [HARNameValue], content: HARContent, redirectURL: String, bodySize: Int) {
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

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decodeLenientInt(forKey: .status) ?? 0
        statusText = try container.decodeIfPresent(String.self, forKey: .statusText) ?? ""
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
        cookies = try container.decodeIfPresent([HARCookie].self, forKey: .cookies) ?? []
        headers = try container.decodeIfPresent([HARNameValue].self, forKey: .headers) ?? []
        content = try container.decodeIfPresent(HARContent.self, forKey: .content) ?? HARContent(size: 0, mimeType: "", text: nil, encoding: nil, bodyForm: nil)
        redirectURL = try container.decodeIfPresent(String.self, forKey: .redirectURL) ?? ""
        headersSize = try container.decodeLenientInt(forKey: .headersSize) ?? -1
        bodySize = try container.decodeLenientInt(forKey: .bodySize) ?? -1
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

public struct HARContent: Codable, Hashable, Sendable {
    public var size: Int
    public var compression: Int?
    public var mimeType: String
    public var text: String?
    /// "base64" when `text` is base64 (binary bodies).
    public var encoding: String?
    public var comment: String?
    /// Tapedeck: "wire" when `text` holds the bytes as sent (still compressed per
    /// Content-Encoding), "decoded" when it holds the decoded bytes (as browsers and mitmproxy
    /// write it). Absent: inferred from the bytes.
    public var bodyForm: String?

    enum CodingKeys: String, CodingKey {
        case size, compression, mimeType, text, encoding, comment
        case bodyForm = "_bodyForm"
    }

    public init(size: Int, mimeType: String, text: String?, encoding: String?, bodyForm: String?) {
        self.size = size
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
        self.bodyForm = bodyForm
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decodeLenientInt(forKey: .size) ?? -1
        compression = try container.decodeLenientInt(forKey: .compression)
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        text = try container.decodeIfPresent(String.self, forKey: .text)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        bodyForm = try container.decodeIfPresent(String.self, forKey: .bodyForm)
    }
}

/// Phase durations in milliseconds; -1 (or absent) means "does not apply".
public struct HARTimings: Codable, Hashable, Sendable {
    public var blocked: Double?
    public var dns: Double?
    public var connect: Double?
    public var send: Double
    public var wait: Double
    public var receive: Double
    public var ssl: Double?
    public var comment: String?

    public init(blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double, wait: Double, receive: Double, ssl: Double? = -1) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        blocked = try container.decodeIfPresent(Double.self, forKey: .blocked)
        dns = try container.decodeIfPresent(Double.self, forKey: .dns)
        connect = try container.decodeIfPresent(Double.self, forKey: .connect)
        send = try container.decodeIfPresent(Double.self, forKey: .send) ?? 0
        wait = try container.decodeIfPresent(Double.self, forKey: .wait) ?? 0
        receive = try container.decodeIfPresent(Double.self, forKey: .receive) ?? 0
        ssl = try container.decodeIfPresent(Double.self, forKey: .ssl)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

/// Tapedeck: a transport error recorded in place of a response.
public struct HARTransportError: Codable, Hashable, Sendable {
    /// The `URLError` code (e.g. -1001 timed out, -1004 cannot connect).
    public var code: Int
    public var domain: String
    public var message: String

    public init(code: Int, domain: String, message: String) {
        self.code = code
        self.domain = domain
        self.message = message
    }
}

extension KeyedDecodingContainer {
    /// An integer that some writers store as a float (`62.0`).
    func decodeLenientInt(forKey key: Key) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(Int.self, forKey: key) { return value }
        let value = try decode(Double.self, forKey: key)
        guard value.isFinite, value.rounded() == value, abs(value) < 1e15 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected an integer, found \(value)")
        }
        return Int(value)
    }
}
