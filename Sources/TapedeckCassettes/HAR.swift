// The HAR 1.2 document as JSON (http://www.softwareishard.com/blog/har-12-spec/), read leniently —
// browsers, mitmproxy and other tools each leave out or add different fields — and written with
// every field HAR requires. Tapedeck's own data lives under `_`-prefixed keys, which HAR allows.

/// A whole HAR file: `{"log": {...}}`.
package struct HARDocument: Codable, Hashable, Sendable {
    package var log: HARLog

    package init(log: HARLog) {
        self.log = log
    }
}

package struct HARLog: Codable, Hashable, Sendable {
    package var version: String
    package var creator: HARCreator
    package var browser: HARCreator?
    /// Every entry of the file, in file order. An entry that could not be decoded at all keeps its
    /// place as a placeholder whose ``HAREntry/unreadable`` says why (so positions stay the file's).
    package var entries: [HAREntry]
    package var comment: String?
    /// Tapedeck's format data (absent in HAR files other tools wrote).
    package var tapedeck: HARTapedeckInfo?

    enum CodingKeys: String, CodingKey {
        case version, creator, browser, entries, comment
        case tapedeck = "_tapedeck"
    }

    package init(version: String = "1.2", creator: HARCreator, entries: [HAREntry], tapedeck: HARTapedeckInfo?) {
        self.version = version
        self.creator = creator
        self.entries = entries
        self.tapedeck = tapedeck
    }

    /// Lenient where real tools differ (a missing version or creator), and per entry: one entry
    /// that does not decode becomes an unreadable placeholder instead of failing the file.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let number = try? container.decode(Double.self, forKey: .version) {
            version = Self.versionText(number)
        } else {
            version = try container.decodeIfPresent(String.self, forKey: .version) ?? "1.2"
        }
        creator = (try? container.decodeIfPresent(HARCreator.self, forKey: .creator)) ?? HARCreator(name: "unknown", version: "")
        browser = try? container.decodeIfPresent(HARCreator.self, forKey: .browser)
        comment = try? container.decodeIfPresent(String.self, forKey: .comment)
        tapedeck = try container.decodeIfPresent(HARTapedeckInfo.self, forKey: .tapedeck)
        entries = try container.decode([LenientEntry].self, forKey: .entries).map(\.entry)
    }

    /// A `version` written as a JSON number (newman-reporter-har passes `1.2`, a number) as the
    /// text HAR gives it: `1.2` → "1.2", `1` → "1.0".
    static func versionText(_ number: Double) -> String {
        "\(number)"
    }
}
package struct HARTapedeckInfo: Codable, Hashable, Sendable {
    /// The version of Tapedeck's additions (`_`-keys and their meaning).
    package var formatVersion: Int

    package init(formatVersion: Int) {
        self.formatVersion = formatVersion
    }
}

package struct HARCreator: Codable, Hashable, Sendable {
    package var name: String
    package var version: String
    package var comment: String?

    package init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

package struct HARNameValue: Codable, Hashable, Sendable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// One `{name, value}` item of a header or query list as read: Polly.JS 1.x writes a field that
/// occurred several times as one item whose `value` is an array of strings; it becomes one pair
/// per element, so repeated fields stay repeated (both readers do this). A number or boolean
/// value (Polly.JS 5's `content-length: 344`) is read as the text it spells.
struct HARNameValueItem: Decodable {
    let pairs: [HARNameValue]

    private enum CodingKeys: String, CodingKey {
        case name, value
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .name)
        if try container.decodeNil(forKey: .value) {
            pairs = []   // a field whose value is null is left out, as the fast reader leaves it
        } else if let values = try? container.decode([String].self, forKey: .value) {
            pairs = values.map { HARNameValue(name: name, value: $0) }
        } else if let number = try? container.decode(Int.self, forKey: .value) {
            pairs = [HARNameValue(name: name, value: String(number))]   // Polly.JS 5's `content-length`
        } else if let flag = try? container.decode(Bool.self, forKey: .value) {
            pairs = [HARNameValue(name: name, value: String(flag))]
        } else {
            pairs = [HARNameValue(name: name, value: try container.decode(String.self, forKey: .value))]
        }
    }
}

