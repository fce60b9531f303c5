import Foundation
import TapedeckCassettes

/// Turns a scenario file's YAML nodes into a ``Scenario``, key by key (the schema in
/// docs/scenarios.md is this file's `allowed` lists).
struct ScenarioReader {
    let file: String
    /// Where relative paths (cassettes, body files) resolve.
    let base: URL?

    func scenario(_ root: Field, defaultName: String, source: URL?) throws(ScenarioError) -> Scenario {
        let top = try root.mapping(["name", "description", "seed", "traffic", "client", "script", "faults", "expect", "schedule", "_test"])
        var scenario = Scenario(name: try top["name"]?.string() ?? defaultName, source: source)
        scenario.description = try top["description"]?.string() ?? ""
        if let seed = top["seed"] { scenario.seed = UInt64(try seed.int(in: 0...Int.max)) }
        if let traffic = top["traffic"] { scenario.traffic = try self.traffic(traffic) }
        if let test = top["_test"] {
            let hooks = try test.mapping(["nondeterministicStub"])
            scenario.traffic.testHooks.nondeterministicStub = try hooks["nondeterministicStub"]?.bool() ?? false
        }
        if let client = top["client"] { scenario.client = try self.client(client) }
        let script = try top.required("script", hint: "list the requests to send, e.g. - request: GET http://api.test/items")
        scenario.script = try script.list().map { (item) throws(ScenarioError) in try step(item, provider: scenario.client.provider) }
        if let faults = top["faults"] {
            scenario.faults = try faults.list().enumerated().map { (index, item) throws(ScenarioError) in try fault(item, index: index) }
        }
        if let expect = top["expect"] { scenario.expectations = try expectations(expect) }
        if let schedule = top["schedule"] { scenario.schedule = try self.schedule(schedule) }
        try Validation(scenario: scenario, top: top).check()
        return scenario
    }

    // MARK: traffic

