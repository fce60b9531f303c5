import Foundation
import TapedeckCassettes

/// Turns a scenario file's YAML nodes into a ``Scenario``, key by key (the schema in
/// docs/scenarios.md is this file's `allowed` lists).
struct ScenarioReader {
    let file: String
    /// Where relative paths (cassettes, body files) resolve.
    let base: URL?
    /// The script's requests as names and the patterns that match them, read ahead of the script
    /// so that a pattern that is really a request's name can be corrected ("did you mean ...").
    var requestPatterns: [(name: String, pattern: String)] = []
    /// The provider's target names as the file spells them (see ``declaredTargets(in:)``).
    var declaredTargets: Set<String>?
    /// Every file the file names (cassette, body files), as paths were resolved.
    let named = NamedFiles()

    /// The keys a scenario file may have at its top (a fault plan file reads the same ones).
    static let topKeys = ["$schema", "name", "description", "seed", "traffic", "client", "script", "faults", "expect", "schedule", "_test"]

    /// A file's top-level mapping (a scenario's or a fault plan's), its fields reporting what can
    /// be read past to `problems`; a top that is no mapping stops at once, with what was noted.
    static func topFields(of root: Field, problems: Problems) throws(ScenarioError) -> Fields {
        var root = root
        root.problems = problems
        do {
            return try root.mapping(topKeys, extensions: true)
        } catch {
            problems.add(error)
            throw problems.combined ?? error
        }
    }

    func scenario(_ root: Field, defaultName: String, source: URL?) throws(ScenarioError) -> Scenario {
        // Unknown keys, and whole sections or items that cannot be read, are collected and reported
        // together in file order; a mapping or a list of the wrong shape still stops at once.
        let problems = Problems()
        let top = try Self.topFields(of: root, problems: problems)
        var reader = self
        reader.requestPatterns = Self.requestPatterns(in: top["script"])
        reader.declaredTargets = Self.declaredTargets(in: top["client"])
        var scenario = Scenario(name: defaultName, source: source)
        // Each top-level value, section and item is read on its own: a problem in one hides none in another.
        problems.recovering { () throws(ScenarioError) in if let schema = top["$schema"] { _ = try schema.string() } }
        problems.recovering { () throws(ScenarioError) in scenario.name = try top["name"]?.name() ?? defaultName }
        problems.recovering { () throws(ScenarioError) in scenario.description = try top["description"]?.text() ?? "" }
        problems.recovering { () throws(ScenarioError) in if let seed = top["seed"] { scenario.seed = try seed.seed() } }
        if let traffic = top["traffic"], let read = problems.recovering(item: traffic, reader.traffic) { scenario.traffic = read }
        if let test = top["_test"] {
            problems.recovering { () throws(ScenarioError) in
                let hooks = try test.mapping(["nondeterministicStub"])
                scenario.traffic.testHooks.nondeterministicStub = try hooks["nondeterministicStub"]?.bool() ?? false
            }
        }
        if let client = top["client"], let read = problems.recovering(item: client, reader.client) { scenario.client = read }
        if let script = problems.recovering({ () throws(ScenarioError) in
            try top.required("script", hint: "list the requests to send, e.g. - request: GET http://api.test/items").list()
        }) {
            let provider = scenario.client.provider
            scenario.script = script.compactMap { item in
                problems.recovering(item: item) { (item) throws(ScenarioError) in try reader.step(item, provider: provider) }
            }
        }
        if let faults = top["faults"], let items = problems.recovering({ () throws(ScenarioError) in try faults.list() }) {
            scenario.faults = items.enumerated().compactMap { index, item in
                problems.recovering(item: item) { (item) throws(ScenarioError) in try reader.fault(item, index: index) }
            }
        }
        if let expect = top["expect"], let read = problems.recovering(item: expect, reader.expectations) { scenario.expectations = read }
        if let schedule = top["schedule"], let read = problems.recovering(item: schedule, reader.schedule) { scenario.schedule = read }
        // What the whole file must satisfy is checked only once every part could be read.
        if let error = problems.combined { throw error }
        let validation = Validation(scenario: scenario, top: top)
        try validation.check()
        scenario.warnings.items = (problems.doubts.map { LoadWarning(problem: $0, route: nil) } + validation.warnings())
            .enumerated().sorted { ($0.element.problem.line, $0.offset) < ($1.element.problem.line, $1.offset) }.map(\.element)
        scenario.marks = Self.marks(top)
        return scenario
    }

    // MARK: traffic

