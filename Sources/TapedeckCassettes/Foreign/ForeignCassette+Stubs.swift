public import Foundation
import TapedeckHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// WireMock mappings and Hoverfly simulations: stubs rather than recordings, but what their
// recorders write (WireMock's snapshot, Hoverfly's capture mode) names one exact request per
// answer, which is an interaction. A stub that matches by a pattern names no one request: import
// leaves it out (HAR cannot hold a pattern), a replay keeps it (ForeignCassette+StubPatterns.swift).

extension ForeignCassette {
    /// The origin given to WireMock mappings and to Hoverfly pairs without a `destination`: their
    /// URLs are paths on the stub server. `tapedeck serve` answers any host from a cassette of one
    /// origin; in-process replay needs the host the client calls (import's `--origin`).
    public static let defaultStubOrigin = "http://localhost:8080"

    /// Reads the WireMock mappings or the Hoverfly simulation `root` (from `file`).
    static func stubs(_ root: ForeignNode, file: String, format: Format, origin: String, keepingPatterns: Bool = false) throws(CassetteError) -> Reading {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        // WireMock's bodies: in `__files` beside the `mappings` folder the mapping is in, or
        // beside the mapping; Hoverfly's: relative to the simulation.
        let bodies = format == .hoverfly ? [folder]
            : [folder.deletingLastPathComponent().appendingPathComponent("__files"), folder.appendingPathComponent("__files"), folder]
        let reader = StubReader(file: file, format: format, origin: origin, bodyFolders: bodies, keepsPatterns: keepingPatterns)
        let entries: [ForeignNode]
        if format == .hoverfly {
            // (Before schema v1, `data` was the list of pairs itself.)
            guard let pairs = root["data"]?["pairs"] ?? root["data"], case .list = pairs else {
                throw CassetteError(.json, file: file, reason: "there is no 'data.pairs' list, so this is not a Hoverfly simulation",
                                    hint: "export it with `hoverctl export FILE`")
            }
            entries = pairs.elements
        } else if let list = root["mappings"] {
            guard case .list = list else {
                throw CassetteError(.json, file: file, place: list.line.map { "line \($0)" } ?? "", reason: "'mappings' is not a list",
                                    hint: "check the file holds WireMock mappings")
            }
            entries = StubReader.recordingOrder(list.elements)
        } else if root["request"] != nil {
            entries = [root]   // one mapping per file, as WireMock's mappings folder keeps them
        } else {
            // Named with --from, but in another shape: said, not read as nothing.
            let detected = detect(root).map { ": it looks like \($0.fileNoun) (--from \($0.rawValue))" }
            throw CassetteError(.json, file: file, reason: "there is no 'mappings' list and no 'request', so this is not WireMock mappings",
                                hint: "check --from\(detected ?? "")")
        }
        return read(entries, with: reader, origin: origin)
    }

