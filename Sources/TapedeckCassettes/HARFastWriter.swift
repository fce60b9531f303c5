import Foundation

/// Writes the ``HARDocument`` model as JSON byte for byte the way Foundation's JSONEncoder does
/// with `.sortedKeys` and `.withoutEscapingSlashes` (pretty-printed or compact), at several times
/// its speed: keys are emitted in their sorted order by hand, strings are copied in runs.
/// A test holds the two outputs equal, so cassettes written before and after stay identical.
enum HARFastWriter {
    static func encode(_ document: HARDocument, pretty: Bool) -> Data {
        var whole = Data()
        encode(document, pretty: pretty, chunkSize: nil) { whole = $0 }
        return whole
    }

    /// Streams the document to `emit` in consecutive pieces of about `chunkSize` bytes (nil: one
    /// piece), ending with a newline when pretty-printed, so a compressor can work beside it.
    static func encode(_ document: HARDocument, pretty: Bool, chunkSize: Int?, emit: (Data) -> Void) {
        withoutActuallyEscaping(emit) { emit in
            var writer = JSONWriter(pretty: pretty, chunkSize: chunkSize, emit: emit)
            writer.object { writer in
                writer.key("log") { writer in log(document.log, &writer) }
            }
            if pretty { writer.newline() }
            writer.flush()
        }
    }

    /// One entry, compact (a journal record).
    static func encode(_ entry: HAREntry) -> Data {
        var line = Data()
        var writer = JSONWriter(pretty: false, chunkSize: nil) { line = $0 }
        self.entry(entry, &writer)
        writer.flush()
        return line
    }

    private static func log(_ log: HARLog, _ writer: inout JSONWriter) {
        writer.object { writer in
            if let tapedeck = log.tapedeck {
                writer.key("_tapedeck") { writer in
                    writer.object { writer in writer.key("formatVersion") { $0.int(tapedeck.formatVersion) } }
                }
            }
            if let browser = log.browser { writer.key("browser") { writer in creator(browser, &writer) } }
            if let comment = log.comment { writer.key("comment") { $0.string(comment) } }
            writer.key("creator") { writer in creator(log.creator, &writer) }
            writer.key("entries") { writer in
                writer.array(log.entries) { writer, entry in self.entry(entry, &writer) }
            }
            writer.key("version") { $0.string(log.version) }
        }
    }

    private static func creator(_ creator: HARCreator, _ writer: inout JSONWriter) {
        writer.object { writer in
            if let comment = creator.comment { writer.key("comment") { $0.string(comment) } }
            writer.key("name") { $0.string(creator.name) }
            writer.key("version") { $0.string(creator.version) }
        }
    }

    private static func entry(_ entry: HAREntry, _ writer: inout JSONWriter) {
        writer.object { writer in
            if let error = entry.error {
                writer.key("_error") { writer in
                    writer.object { writer in
                        writer.key("code") { $0.int(error.code) }
                        writer.key("domain") { $0.string(error.domain) }
                        writer.key("message") { $0.string(error.message) }
                    }
                }
            }
            if let index = entry.index { writer.key("_index") { $0.int(index) } }
            writer.key("cache") { $0.object { _ in } }
            if let comment = entry.comment { writer.key("comment") { $0.string(comment) } }
            if let connection = entry.connection { writer.key("connection") { $0.string(connection) } }
            writer.key("request") { writer in request(entry.request, &writer) }
            writer.key("response") { writer in response(entry.response, &writer) }
            if let address = entry.serverIPAddress { writer.key("serverIPAddress") { $0.string(address) } }
            writer.key("startedDateTime") { $0.string(entry.startedDateTime) }
            writer.key("time") { $0.double(entry.time) }
            writer.key("timings") { writer in timings(entry.timings, &writer) }
        }
    }

    private static func nameValues(_ list: [HARNameValue], _ writer: inout JSONWriter) {
        writer.array(list) { writer, pair in
            writer.object { writer in
                writer.key("name") { $0.string(pair.name) }
                writer.key("value") { $0.string(pair.value) }
            }
        }
    }

    private static func cookies(_ list: [HARCookie], _ writer: inout JSONWriter) {
        writer.array(list) { writer, cookie in
            writer.object { writer in
                if let domain = cookie.domain { writer.key("domain") { $0.string(domain) } }
                if let expires = cookie.expires { writer.key("expires") { $0.string(expires) } }
                if let httpOnly = cookie.httpOnly { writer.key("httpOnly") { $0.bool(httpOnly) } }
                writer.key("name") { $0.string(cookie.name) }
                if let path = cookie.path { writer.key("path") { $0.string(path) } }
                if let sameSite = cookie.sameSite { writer.key("sameSite") { $0.string(sameSite) } }
                if let secure = cookie.secure { writer.key("secure") { $0.bool(secure) } }
                writer.key("value") { $0.string(cookie.value) }
            }
        }
    }