extension KeyedDecodingContainer {
    /// A header or query list (absent or null: empty), array-valued items split (``HARNameValueItem``).
    func decodeNameValues(forKey key: Key) throws -> [HARNameValue] {
        try decodeIfPresent([HARNameValueItem].self, forKey: key)?.flatMap(\.pairs) ?? []
    }
}

/// A cookie as HAR lists it. Readers skip `cookies` arrays — tools disagree on their fields'
/// types (`expires` as a date string, a number or null), and the `Cookie` and `Set-Cookie`
/// headers carry the same data — so a read document always has empty cookie lists.
package struct HARCookie: Codable, Hashable, Sendable {
    package var name: String
    package var value: String
    package var path: String?
    package var domain: String?
    package var expires: String?
    package var httpOnly: Bool?
    package var secure: Bool?
    package var sameSite: String?
}

package struct HAREntry: Codable, Hashable, Sendable {
    package var startedDateTime: String
    /// Total time in milliseconds.
    package var time: Double
    package var request: HARRequest
    package var response: HARResponse
    package var cache: HARCache
    package var timings: HARTimings
    package var serverIPAddress: String?
    package var connection: String?
    package var comment: String?
    /// Tapedeck: the entry's position in the recording (identical requests replay in this order).
    package var index: Int?
    /// Tapedeck: the transport error that ended the exchange instead of a response.
    package var error: HARTransportError?
    /// WebPageTest's `_was_pushed`: the server pushed this resource (HTTP/2 server push) rather
    /// than the page asking for it. Read, never written.
    package var wasPushed = false
    /// Why this entry could not be decoded (a placeholder keeping the entry's place); nil for
    /// every entry that decoded. Never written.
    package var unreadable: HARUnreadable?

    enum CodingKeys: String, CodingKey {
        case startedDateTime, time, request, response, cache, timings, serverIPAddress, connection, comment
        case index = "_index"
        case error = "_error"
    }

    /// Keys read and never written.
    private enum ReadOnlyKeys: String, CodingKey {
        case wasPushed = "_was_pushed"
    }

    package init(
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
    package static func unreadable(_ reason: HARUnreadable) -> HAREntry {
        var entry = HAREntry(
            startedDateTime: "", time: -1, request: HARRequest(method: "", url: "", headers: [], queryString: [], postData: nil, bodySize: -1),
            response: HARResponse(status: 0, statusText: "", headers: [], content: HARContent(size: -1, mimeType: "", text: nil, encoding: nil, bodyForm: nil),
                                  redirectURL: "", bodySize: -1),
            timings: HARTimings(send: 0, wait: 0, receive: 0), index: nil, error: nil)
        entry.unreadable = reason
        return entry
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        startedDateTime = try container.decodeIfPresent(String.self, forKey: .startedDateTime) ?? ""
        time = try container.decodeLenientDouble(forKey: .time) ?? -1
        request = try container.decode(HARRequest.self, forKey: .request)
        response = try container.decode(HARResponse.self, forKey: .response)
        cache = try container.decodeIfPresent(HARCache.self, forKey: .cache) ?? HARCache()
        timings = try container.decodeIfPresent(HARTimings.self, forKey: .timings) ?? HARTimings(send: 0, wait: 0, receive: 0)
        serverIPAddress = try container.decodeIfPresent(String.self, forKey: .serverIPAddress)
        connection = try container.decodeIfPresent(String.self, forKey: .connection)
        comment = (try? container.decodeIfPresent(String.self, forKey: .comment)) ?? nil
        index = try container.decodeIfPresent(Int.self, forKey: .index)
        let readOnly = try decoder.container(keyedBy: ReadOnlyKeys.self)
        if let flag = try? readOnly.decodeIfPresent(Bool.self, forKey: .wasPushed) {
            wasPushed = flag
        } else if let number = try? readOnly.decodeIfPresent(Double.self, forKey: .wasPushed) {
            wasPushed = number != 0
        } else if let text = try? readOnly.decodeIfPresent(String.self, forKey: .wasPushed) {
            wasPushed = text == "1" || text == "true"
        }
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
package struct HARCache: Codable, Hashable, Sendable {
    package init() {}
}