    func traffic(_ field: Field) throws(ScenarioError) -> Traffic {
        let keys = try field.mapping(["cassette", "timing", "stubs", "auth", "upstream"])
        var traffic = Traffic()
        if let cassette = keys["cassette"] {
            traffic.cassette = try self.cassette(cassette, timing: keys["timing"])
        } else if let timing = keys["timing"] {
            throw timing.error("'timing' applies to a cassette, and there is none", hint: "add 'cassette: FILE.har.gz' or remove 'timing'")
        }
        try keys.read("stubs") { (stubs) throws(ScenarioError) in
            // Each stub on its own, as steps and faults are: one whose `match` is wrong (a required
            // key, so the stub cannot be read past) hides no later stub's problems.
            for item in try stubs.list() {
                guard let problems = item.problems else { traffic.stubs.append(try stub(item)); continue }
                if let read = problems.recovering(item: item, stub) { traffic.stubs.append(read) }
            }
        }
        try keys.read("auth") { (auth) throws(ScenarioError) in traffic.auth = try self.auth(auth) }
        try keys.read("upstream") { (upstream) throws(ScenarioError) in
            let text = try upstream.string()
            guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw upstream.error("'\(text)' is not an http(s) URL", hint: "e.g. http://127.0.0.1:8080")
            }
            // A recorded request keeps its own path and query; only the scheme, host and port are
            // the upstream's. A path or query here would be silently dropped, so it is refused.
            let path = url.path, extra = [path.isEmpty || path == "/" ? nil : "a path (\(path))", url.query.map { "a query (?\($0))" },
                                          url.fragment.map { "a fragment (#\($0))" }].compactMap { $0 }
            if !extra.isEmpty {
                var origin = "\(scheme)://\(url.host!)"
                if let port = url.port { origin += ":\(port)" }
                throw upstream.error("'\(text)' has \(extra.joined(separator: " and ")): the upstream is an origin only — a request is sent "
                                     + "with its own path and query, only the scheme, host and port are replaced",
                                     hint: "write 'upstream: \(origin)' and put the path in the script's URLs")
            }
            traffic.upstream = url
        }
        return traffic
    }

    private func cassette(_ field: Field, timing: Field?) throws(ScenarioError) -> CassetteSource {
        if field.isScalar {
            var source = CassetteSource(url: try path(field))
            if let timing { source.timingScale = try timingScale(timing) }
            return source
        }
        let keys = try field.mapping(["file", "timing", "match", "afterLast"])
        var source = CassetteSource(url: try path(try keys.required("file")))
        if let timing = keys["timing"] ?? timing { source.timingScale = try timingScale(timing) }
        try keys.read("match") { (match) throws(ScenarioError) in
            let rules = try match.mapping(["url", "body", "headers"])
            if let url = rules["url"] {
                switch try url.choice(["ignoringQueryOrder", "exact", "ignoringQuery"]) {
                case "exact": source.urlRule = .exact
                case "ignoringQuery": source.urlRule = .ignoringQuery
                default: source.urlRule = .ignoringQueryOrder
                }
            }
            if let body = rules["body"] {
                switch try body.choice(["ignore", "raw", "json", "form", "multipart"]) {
                case "raw": source.bodyRule = .raw
                case "json": source.bodyRule = .json
                case "form": source.bodyRule = .form
                case "multipart": source.bodyRule = .multipart
                default: source.bodyRule = .ignore
                }
            }
            if let headers = rules["headers"] { source.headers = try headers.list(allowingSingle: true).map { (item) throws(ScenarioError) in try item.text() } }
        }
        try keys.read("afterLast") { (afterLast) throws(ScenarioError) in
            switch try afterLast.choice(["repeatLast", "noMatch", "alwaysFirst"]) {
            case "noMatch": source.afterLast = .noMatch
            case "alwaysFirst": source.afterLast = .alwaysFirst
            default: source.afterLast = .repeatLast
            }
        }
        return source
    }

    /// `recorded` (1), `instant` (0), or a factor.
    private func timingScale(_ field: Field) throws(ScenarioError) -> Double {
        if let text = field.node.string, text == "recorded" { return 1 }
        if let text = field.node.string, text == "instant" { return 0 }
        guard let value = try? field.double(), value >= 0 else {
            throw field.error("'\(field.node.string ?? "")' is not a timing", hint: "use recorded, instant or a scale factor such as 0.5")
        }
        return value
    }

    private func stub(_ field: Field) throws(ScenarioError) -> Stub {
        let keys = try field.mapping(["match", "method", "url", "status", "headers", "body", "json", "bodyFile", "gzip", "fail",
                                      "latency", "jitter", "bandwidth", "responses"])
        let pattern: RequestPattern
        if let match = keys["match"] {
            for key in ["url", "method"] where keys[key] != nil {
                throw keys[key]!.error("'\(key)' and 'match' exclude each other", hint: "write the method and URL in 'match: METHOD URL'")
            }
            pattern = try self.pattern(match)
        } else {
            let url = try keys.required("url", hint: "a stub needs 'match: GET http://host/path' or 'url:'")
            let parsed = try self.pattern(url)
            pattern = RequestPattern(method: try keys["method"]?.string(), url: parsed.url)
            if parsed.method != nil {
                throw url.error("'url' takes a URL pattern without a method", hint: "give the method under 'method:', or write 'match: METHOD URL'")
            }
            if let method = pattern.method, !method.allSatisfy({ $0.isLetter }) {
                throw keys["method"]!.error("'\(method)' is not an HTTP method")
            }
        }
        var responses: [StubResponse]
        if let list = keys["responses"] {
            for key in ["status", "headers", "body", "json", "bodyFile", "gzip", "fail"] where keys[key] != nil {
                throw keys[key]!.error("'\(key)' and 'responses' exclude each other", hint: "put '\(key)' inside each response")
            }
            responses = try list.list().map { (item) throws(ScenarioError) in try response(item.mapping(Self.responseKeys)) }
            guard !responses.isEmpty else { throw list.error("'responses' is empty") }
        } else {
            responses = [try response(keys)]
        }
        var stub = Stub(pattern: pattern, responses: responses)
        try keys.read("latency") { (latency) throws(ScenarioError) in stub.latency = try latency.duration() }
        try keys.read("jitter") { (jitter) throws(ScenarioError) in stub.jitter = try jitter.duration() }
        try keys.read("bandwidth") { (bandwidth) throws(ScenarioError) in
            let rate = try bandwidth.bytes()
            guard rate > 0 else { throw bandwidth.error("a bandwidth must be positive, not \(rate) bytes a second", hint: "write a rate such as 64KB (a second)") }
            stub.bandwidth = rate
        }
        return stub
    }

    static let responseKeys = ["status", "headers", "body", "json", "bodyFile", "gzip", "fail"]

    func response(_ keys: Fields) throws(ScenarioError) -> StubResponse {
        var response = StubResponse()
        if let fail = keys["fail"] {
            for key in ["status", "headers", "body", "json", "bodyFile", "gzip"] where keys[key] != nil {
                throw keys[key]!.error("'\(key)' does not apply to a failure", hint: "a 'fail' answer has no response; remove '\(key)' or 'fail'")
            }
            response.failure = try failureCode(fail)
            return response
        }
        try keys.read("status") { (status) throws(ScenarioError) in
            // A 1xx is an interim answer: no request ends with one (a client waits on for the final status).
            if let text = try? status.string(), let interim = Int(text), (100...199).contains(interim) {
                throw status.error("\(interim) is an interim status (1xx), which no request ends with", hint: "use a final status, 200-999")
            }
            response.status = try status.int(in: 200...999)
        }
        try keys.read("headers") { (headers) throws(ScenarioError) in response.headers = try self.headers(headers) }
        let bodies = ["body", "json", "bodyFile"].filter { keys[$0] != nil }
        if bodies.count > 1 { throw keys[bodies[1]]!.error("give only one of body, json and bodyFile") }
        if let body = keys["body"] {
            response.body = Data(try body.string().utf8)
        } else if let json = keys["json"] {
            response.body = try jsonText(json)
            if !response.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                response.headers.append(Header("Content-Type", "application/json"))
            }
        } else if let file = keys["bodyFile"] {
            response.body = try fileContents(file, at: try path(file))
        }
        response.gzip = try keys["gzip"]?.bool() ?? false
        return response
    }

    private func auth(_ field: Field) throws(ScenarioError) -> AuthServer {
        let keys = try field.mapping(["token", "lifetime", "protect", "initialToken"])
        var server = AuthServer(token: try pattern(keys.required("token", hint: "e.g. token: POST http://api.test/token")),
                                protect: try keys.required("protect").nonEmptyList(allowingSingle: true, of: "request pattern").map { (item) throws(ScenarioError) in
                                    try pattern(item)
                                })
        try keys.read("lifetime") { (lifetime) throws(ScenarioError) in server.lifetime = try lifetime.duration() }
        try keys.read("initialToken") { (initial) throws(ScenarioError) in server.initialToken = try initial.string() }
        return server
    }

    // MARK: values

    func headers(_ field: Field) throws(ScenarioError) -> [Header] {
        guard case let .mapping(mapping) = field.node else { throw field.error("expected header fields as 'Name: value' lines") }
        return try mapping.map { (key, value) throws(ScenarioError) in
            guard let name = key.string, !name.isEmpty else { throw Field(node: key, path: field.path, file: file).error("a header name must be text") }
            if name == "<<" {
                // A merge key's value is an alias, whose place is its anchor's: name the key's place.
                throw Field(node: key, path: field.path + ".<<", file: file).error(
                    "'<<' is no header name", hint: "YAML 1.2, which scenario files are read as, has no merge keys: write the header fields out, "
                        + "or give an anchor (&name) to the whole headers mapping and use *name where it goes")
            }
            let valueField = field.child(name, value)
            let text = try valueField.string()
            // A field value holds no control character but a tab (RFC 9110 §5.5): a CR or an
            // escape would break the head on the wire and the lines the outputs print.
            if let bad = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
                throw valueField.error("the value holds a control character (\(String(format: "U+%04X", bad.value)))",
                                       hint: "a header field's value is one line of text")
            }
            return Header(name, text)
        }
    }

    /// A JSON value written in YAML, as JSON text.
    func jsonText(_ field: Field) throws(ScenarioError) -> Data {
        do throws(JSONValue.NotJSON) {
            let value = try JSONValue(field.node)
            return Data(value.text.utf8)
        } catch {
            throw ScenarioError(file: file, line: error.mark.line, column: error.mark.column, path: field.path, reason: error.reason)
        }
    }

    /// The most bytes a file a scenario names may hold: 1 GiB.
    static let largestBodyFile = 1 << 30

    /// A file's URL: an absolute path, or one relative to the scenario file.
    func fileURL(_ field: Field) throws(ScenarioError) -> URL {
        try path(field)
    }

    /// The bytes of the file at `url`, which `field` names; an error says why they cannot be read.
    func fileContents(_ field: Field, at url: URL) throws(ScenarioError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw field.error("cannot read \(url.path): there is no such file", hint: "paths are relative to the scenario file")
        }
        guard !isDirectory.boolValue else { throw field.error("cannot read \(url.path): it is a directory", hint: "name a file") }
        // Read as a stream: corelibs' Data(contentsOf:) refuses devices (/dev/null) and pipes.
        let read: Data?
        do {
            read = try FileStream.read(atPath: url.path, limit: Self.largestBodyFile)
        } catch is FileStream.CannotOpen {
            throw field.error("cannot read \(url.path): it cannot be opened", hint: "check its permissions")
        } catch {
            throw field.error("cannot read \(url.path): \(error.localizedDescription)", hint: "check that it is a readable file")
        }
        guard let data = read else {
            throw field.error("cannot read \(url.path): it is larger than \(Self.largestBodyFile >> 30) GiB (or never ends)",
                              hint: "name a regular file of a body")
        }
        return data
    }

    private func path(_ field: Field) throws(ScenarioError) -> URL {
        let text = try field.string()
        guard !text.isEmpty else { throw field.error("the path is empty") }
        let url = text.hasPrefix("/") || base == nil ? URL(fileURLWithPath: text) : base!.appendingPathComponent(text).standardizedFileURL
        named.urls.append(url)
        return url
    }

    /// A URLError code: a number, or a name (`timedOut`, `cannotConnectToHost`, ...).
    func failureCode(_ field: Field) throws(ScenarioError) -> Int {
        if field.numberText != nil {
            let code = try field.int()
            // A number Foundation has no URLError code for would become `unknown` (-1) unseen.
            guard urlErrorCode(code).rawValue == code else {
                throw field.error("\(code) is not a URLError code", hint: "use a URLError code such as -1001 (timedOut) or -1004 (cannotConnectToHost), "
                                  + "or one of the names: \(Self.errorNames.keys.sorted().joined(separator: ", "))")
            }
            return code
        }
        let name = try field.choice(Array(Self.errorNames.keys).sorted())
        return Self.errorNames[name]!
    }

    static let errorNames: [String: Int] = [
        "timedOut": URLError.timedOut.rawValue, "cannotConnectToHost": URLError.cannotConnectToHost.rawValue,
        "cannotFindHost": URLError.cannotFindHost.rawValue, "notConnectedToInternet": URLError.notConnectedToInternet.rawValue,
        "networkConnectionLost": URLError.networkConnectionLost.rawValue, "badServerResponse": URLError.badServerResponse.rawValue,
        "cancelled": URLError.cancelled.rawValue, "secureConnectionFailed": URLError.secureConnectionFailed.rawValue,
        "unknown": URLError.unknown.rawValue, "dnsLookupFailed": URLError.dnsLookupFailed.rawValue,
    ]
}

/// The files a reader resolved paths to, in the order it met them (``Scenario/inputFiles``).
final class NamedFiles {
    var urls: [URL] = []
}