    private static func request(_ request: HARRequest, _ writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("bodySize") { $0.int(request.bodySize) }
            if let comment = request.comment { writer.key("comment") { $0.string(comment) } }
            writer.key("cookies") { writer in cookies(request.cookies, &writer) }
            writer.key("headers") { writer in nameValues(request.headers, &writer) }
            writer.key("headersSize") { $0.int(request.headersSize) }
            writer.key("httpVersion") { $0.string(request.httpVersion) }
            writer.key("method") { $0.string(request.method) }
            if let postData = request.postData {
                writer.key("postData") { writer in
                    writer.object { writer in
                        if let comment = postData.comment { writer.key("comment") { $0.string(comment) } }
                        if let encoding = postData.encoding { writer.key("encoding") { $0.string(encoding) } }
                        writer.key("mimeType") { $0.string(postData.mimeType) }
                        if let params = postData.params {
                            writer.key("params") { writer in
                                writer.array(params) { writer, param in
                                    writer.object { writer in
                                        if let type = param.contentType { writer.key("contentType") { $0.string(type) } }
                                        if let name = param.fileName { writer.key("fileName") { $0.string(name) } }
                                        writer.key("name") { $0.string(param.name) }
                                        if let value = param.value { writer.key("value") { $0.string(value) } }
                                    }
                                }
                            }
                        }
                        if let text = postData.text { writer.key("text") { $0.string(text) } }
                    }
                }
            }
            writer.key("queryString") { writer in nameValues(request.queryString, &writer) }
            writer.key("url") { $0.string(request.url) }
        }
    }

    private static func response(_ response: HARResponse, _ writer: inout JSONWriter) {
        writer.object { writer in
            if let chunks = response.chunks {
                writer.key("_chunks") { writer in
                    writer.array(chunks) { writer, chunk in
                        writer.object { writer in
                            writer.key("bytes") { $0.int(chunk.bytes) }
                            writer.key("time") { $0.double(chunk.time) }
                        }
                    }
                }
            }
            if let failure = response.failureText { writer.key("_error") { $0.string(failure) } }
            writer.key("bodySize") { $0.int(response.bodySize) }
            if let comment = response.comment { writer.key("comment") { $0.string(comment) } }
            writer.key("content") { writer in
                let content = response.content
                writer.object { writer in
                    if let form = content.bodyForm { writer.key("_bodyForm") { $0.string(form) } }
                    if let wire = content.wire { writer.key("_wire") { $0.string(wire) } }
                    if let comment = content.comment { writer.key("comment") { $0.string(comment) } }
                    if let compression = content.compression { writer.key("compression") { $0.int(compression) } }
                    if let encoding = content.encoding { writer.key("encoding") { $0.string(encoding) } }
                    writer.key("mimeType") { $0.string(content.mimeType) }
                    writer.key("size") { $0.int(content.size) }
                    if let text = content.text { writer.key("text") { $0.string(text) } }
                }
            }
            writer.key("cookies") { writer in cookies(response.cookies, &writer) }
            writer.key("headers") { writer in nameValues(response.headers, &writer) }
            writer.key("headersSize") { $0.int(response.headersSize) }
            writer.key("httpVersion") { $0.string(response.httpVersion) }
            writer.key("redirectURL") { $0.string(response.redirectURL) }
            writer.key("status") { $0.int(response.status) }
            writer.key("statusText") { $0.string(response.statusText) }
        }
    }

    private static func timings(_ timings: HARTimings, _ writer: inout JSONWriter) {
        writer.object { writer in
            if let blocked = timings.blocked { writer.key("blocked") { $0.double(blocked) } }
            if let comment = timings.comment { writer.key("comment") { $0.string(comment) } }
            if let connect = timings.connect { writer.key("connect") { $0.double(connect) } }
            if let dns = timings.dns { writer.key("dns") { $0.double(dns) } }
            writer.key("receive") { $0.double(timings.receive) }
            writer.key("send") { $0.double(timings.send) }
            if let ssl = timings.ssl { writer.key("ssl") { $0.double(ssl) } }
            writer.key("wait") { $0.double(timings.wait) }
        }
    }
}

/// JSON output in JSONEncoder's layout: two-space indents, `"key" : value`, empty containers as
/// an open bracket, a blank line and the closing bracket.
struct JSONWriter {
    private var bytes: [UInt8] = []
    private let pretty: Bool
    private var level = 0
    /// Whether the container being written has an element yet, per open container.
    private var started: [Bool] = []
    private let chunkSize: Int
    private let emit: (Data) -> Void

    init(pretty: Bool, chunkSize: Int?, emit: @escaping (Data) -> Void) {
        self.pretty = pretty
        self.chunkSize = chunkSize ?? .max
        self.emit = emit
        bytes.reserveCapacity(min(self.chunkSize, 1 << 16) + 1 << 16)
    }

    /// Hands over what is written so far.
    mutating func flush() {
        emit(Data(bytes))
        bytes.removeAll(keepingCapacity: true)
    }

    mutating func newline() {
        bytes.append(0x0A)
    }

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    mutating func array<Element>(_ elements: [Element], _ body: (inout JSONWriter, Element) -> Void) {
        open(UInt8(ascii: "["))
        for element in elements {
            separate()
            body(&self, element)
        }
        close(UInt8(ascii: "]"))
    }

    mutating func key(_ name: StaticString, _ value: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        if pretty {
            bytes.append(contentsOf: [0x20, UInt8(ascii: ":"), 0x20])
        } else {
            bytes.append(UInt8(ascii: ":"))
        }
        value(&self)
    }

    mutating func int(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// As JSONEncoder prints a Double: its shortest description, without a trailing `.0`.
    mutating func double(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0x08: bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
                case 0x0C: bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        level += 1
        started.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let hadElements = started.removeLast()
        level -= 1
        if pretty {
            bytes.append(0x0A)
            if !hadElements { bytes.append(0x0A) }
            indent()
        }
        bytes.append(bracket)
    }

    /// Before an element or key: a comma after the previous one, then a new indented line.
    private mutating func separate() {
        if bytes.count >= chunkSize { flush() }
        if started[started.count - 1] {
            bytes.append(UInt8(ascii: ","))
        } else {
            started[started.count - 1] = true
        }
        if pretty {
            bytes.append(0x0A)
            indent()
        }
    }

    private mutating func indent() {
        for _ in 0..<level { bytes.append(contentsOf: [0x20, 0x20]) }
    }
}
