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
        scenario.script = try script.list().map { (item) throws(ScenarioError) in try step(item) }
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

    private func response(_ keys: Fields) throws(ScenarioError) -> StubResponse {
        var response = StubResponse()
        if let fail = keys["fail"] {
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
        let keys = try field.mapping(["queues", "setup", "retry", "validate", "auth", "timeouts", "redirects", "metricsGrace", "headers"])
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

    private func validation(_ field: Field) throws(ScenarioError) -> ValidationSetup? {
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

    // MARK: script

    private func step(_ field: Field) throws(ScenarioError) -> ScriptStep {
        guard field.isMapping else {
            throw field.error("expected a step: '- request: ...', '- cancel: ...' or '- cancelAll: ...'")
        }
        let probe = try field.mapping(["request", "cancel", "cancelAll", "name", "headers", "body", "json", "validate", "repeat", "at",
                                       "every", "during", "atAttempt"])
        let (kind, _) = try probe.one(of: ["request", "cancel", "cancelAll"])
        switch kind {
        case "request":
            return .request(try request(try field.mapping(["request", "name", "headers", "body", "json", "validate", "repeat", "at", "every"])))
        case "cancel":
            let keys = try field.mapping(["cancel", "at", "during", "atAttempt"])
            let target = try keys.required("cancel").string()
            let (which, value) = try keys.one(of: ["at", "during", "atAttempt"])
            switch which {
            case "at": return .cancel(CancelStep(target: target, trigger: .at(try value.duration())))
            case "atAttempt": return .cancel(CancelStep(target: target, trigger: .atAttempt(try value.int(in: 1...1_000))))
            default:
                let text = try value.string()
                let number = text == "backoff" ? 1 : text.hasPrefix("backoff#") ? Int(text.dropFirst("backoff#".count)) : nil
                guard let number, number >= 1 else {
                    throw value.error("'\(text)' is not an event to cancel during", hint: "use backoff (the first) or backoff#2")
                }
                return .cancel(CancelStep(target: target, trigger: .duringBackoff(number)))
            }
        default:
            let keys = try field.mapping(["cancelAll"])
            return .cancelAll(at: try keys.required("cancelAll").duration())
        }
    }

    private func request(_ keys: Fields) throws(ScenarioError) -> RequestStep {
        let target = try keys.required("request")
        var method = "GET"
        let urlText: String
        if target.isMapping {
            let parts = try target.mapping(["method", "url"])
            method = try parts["method"]?.string().uppercased() ?? "GET"
            urlText = try parts.required("url").string()
        } else {
            let words = try target.string().split(separator: " ", maxSplits: 1).map(String.init)
            if words.count == 2 { method = words[0].uppercased() }
            urlText = words.last ?? ""
        }
        guard let url = URL(string: urlText), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil else {
            throw target.error("'\(urlText)' is not an absolute http(s) URL", hint: "write e.g. GET http://api.test/items")
        }
        guard method.allSatisfy({ $0.isLetter }) else { throw target.error("'\(method)' is not an HTTP method") }
        let name = try keys["name"]?.string() ?? (url.path.split(separator: "/").last.map(String.init) ?? url.host!)
        var step = RequestStep(name: name, method: method, url: url)
        if let headers = keys["headers"] { step.headers = try self.headers(headers) }
        if keys["body"] != nil && keys["json"] != nil { throw keys["json"]!.error("give 'body' or 'json', not both") }
        if let body = keys["body"] { step.body = Data(try body.string().utf8) }
        if let json = keys["json"] {
            step.body = try jsonText(json)
            if !step.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                step.headers.append(Header("Content-Type", "application/json"))
            }
        }
        if let validate = keys["validate"] { step.validation = .some(try validation(validate)) }
        if let count = keys["repeat"] { step.repetitions = try count.int(in: 1...100_000) }
        if let at = keys["at"] { step.at = try at.duration() }
        if let every = keys["every"] { step.every = try every.duration() }
        return step
    }

    // MARK: faults

    private func fault(_ field: Field, index: Int) throws(ScenarioError) -> FaultSite {
        let keys = try field.mapping(["kind", "name", "route", "attempts", "exchanges", "window", "probability", "enabled",
                                      "delay", "jitter", "bytesPerSecond", "afterBytes", "status", "headers", "retryAfter",
                                      "retryAfterDate", "delivery", "at"])
        let kindField = try keys.required("kind", hint: "one of \(FaultKind.names.joined(separator: ", "))")
        let kindName = try kindField.choice(FaultKind.names)
        func needs(_ key: String) throws(ScenarioError) -> Field {
            try keys.required(key, hint: "a \(kindName) fault needs '\(key)'")
        }
        var used: Set<String> = ["kind", "name", "route", "attempts", "exchanges", "window", "probability", "enabled"]
        let kind: FaultKind
        switch kindName {
        case "latency", "slowFirstByte":
            kind = .latency(delay: try needs("delay").duration(), jitter: try keys["jitter"]?.duration() ?? .zero)
            used.formUnion(["delay", "jitter"])
        case "bandwidth":
            let rate = try needs("bytesPerSecond").bytes()
            guard rate > 0 else { throw keys["bytesPerSecond"]!.error("must be positive") }
            kind = .bandwidth(bytesPerSecond: rate)
            used.insert("bytesPerSecond")
        case "stall": kind = .stall
        case "refused": kind = .refused
        case "hostNotFound": kind = .hostNotFound
        case "notConnected": kind = .notConnected
        case "connectionLost": kind = .connectionLost
        case "reset":
            kind = .reset(afterBytes: try needs("afterBytes").bytes())
            used.insert("afterBytes")
        case "truncate":
            kind = .truncate(afterBytes: try needs("afterBytes").bytes())
            used.insert("afterBytes")
        case "corruptGzip": kind = .corruptGzip
        case "status":
            kind = .status(try needs("status").int(in: 100...999), headers: try keys["headers"].map { (field) throws(ScenarioError) in try headers(field) } ?? [],
                           retryAfter: try keys["retryAfter"]?.duration(), retryAfterDate: try keys["retryAfterDate"]?.duration())
            used.formUnion(["status", "headers", "retryAfter", "retryAfterDate"])
        case "metrics":
            let delivery = try needs("delivery").choice(FaultKind.MetricsOrder.allCases.map(\.rawValue))
            kind = .metrics(FaultKind.MetricsOrder(rawValue: delivery)!)
            used.insert("delivery")
        case "duplicateCompletion": kind = .duplicateCompletion
        default:
            kind = .tokenExpiry(at: try needs("at").duration())
            used.insert("at")
        }
        for key in keys.order where !used.contains(key) {
            throw keys[key]!.error("'\(key)' does not apply to a \(kindName) fault")
        }
        var site = FaultSite(name: try keys["name"]?.string() ?? "\(kindName)-\(index + 1)", kind: kind)
        if let route = keys["route"] { site.pattern = RequestPattern(parsing: try route.string()) }
        if let attempts = keys["attempts"] { site.attempts = try attempts.integers(in: 1...1_000_000) }
        if let exchanges = keys["exchanges"] { site.exchanges = try exchanges.integers(in: 1...Int.max) }
        if let window = keys["window"] {
            let bounds = try window.mapping(["from", "until"])
            site.from = try bounds["from"]?.duration()
            site.until = try bounds["until"]?.duration()
        }
        if let probability = keys["probability"] { site.probabilityPerMille = try probability.int(in: 0...1_000) }
        if let enabled = keys["enabled"] { site.enabledPerMille = try enabled.int(in: 0...1_000) }
        return site
    }

    // MARK: expectations and schedules

    private func expectations(_ field: Field) throws(ScenarioError) -> Expectations {
        let keys = try field.mapping(["requests", "allowAnomalies", "exchanges"])
        var expectations = Expectations()
        if let requests = keys["requests"] {
            let byName = try requests.mapping(try requestKeys(requests))
            for name in byName.order {
                expectations.requests.append(try requestExpectation(byName[name]!, target: name))
            }
        }
        if let allowed = keys["allowAnomalies"] {
            for item in try allowed.list(allowingSingle: true) {
                expectations.allowedAnomalies.insert(try item.choice(["metricsMissing", "duplicateMetrics", "duplicateCompletion"]))
            }
        }
        if let counts = keys["exchanges"] {
            let byRoute = try counts.mapping(try requestKeys(counts))
            for route in byRoute.order {
                expectations.exchanges.append(ExchangeCount(route: RequestPattern(parsing: route), count: try byRoute[route]!.integers(in: 0...Int.max)))
            }
        }
        return expectations
    }

    /// Every key of a mapping keyed by the user's names (`requests`, `exchanges`) is accepted here;
    /// the validation step checks that each request name names a request of the script.
    private func requestKeys(_ field: Field) throws(ScenarioError) -> [String] {
        guard case let .mapping(mapping) = field.node else { throw field.error("expected a mapping of request names") }
        return mapping.compactMap { $0.key.string }
    }

    private func requestExpectation(_ field: Field, target: String) throws(ScenarioError) -> RequestExpectation {
        let keys = try field.mapping(["status", "error", "attempts", "finishedBy", "bodyContains", "json", "bodyBytes"])
        var expectation = RequestExpectation(target: target)
        if let status = keys["status"] { expectation.status = try status.integers(in: 100...999) }
        if let error = keys["error"] { expectation.error = ErrorKind(rawValue: try error.choice(ErrorKind.allCases.map(\.rawValue)))! }
        if let attempts = keys["attempts"] { expectation.attempts = try attempts.integers(in: 1...1_000_000) }
        if let finished = keys["finishedBy"] { expectation.finishedBy = try finished.duration() }
        if let contains = keys["bodyContains"] { expectation.bodyContains = try contains.string() }
        if let bytes = keys["bodyBytes"] { expectation.bodyBytes = try bytes.integers(in: 0...Int.max) }
        if let json = keys["json"] {
            for item in try json.list(allowingSingle: true) {
                let pair = try item.mapping(["path", "equals"])
                let equals = try pair.required("equals")
                expectation.json.append(JSONExpectation(path: try pair.required("path").string(), equals: String(decoding: try jsonText(equals), as: UTF8.self)))
            }
        }
        return expectation
    }

    private func schedule(_ field: Field) throws(ScenarioError) -> Schedule {
        let keys = try field.mapping(["faults"])
        var schedule = Schedule()
        for item in try keys["faults"]?.list() ?? [] {
            let decision = try item.mapping(["site", "request", "attempt", "occurrence", "drawn"])
            schedule.faults.append(FaultDecision(
                site: try decision.required("site").string(), request: try decision["request"]?.string(),
                attempt: try decision["attempt"]?.int(in: 1...1_000_000) ?? 1,
                occurrence: try decision["occurrence"]?.int(in: 1...1_000_000) ?? 1,
                drawn: Int64(try decision["drawn"]?.int() ?? 0)))
        }
        return schedule
    }

    // MARK: values

    private func headers(_ field: Field) throws(ScenarioError) -> [Header] {
        guard case let .mapping(mapping) = field.node else { throw field.error("expected header fields as 'Name: value' lines") }
        return try mapping.map { (key, value) throws(ScenarioError) in
            guard let name = key.string, !name.isEmpty else { throw Field(node: key, path: field.path, file: file).error("a header name must be text") }
            let valueField = field.child(name, value)
            return Header(name, try valueField.string())
        }
    }

    /// A JSON value written in YAML, as JSON text.
    private func jsonText(_ field: Field) throws(ScenarioError) -> Data {
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
    private func failureCode(_ field: Field) throws(ScenarioError) -> Int {
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
