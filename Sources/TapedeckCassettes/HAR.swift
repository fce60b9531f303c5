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
    /// Every entry of the file, in file order. An entry that could not be decoded at all keeps its
    /// place as a placeholder whose ``HAREntry/unreadable`` says why (so positions stay the file's).
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

    /// Lenient where real tools differ (a missing version or creator), and per entry: one entry
    /// that does not decode becomes an unreadable placeholder instead of failing the file.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(String.self, forKey: .version) ?? "1.2"
        creator = (try? container.decodeIfPresent(HARCreator.self, forKey: .creator)) ?? HARCreator(name: "unknown", version: "")
        browser = try? container.decodeIfPresent(HARCreator.self, forKey: .browser)
        comment = try? container.decodeIfPresent(String.self, forKey: .comment)
        tapedeck = try container.decodeIfPresent(HARTapedeckInfo.self, forKey: .tapedeck)
        entries = try container.decode([LenientEntry].self, forKey: .entries).map(\.entry)
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

/// A cookie as HAR lists it. Readers skip `cookies` arrays — tools disagree on their fields'
/// types (`expires` as a date string, a number or null), and the `Cookie` and `Set-Cookie`
/// headers carry the same data — so a read document always has empty cookie lists.
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
    /// Why this entry could not be decoded (a placeholder keeping the entry's place); nil for
    /// every entry that decoded. Never written.
    public var unreadable: HARUnreadable?

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

    /// A placeholder for an entry that could not be decoded: `reason` says why.
    public static func unreadable(_ reason: HARUnreadable) -> HAREntry {
        var entry = HAREntry(
            startedDateTime: "", time: -1, request: HARRequest(method: "", url: "", headers: [], queryString: [], postData: nil, bodySize: -1),
            response: HARResponse(status: 0, statusText: "", headers: [], content: HARContent(size: -1, mimeType: "", text: nil, encoding: nil, bodyForm: nil),
                                  redirectURL: "", bodySize: -1),
            timings: HARTimings(send: 0, wait: 0, receive: 0), index: nil, error: nil)
        entry.unreadable = reason
        return entry
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