    private func traffic(_ field: Field) throws(ScenarioError) -> Traffic {
        let keys = try field.mapping(["cassette", "timing", "stubs", "auth", "upstream"])
        var traffic = Traffic()
        if let cassette = keys["cassette"] {
            traffic.cassette = try self.cassette(cassette, timing: keys["timing"])
        } else if let timing = keys["timing"] {
            throw timing.error("'timing' applies to a cassette, and there is none", hint: "add 'cassette: FILE.har.gz' or remove 'timing'")
        }
        if let stubs = keys["stubs"] { traffic.stubs = try stubs.list().map { (item) throws(ScenarioError) in try stub(item) } }
        if let auth = keys["auth"] { traffic.auth = try self.auth(auth) }
        if let upstream = keys["upstream"] {
            let text = try upstream.string()
            guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw upstream.error("'\(text)' is not an http(s) URL", hint: "e.g. http://127.0.0.1:8080")
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
        if let match = keys["match"] {
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
            if let headers = rules["headers"] { source.headers = try headers.list(allowingSingle: true).map { (item) throws(ScenarioError) in try item.string() } }
        }
        if let afterLast = keys["afterLast"] {
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
            pattern = RequestPattern(parsing: try match.string())
        } else {
            let url = try keys.required("url", hint: "a stub needs 'match: GET http://host/path' or 'url:'")
            pattern = RequestPattern(method: try keys["method"]?.string(), url: try url.string())
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
        if let latency = keys["latency"] { stub.latency = try latency.duration() }
        if let jitter = keys["jitter"] { stub.jitter = try jitter.duration() }
        if let bandwidth = keys["bandwidth"] {
            let rate = try bandwidth.bytes()
            guard rate > 0 else { throw bandwidth.error("a bandwidth must be positive") }
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
        if let status = keys["status"] { response.status = try status.int(in: 100...999) }
        if let headers = keys["headers"] { response.headers = try self.headers(headers) }
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
            let url = try path(file)
            guard let data = try? Data(contentsOf: url) else {
                throw file.error("cannot read \(url.path)", hint: "paths are relative to the scenario file")
            }
            response.body = data
        }
        response.gzip = try keys["gzip"]?.bool() ?? false
        return response
    }

    private func auth(_ field: Field) throws(ScenarioError) -> AuthServer {
        let keys = try field.mapping(["token", "lifetime", "protect", "initialToken"])
        var server = AuthServer(token: RequestPattern(parsing: try keys.required("token", hint: "e.g. token: POST http://api.test/token").string()),
                                protect: try keys.required("protect").list(allowingSingle: true).map { (item) throws(ScenarioError) in
                                    RequestPattern(parsing: try item.string())
                                })
        if let lifetime = keys["lifetime"] { server.lifetime = try lifetime.duration() }
        if let initial = keys["initialToken"] { server.initialToken = try initial.string() }
        return server
    }

    // MARK: client

    private func client(_ field: Field) throws(ScenarioError) -> ClientSetup {
        let keys = try field.mapping(["queues", "setup", "retry", "validate", "auth", "timeouts", "redirects", "metricsGrace", "headers",
                                      "provider"])
        var client = ClientSetup()
        if let queues = keys["queues"] { client.queues = ClientSetup.Queues(rawValue: try queues.choice(ClientSetup.Queues.allCases.map(\.rawValue)))! }
        if let setup = keys["setup"] { client.setup = ClientSetup.Setup(rawValue: try setup.choice(["lazy", "eager"]))! }
        if let retry = keys["retry"] { client.retry = try self.retry(retry) }
        if let validate = keys["validate"] { client.validation = try validation(validate) }
        if let auth = keys["auth"] { client.authenticates = try auth.bool() }
        if let timeouts = keys["timeouts"] {
            let values = try timeouts.mapping(["request", "resource"])
            client.requestTimeout = try values["request"]?.duration()
            client.resourceTimeout = try values["resource"]?.duration()
        }
        if let redirects = keys["redirects"] { client.followsRedirects = try redirects.choice(["follow", "doNotFollow"]) == "follow" }
        if let grace = keys["metricsGrace"] { client.metricsGracePeriod = try grace.duration() }
        if let headers = keys["headers"] { client.headers = try self.headers(headers) }
        if let provider = keys["provider"] { client.provider = try self.provider(provider) }
        return client
    }

    private func retry(_ field: Field) throws(ScenarioError) -> RetrySetup? {
        if field.isScalar {
            return try field.bool() ? RetrySetup() : nil
        }
        let keys = try field.mapping(["limit", "base", "scale", "methods", "statuses", "errorCodes", "honourRetryAfter"])
        var retry = RetrySetup()
        if let limit = keys["limit"] { retry.limit = try limit.int(in: 0...100) }
        if let base = keys["base"] { retry.base = try base.int(in: 2...100) }
        if let scale = keys["scale"] {
            retry.scale = try scale.double()
            guard retry.scale >= 0 else { throw scale.error("the scale must not be negative") }
        }
        if let methods = keys["methods"] { retry.methods = try methods.list(allowingSingle: true).map { (item) throws(ScenarioError) in try item.string().uppercased() } }
        if let statuses = keys["statuses"] { retry.statuses = try statuses.integers(in: 100...999) }
        if let codes = keys["errorCodes"] {
            retry.errorCodes = try codes.list(allowingSingle: true).map { (item) throws(ScenarioError) in try failureCode(item) }
        }
        retry.honoursRetryAfter = try keys["honourRetryAfter"]?.bool() ?? false
        return retry
    }

    func validation(_ field: Field) throws(ScenarioError) -> ValidationSetup? {
        if field.isScalar {
            return try field.bool() ? ValidationSetup() : nil
        }
        let keys = try field.mapping(["statuses", "contentTypes"])
        var validation = ValidationSetup()
        if let statuses = keys["statuses"] { validation.statuses = try statuses.integers(in: 100...999) }
        if let types = keys["contentTypes"] {
            if types.isScalar, let text = types.node.string, text == "accept" {
                validation.contentTypes = .fromAccept
            } else if types.isScalar, let text = types.node.string, text == "any" {
                validation.contentTypes = nil
            } else {
                validation.contentTypes = .list(try types.list(allowingSingle: true).map { (item) throws(ScenarioError) in try item.string() })
            }
        }
        return validation
    }

    // MARK: values

    func headers(_ field: Field) throws(ScenarioError) -> [Header] {
        guard case let .mapping(mapping) = field.node else { throw field.error("expected header fields as 'Name: value' lines") }
        return try mapping.map { (key, value) throws(ScenarioError) in
            guard let name = key.string, !name.isEmpty else { throw Field(node: key, path: field.path, file: file).error("a header name must be text") }
            let valueField = field.child(name, value)
            return Header(name, try valueField.string())
        }
    }

    /// A JSON value written in YAML, as JSON text.
    func jsonText(_ field: Field) throws(ScenarioError) -> Data {
        do {
            let value = try JSONValue(field.node)
            return Data(value.text.utf8)
        } catch {
            throw field.error("cannot be written as JSON")
        }
    }

    private func path(_ field: Field) throws(ScenarioError) -> URL {
        let text = try field.string()
        guard !text.isEmpty else { throw field.error("the path is empty") }
        if text.hasPrefix("/") { return URL(fileURLWithPath: text) }
        guard let base else { return URL(fileURLWithPath: text) }
        return base.appendingPathComponent(text).standardizedFileURL
    }

    /// A URLError code: a number, or a name (`timedOut`, `cannotConnectToHost`, ...).
    func failureCode(_ field: Field) throws(ScenarioError) -> Int {
        if let number = field.node.int { return number }
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