    /// The `mappings` folder of a WireMock folder: `ROOT/mappings` (its bodies in `ROOT/__files`),
    /// or the folder itself when it is called `mappings`; nil for any other path.
    public static func wireMockMappingsFolder(_ url: URL) -> URL? {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        if url.standardizedFileURL.lastPathComponent == "mappings" { return url }
        let inner = url.appendingPathComponent("mappings")
        guard files.fileExists(atPath: inner.path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        return inner
    }

    /// Every mapping of a WireMock folder (its root, or its `mappings` folder; the `.json` files
    /// under it, one mapping or a `mappings` list each) as one cassette, in recording order.
    /// `keepingPatterns` as for ``load(_:file:format:variables:origin:keepingPatterns:replacing:)``.
    ///
    /// ```swift
    /// let reading = try ForeignCassette.loadWireMock(folder: URL(fileURLWithPath: "src/test/resources/wiremock"),
    ///                                                origin: "https://api.example.com")
    /// ```
    public static func loadWireMock(folder url: URL, origin: String = defaultStubOrigin, keepingPatterns: Bool = false) throws(CassetteError) -> Reading {
        guard let mappings = wireMockMappingsFolder(url) else {
            throw CassetteError(.unreadable, file: url.path, reason: "this is no WireMock folder (no 'mappings' folder in it)",
                                hint: "give WireMock's root folder (mappings/ and __files/) or its mappings folder")
        }
        let paths = (FileManager.default.subpaths(atPath: mappings.path) ?? []).filter { $0.lowercased().hasSuffix(".json") }.sorted()
        var nodes: [ForeignNode] = []
        for path in paths {
            let file = mappings.appendingPathComponent(path)
            let data: Data
            do {
                data = try Data(contentsOf: file)
            } catch {
                throw CassetteError(.unreadable, file: file.path, reason: "cannot read: \(error.localizedDescription)", hint: "check the file's permissions")
            }
            switch ForeignNode.parse(data) {
            case let .success(root):
                if let list = root["mappings"] { nodes += list.elements } else { nodes.append(root) }
            case let .failure(failure):
                throw CassetteError(.json, file: file.path, place: failure.line.map { "line \($0)" } ?? "", reason: failure.reason,
                                    hint: "fix or remove this mapping file")
            }
        }
        let reader = StubReader(file: mappings.path, format: .wiremock, origin: origin,
                                bodyFolders: [mappings.deletingLastPathComponent().appendingPathComponent("__files"), mappings.appendingPathComponent("__files")],
                                keepsPatterns: keepingPatterns)
        return read(StubReader.recordingOrder(nodes), with: reader, origin: origin)
    }

    private static func read(_ entries: [ForeignNode], with reader: StubReader, origin: String) -> Reading {
        var reader = reader
        var cassette = Cassette()
        for (position, entry) in entries.enumerated() {
            do throws(CassetteError) {
                var interaction = try reader.format == .hoverfly ? reader.hoverfly(entry, position: position) : reader.wireMock(entry, position: position)
                interaction.index = cassette.interactions.count
                cassette.interactions.append(interaction)
            } catch {
                cassette.skipped.append(SkippedEntry(position: position, method: reader.current.method, url: reader.current.url, error: error))
            }
        }
        cassette.notes = reader.notes
        var reading = Reading(cassette: cassette, format: reader.format)
        if reader.format == .wiremock || reader.usedOrigin {
            reading.remarks.append("its URLs are paths on the stub server: they were given the origin \(origin) "
                                   + "(tapedeck serve answers any host from it; for in-process replay, import with --origin the URL your client calls)")
        }
        return reading
    }

    /// Reads one WireMock mapping or Hoverfly pair at a time, collecting what it assumed.
    struct StubReader {
        let file: String
        let format: Format
        let origin: String
        /// Where body files are looked for, in order.
        let bodyFolders: [URL]
        private(set) var notes: [LoadNote] = []
        /// The entry being read, for its notes and for a skipped entry's label.
        var current = (position: 0, method: "", url: "")
        /// Whether a Hoverfly pair without a destination was given ``origin``.
        var usedOrigin = false
        /// Whether a stub matching by pattern becomes an interaction with its ``Interaction/pattern``
        /// (a file read as it is, for replay) rather than being left out (import, into HAR).
        let keepsPatterns: Bool

        init(file: String, format: Format, origin: String, bodyFolders: [URL], keepsPatterns: Bool = false) {
            self.file = file
            self.format = format
            self.keepsPatterns = keepsPatterns
            self.origin = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
            self.bodyFolders = bodyFolders
        }

        func bad(_ field: String, _ node: ForeignNode?, _ reason: String, hint: String? = nil) -> CassetteError {
            CassetteError(.entry, file: file, place: "entry \(current.position) (\(field))" + (node?.line.map { ", line \($0)" } ?? ""),
                          reason: reason, hint: hint ?? "fix or remove this stub in the \(format.title) file")
        }

        /// A stub that matches by pattern, where HAR is written (import): left out, saying where it works.
        func byPattern(_ field: String, _ node: ForeignNode?, _ reason: String) -> CassetteError {
            bad(field, node, reason, hint: "HAR cannot hold a pattern: `tapedeck serve` and in-process replay read the \(format.title) file "
                + "as it is and answer by it (or write a scenario stub route, docs/scenarios.md)")
        }

        mutating func note(_ field: String, _ text: String) {
            notes.append(LoadNote(position: current.position, field: field, method: current.method, url: current.url, text: text))
        }

        // MARK: WireMock

        /// Mappings in the order they were recorded: by `insertionIndex` when every mapping has
        /// one, and each scenario's mappings (`scenarioName`, a recorder's answers to one request
        /// repeated) in the order its states go from `Started`.
        static func recordingOrder(_ mappings: [ForeignNode]) -> [ForeignNode] {
            var ordered = mappings
            if mappings.allSatisfy({ $0["insertionIndex"]?.int != nil }) {
                ordered = mappings.enumerated().sorted { ($0.element["insertionIndex"]!.int!, $0.offset) < ($1.element["insertionIndex"]!.int!, $1.offset) }.map(\.element)
            }
            var slots: [String: [Int]] = [:]
            for (slot, mapping) in ordered.enumerated() {
                if let name = mapping["scenarioName"]?.string { slots[name, default: []].append(slot) }
            }
            for (_, places) in slots where places.count > 1 {
                var left = places.map { ordered[$0] }
                var chain: [ForeignNode] = []
                var state = "Started"
                while let next = left.firstIndex(where: { ($0["requiredScenarioState"]?.string ?? "Started") == state }) {
                    let mapping = left.remove(at: next)
                    chain.append(mapping)
                    guard let following = mapping["newScenarioState"]?.string else { break }
                    state = following
                }
                for (place, mapping) in zip(places, chain + left) { ordered[place] = mapping }
            }
            return ordered
        }

        /// Mapping `position` as an interaction (its index is set by the caller).
        mutating func wireMock(_ mapping: ForeignNode, position: Int) throws(CassetteError) -> Interaction {
            current = (position, "", "")
            guard case .map = mapping, let request = mapping["request"], let response = mapping["response"] else {
                throw bad("", mapping, "a mapping needs a 'request' and a 'response'")
            }
            var method = request["method"]?.string?.uppercased() ?? "ANY"
            let target: String
            var pattern: StubPattern?
            // Read as it is, a stub with an exact URL but other matchers (a GraphQL endpoint's
            // stubs told apart by body) answers by them, unless a scenario chain orders it.
            let namesItsRequest = keepsPatterns && mapping["scenarioName"] == nil && !Self.wireMockMatchesByPattern(request)
                && Self.wireMockHasMatchers(request)
            if keepsPatterns, Self.wireMockMatchesByPattern(request) {
                // Answers what it matches; its request, at the origin's root, only shows it.
                let made = try wireMockPattern(request, method: method == "ANY" ? nil : method, priority: mapping["priority"]?.int)
                (pattern, target) = (made, "/")
                current = (position, method, made.shown)
            } else if let url = request["url"]?.string {
                target = url
            } else if let path = request["urlPath"]?.string {
                target = path + query(request["queryParameters"], field: "request.queryParameters")
            } else {
                let key = ["urlPattern", "urlPathPattern", "urlPathTemplate"].first { request[$0] != nil }
                current.url = request[key ?? "url"]?.string ?? ""
                guard let key else { throw bad("request.url", request["url"], "it names no URL") }
                throw byPattern("request.\(key)", request[key], "it matches URLs by a pattern ('\(key)'), not one URL")
            }
            guard let url = LenientURL.parse(origin + (target.hasPrefix("/") ? target : "/" + target)) else {
                throw bad("request.url", request["url"] ?? request["urlPath"], "'\(target)' is not a path and query")
            }
            if pattern == nil { current = (position, method, url.absoluteString) }
            if namesItsRequest {
                var made = try wireMockPattern(request, method: method == "ANY" ? nil : method, priority: mapping["priority"]?.int)
                made.namesItsRequest = true
                pattern = made
            }
            if method == "ANY" {
                method = "GET"
                if pattern == nil { note("request.method", "ANY (any method) imported as GET: a client sending another method misses it") }
            }
            if request["url"] != nil, request["queryParameters"] != nil {
                note("request.queryParameters", "beside 'url', which names the whole query, these add nothing: left out")
            }
            var headers: [HeaderField] = []
            for (name, matcher) in request["headers"]?.pairs ?? [] {
                if let value = matcher["equalTo"]?.string {
                    headers.append(HeaderField(name, value))
                } else if pattern == nil {
                    note("request.headers.\(name)", "matched by \(matcher.firstKey ?? "a matcher"), not a value: left out of the request "
                         + "(replay does not match header fields unless told to)")
                }
            }
            // WireMock writes `basicAuthCredentials` and reads `basicAuth` too.
            if let credentials = request["basicAuthCredentials"] ?? request["basicAuth"], let user = credentials["username"]?.string {
                let pair = Data((user + ":" + (credentials["password"]?.string ?? "")).utf8).base64EncodedString()
                headers.append(HeaderField("Authorization", "Basic " + pair))
            }
            let named = pattern == nil || namesItsRequest
            let body = named ? wireMockRequestBody(request["bodyPatterns"], noting: !namesItsRequest) : nil
            let recordedRequest = RecordedRequest(method: method, url: url, headers: named ? headers : [], body: body)

            if let proxy = response["proxyBaseUrl"]?.string {
                throw bad("response.proxyBaseUrl", response["proxyBaseUrl"], "it forwards to \(proxy) instead of answering: there is no answer to import")
            }
            let delay = wireMockDelay(response)
            if let fault = response["fault"]?.string {
                var interaction = Interaction(index: position, startedDateTime: ForeignDates.epoch, request: recordedRequest,
                                              outcome: .failure(Self.failure(wireMockFault: fault)), timings: delay.map { ExchangeTimings(wait: $0) })
                interaction.pattern = pattern
                return interaction
            }
            let status = response["status"]?.int ?? 200
            guard (200...999).contains(status) else { throw bad("response.status", response["status"], "status \(status) is not one a request ends with") }
            let responseHeaders = ForeignCassette.EntryReader.headerFields(response["headers"])
            var data = Data()
            var asBytes = false
            if let text = response["body"]?.string {
                data = Data(text.utf8)
            } else if let json = response["jsonBody"], !json.isNull {
                data = Data(json.jsonText().utf8)
            } else if let base64 = response["base64Body"]?.string {
                guard let bytes = ForeignNode.base64(base64) else { throw bad("response.base64Body", response["base64Body"], "it is not base64") }
                (data, asBytes) = (bytes, true)
            } else if let name = response["bodyFileName"]?.string {
                (data, asBytes) = (try bodyFile(name, field: "response.bodyFileName", node: response["bodyFileName"]), true)
            }
            if let transformers = response["transformers"]?.elements.compactMap(\.string), transformers.contains("response-template") {
                note("response.transformers", "a response template ({{request.…}} helpers): replays as written, not filled in")
            }
            var interaction = Interaction(index: position, startedDateTime: ForeignDates.epoch, request: recordedRequest,
                                          outcome: .response(recordedResponse(status, response["statusMessage"]?.string ?? "", responseHeaders, data, asBytes: asBytes)),
                                          timings: delay.map { ExchangeTimings(wait: $0) })
            interaction.pattern = pattern
            return interaction
        }

        /// A query string from WireMock's `queryParameters` (`equalTo`, or `hasExactly`/`includes`
        /// lists of them); a parameter matched by a pattern is left out, with a note.
        private mutating func query(_ parameters: ForeignNode?, field: String) -> String {
            var items: [String] = []
            for (name, matcher) in parameters?.pairs ?? [] {
                let values = (matcher["hasExactly"] ?? matcher["includes"])?.elements.compactMap { $0["equalTo"]?.string }
                    ?? matcher["equalTo"]?.string.map { [$0] } ?? []
                if values.isEmpty {
                    note(field + "." + name, "matched by a pattern or by absence: left out of the URL")
                }
                for value in values { items.append(ForeignCassette.formEscaped(name) + "=" + ForeignCassette.formEscaped(value)) }
            }
            return items.isEmpty ? "" : "?" + items.joined(separator: "&")
        }

        /// The request body an exact body pattern gives (`equalTo`, `equalToJson`, `equalToXml`,
        /// `binaryEqualTo`); none, with a note, when only patterns match it.
        private mutating func wireMockRequestBody(_ patterns: ForeignNode?, noting: Bool = true) -> Data? {
            guard let patterns, !patterns.elements.isEmpty else { return nil }
            for pattern in patterns.elements {
                for key in ["equalTo", "equalToJson", "equalToXml"] {
                    if let value = pattern[key] { return Data((value.string ?? value.jsonText()).utf8) }
                }
                if let base64 = pattern["binaryEqualTo"]?.string, let data = ForeignNode.base64(base64) { return data }
            }
            if noting { note("request.bodyPatterns", "the body is matched by patterns only: imported without one (replay does not match bodies unless told to)") }
            return nil
        }

        private mutating func wireMockDelay(_ response: ForeignNode) -> Duration? {
            if let fixed = response["fixedDelayMilliseconds"]?.double, fixed > 0, fixed < 86_400_000 { return .milliseconds(Int64(fixed)) }
            guard let distribution = response["delayDistribution"] else { return nil }
            // A random delay: its median (lognormal) or middle (uniform), noted.
            var middle = distribution["median"]?.double
            if middle == nil, let lower = distribution["lower"]?.double, let upper = distribution["upper"]?.double { middle = (lower + upper) / 2 }
            guard let middle, middle > 0, middle < 86_400_000 else { return nil }
            note("response.delayDistribution", "a random delay: replayed as its middle, \(Int(middle)) ms (a scenario's latency ± jitter draws one per seed)")
            return .milliseconds(Int64(middle))
        }

        /// WireMock's `fault` as the failure a URLSession client would see.
        static func failure(wireMockFault fault: String) -> RecordedFailure {
            let text = switch fault.uppercased() {
            case "CONNECTION_RESET_BY_PEER": "connection reset by peer (WireMock fault \(fault))"
            case "EMPTY_RESPONSE": "connection closed: an empty response (WireMock fault \(fault))"
            case "MALFORMED_RESPONSE_CHUNK": "connection closed: an incomplete response, a malformed chunk (WireMock fault \(fault))"
            default: "bad server response: random data, then closed (WireMock fault \(fault))"
            }
            return ForeignFailure.failure(text: text, status: 0)
        }

        /// A body kept in a file of its own (WireMock's `bodyFileName`, Hoverfly's `bodyFile`),
        /// looked for in ``bodyFolders``. Only a regular file inside one of them is read, as
        /// WireMock reads only its files folder: a cassette from elsewhere must not make an import
        /// or `serve` hand out `../../.aws/credentials`, nor wait on a pipe.
        func bodyFile(_ name: String, field: String, node: ForeignNode?) throws(CassetteError) -> Data {
            guard !name.hasPrefix("/"), !name.split(separator: "/").contains("..") else {
                throw bad(field, node, "its body file '\(name)' is outside the stubs' files folder (an absolute path, or one through '..'): not read")
            }
            var looked: [String] = []
            for folder in bodyFolders {
                let root = folder.resolvingSymlinksInPath().standardizedFileURL.path
                let url = folder.appendingPathComponent(name).resolvingSymlinksInPath().standardizedFileURL
                looked.append(url.path)
                var info = stat()
                guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                guard url.path.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
                    throw bad(field, node, "its body file '\(name)' leads outside the stubs' files folder (a link): not read")
                }
                guard info.st_size <= Int64(Self.largestBodyFile) else {
                    throw bad(field, node, "its body file '\(name)' holds \(info.st_size) bytes, more than a cassette's body may (\(Self.largestBodyFile >> 20) MiB)")
                }
                if let data = try? Data(contentsOf: url) { return data }
            }
            throw bad(field, node, "its body file is not there (looked for \(looked.joined(separator: ", ")))")
        }

        /// The largest body file read (256 MiB).
        static let largestBodyFile = 256 << 20

        // MARK: Both

        func recordedResponse(_ status: Int, _ reason: String, _ headers: [HeaderField], _ data: Data, asBytes: Bool) -> RecordedResponse {
            let length = headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            let form = HARCodec.inferredForm(data, contentEncoding: headers.value(for: "Content-Encoding"), storedAsBytes: asBytes, announced: length)
            return RecordedResponse(status: status, statusText: reason, headers: headers, body: data, bodyForm: form)
        }
    }
}
