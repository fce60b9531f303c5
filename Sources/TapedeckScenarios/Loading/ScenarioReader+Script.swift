import Foundation
import TapedeckClient
import TapedeckScheduling

// The script, fault, expectation and schedule sections of a scenario file (the traffic and
// client sections, and the value readers they share, are in ScenarioReader.swift).
extension ScenarioReader {
    // MARK: script

    func step(_ field: Field, provider: ProviderSetup?) throws(ScenarioError) -> ScriptStep {
        guard field.isMapping else {
            throw field.error("expected a step: '- request: ...', '- target: ...', '- cancel: ...' or '- cancelAll: ...'")
        }
        let probe = try field.mapping(["request", "target", "cancel", "cancelAll", "name", "headers", "body", "json", "multipart", "stream",
                                       "validate", "repeat", "at", "every", "after", "during", "atAttempt"])
        let (kind, _) = try probe.one(of: ["request", "target", "cancel", "cancelAll"])
        switch kind {
        case "request":
            return .request(try request(try field.mapping(["request", "name", "headers", "body", "json", "multipart", "stream", "validate",
                                                           "repeat", "at", "every", "after"])))
        case "target":
            return .request(try targetStep(try field.mapping(["target", "name", "repeat", "at", "every", "after"]), provider: provider))
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
        // The default, the URL's last path component, is percent-decoded: one that would be no
        // name (`%20`, `%0A`) gives way to the host.
        let last = url.path.split(separator: "/").last.map(String.init).flatMap { Field.isShowableName($0) ? $0 : nil }
        let name = try keys["name"]?.name() ?? (last ?? url.host!)
        var step = RequestStep(name: name, method: method, url: url)
        try keys.read("headers") { (headers) throws(ScenarioError) in step.headers = try self.headers(headers) }
        let bodies = ["body", "json", "multipart"].filter { keys[$0] != nil }
        if bodies.count > 1 { throw keys[bodies[1]]!.error("give only one of body, json and multipart") }
        try keys.read("body") { (body) throws(ScenarioError) in step.body = Data(try body.string().utf8) }
        try keys.read("json") { (json) throws(ScenarioError) in
            step.body = try jsonText(json)
            if !step.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                step.headers.append(Header("Content-Type", "application/json"))
            }
        }
        try keys.read("multipart") { (parts) throws(ScenarioError) in step.multipart = try multipartParts(parts) }
        if ["GET", "HEAD"].contains(method), let body = keys["body"] ?? keys["json"] ?? keys["multipart"] {
            throw body.error("a \(method) request carries no body (URLSession refuses to send one)",
                             hint: "use POST, PUT or PATCH for a body, or put the values in the URL's query")
        }
        try keys.read("stream") { (stream) throws(ScenarioError) in
            step.stream = try stream.bool()
            if step.stream, let parts = keys["multipart"] {
                throw parts.error("a stream request sends a body or json, not a multipart form", hint: "drop stream: true to upload the form")
            }
        }
        try keys.read("validate") { (validate) throws(ScenarioError) in step.validation = .some(try validation(validate)) }
        try readTiming(keys, into: &step)
        return step
    }

    /// A multipart body's parts: each `{name, text | file | bytes, fileName, mimeType}`. A file is
    /// read now (relative to the scenario file), named by its last path component and typed by
    /// its extension unless `fileName` and `mimeType` say otherwise; `bytes: 4KB` is that many
    /// generated bytes (the same on every run).
    func multipartParts(_ field: Field) throws(ScenarioError) -> [MultipartPart] {
        let items = try field.list(allowingSingle: true)
        guard !items.isEmpty else { throw field.error("a multipart body needs at least one part", hint: "add e.g. - {name: caption, text: hello}") }
        var parts: [MultipartPart] = []
        for item in items {
            // Each part on its own: every wrong part is reported, not only the first (the
            // problems make the load fail; the parts read well are returned meanwhile).
            if let problems = field.problems {
                if let part = problems.recovering(item: item, multipartPart) { parts.append(part) }
            } else {
                parts.append(try multipartPart(item))
            }
        }
        return parts
    }

    private func multipartPart(_ item: Field) throws(ScenarioError) -> MultipartPart {
        let keys = try item.mapping(["name", "text", "file", "bytes", "fileName", "mimeType"])
        var part = MultipartPart(name: try keys.required("name").string(), content: Data())
        let (kind, value) = try keys.one(of: ["text", "file", "bytes"])
        switch kind {
        case "text":
            part.content = Data(try value.string().utf8)
        case "file":
            let url = try fileURL(value)
            part.content = try fileContents(value, at: url)
            part.fileName = url.lastPathComponent
            part.mimeType = MultipartFormData.mimeType(forPathExtension: url.pathExtension)
        default:
            let count = try value.bytes()
            guard count <= 64_000_000 else { throw value.error("\(count) bytes is more than a scenario part may generate (64MB)") }
            part.content = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) })
            part.fileName = "\(part.name).bin"
            part.mimeType = "application/octet-stream"
        }
        try keys.read("fileName") { (name) throws(ScenarioError) in part.fileName = try name.string() }
        try keys.read("mimeType") { (type) throws(ScenarioError) in part.mimeType = try type.string() }
        return part
    }

    /// `repeat`, `at`, `every` and `after` of a request or target step.
    func readTiming(_ keys: Fields, into step: inout RequestStep) throws(ScenarioError) {
        try keys.read("after") { (after) throws(ScenarioError) in step.after = try after.string() }
        try keys.read("repeat") { (count) throws(ScenarioError) in step.repetitions = try count.int(in: 1...100_000) }
        try keys.read("at") { (at) throws(ScenarioError) in step.at = try at.duration() }
        try keys.read("every") { (every) throws(ScenarioError) in
            step.every = try every.duration()
            // A `repeat` that could not be read is reported already; do not add a second error.
            let repeatRead = keys["repeat"].map { (try? $0.int(in: 1...100_000)) != nil } ?? true
            if step.repetitions < 2 && repeatRead {
                throw every.error("'every' spaces the repeats of a step, and this one is sent once",
                                  hint: "add 'repeat: N' (2 or more), or remove 'every' (use 'at' for when it is sent)")
            }
            // Each duration is within 10⁹ s, but the last repeat starts at at + every × (repeat − 1):
            // past that the virtual clock would saturate (requests at the same far instant).
            let last = Double(step.at.components.seconds) + Double(step.at.components.attoseconds) / 1e18
                + (Double(step.every.components.seconds) + Double(step.every.components.attoseconds) / 1e18) * Double(step.repetitions - 1)
            let longest = Double(Field.longestDuration.components.seconds)
            if last > longest {
                throw every.error("the last of the \(step.repetitions) repeats would start at \(String(format: "%.0f", last)) s, "
                                  + "more than the 10⁹ s a scenario's virtual clock may reach",
                                  hint: "lower 'every', 'repeat' or 'at'")
            }
        }
    }

    // MARK: faults

    func fault(_ field: Field, index: Int) throws(ScenarioError) -> FaultSite {
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
            guard rate > 0 else {
                throw keys["bytesPerSecond"]!.error("a bandwidth must be positive, not \(rate) bytes a second", hint: "write a rate such as 64KB (a second)")
            }
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
            if let date = keys["retryAfterDate"], keys["retryAfter"] != nil {
                throw date.error("'retryAfterDate' and 'retryAfter' exclude each other", hint: "a Retry-After is seconds or a date: keep one")
            }
            if let field = keys["headers"], keys["retryAfter"] != nil || keys["retryAfterDate"] != nil,
               case let .mapping(pairs) = field.node, pairs.contains(where: { $0.key.string?.lowercased() == "retry-after" }) {
                throw field.error("a Retry-After in 'headers' and 'retryAfter'/'retryAfterDate' exclude each other", hint: "keep one of them")
            }
            if let field = keys["headers"], keys["retryAfterDate"] != nil,
               case let .mapping(pairs) = field.node, pairs.contains(where: { $0.key.string?.lowercased() == "date" }) {
                throw field.error("a Date in 'headers' and 'retryAfterDate' exclude each other",
                                  hint: "retryAfterDate writes the Date its Retry-After counts from: keep one of them")
            }
            kind = .status(try needs("status").int(in: 200...999), headers: try keys["headers"].map { (field) throws(ScenarioError) in try headers(field) } ?? [],
                           retryAfter: try keys["retryAfter"]?.duration(), retryAfterDate: try keys["retryAfterDate"]?.duration())
            used.formUnion(["status", "headers", "retryAfter", "retryAfterDate"])
        case "metrics":
            let delivery = try needs("delivery").choice(FaultKind.MetricsOrder.allCases.map(\.rawValue))
            kind = .metrics(FaultKind.MetricsOrder(rawValue: delivery)!)
            used.insert("delivery")
        case "duplicateCompletion": kind = .duplicateCompletion
        default:
            kind = .tokenExpiry(at: try needs("at").duration())
            // It expires every token at one instant: nothing to target and nothing to draw.
            used = ["kind", "name", "at"]
        }
        for key in keys.order where !used.contains(key) {
            // What this kind takes besides the keys every fault has, for the hint.
            let own = used.subtracting(["kind", "name", "route", "attempts", "exchanges", "window", "probability", "enabled"]).sorted()
            throw keys[key]!.error("'\(key)' does not apply to a \(kindName) fault",
                                   hint: "remove it" + (own.isEmpty ? "" : " (a \(kindName) fault takes \(own.joined(separator: ", ")))")
                                       + ", or make it a fault of a kind that takes it")
        }
        var site = FaultSite(name: try keys["name"]?.name() ?? "\(kindName)-\(index + 1)", kind: kind)
        try keys.read("route") { (route) throws(ScenarioError) in site.pattern = try pattern(route) }
        try keys.read("attempts") { (attempts) throws(ScenarioError) in site.attempts = try attempts.integers(in: 1...1_000_000) }
        try keys.read("exchanges") { (exchanges) throws(ScenarioError) in site.exchanges = try exchanges.integers(in: 1...Int.max) }
        try keys.read("window") { (window) throws(ScenarioError) in
            let bounds = try window.mapping(["from", "until"])
            site.from = try bounds["from"]?.duration()
            site.until = try bounds["until"]?.duration()
            // A missing 'from' is the start (0 s): `{until: 0s}` is as empty as `{from: 0s, until: 0s}`.
            if let until = site.until, (site.from ?? .zero) >= until {
                let from = site.from ?? .zero
                let start = site.from == nil ? "the start (0s, the default 'from')" : "'from' (\(TextTimeline.format(Int64(from.wholeNanoseconds))))"
                throw window.error("the window is empty: \(start) is not before 'until' (\(TextTimeline.format(Int64(until.wholeNanoseconds))))",
                                   hint: site.from == nil ? "the fault may strike from the start up to (not including) 'until'; give 'until' a later time"
                                                          : "the fault may strike from 'from' up to (not including) 'until'; swap them or widen the window")
            }
        }
        try keys.read("probability") { (probability) throws(ScenarioError) in site.probabilityPerMille = try probability.perMille() }
        try keys.read("enabled") { (enabled) throws(ScenarioError) in site.enabledPerMille = try enabled.perMille() }
        return site
    }

    // MARK: expectations and schedules

    func expectations(_ field: Field) throws(ScenarioError) -> Expectations {
        let keys = try field.mapping(["requests", "allowAnomalies", "exchanges"])
        var expectations = Expectations()
        try keys.read("requests") { (requests) throws(ScenarioError) in
            let byName = try requests.mapping(try requestKeys(requests))
            for name in byName.order {
                expectations.requests.append(try requestExpectation(byName[name]!, target: name))
            }
        }
        try keys.read("allowAnomalies") { (allowed) throws(ScenarioError) in
            for item in try allowed.list(allowingSingle: true) {
                expectations.allowedAnomalies.insert(try item.choice(["metricsMissing", "duplicateMetrics", "duplicateCompletion"]))
            }
        }
        try keys.read("exchanges") { (counts) throws(ScenarioError) in
            guard case let .mapping(mapping) = counts.node else { throw counts.error("expected a mapping of request patterns to counts") }
            for (key, value) in mapping {
                let route = counts.at(key, path: counts.child(key.string ?? "", value).path)
                expectations.exchanges.append(ExchangeCount(route: try pattern(route), count: try counts.child(key.string ?? "", value).integers(in: 0...Int.max)))
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

    /// The keys of one request's expectations.
    static let requestExpectationKeys = ["status", "error", "attempts", "finishedBy", "bodyContains", "json", "bodyBytes", "pieces"]

    private func requestExpectation(_ field: Field, target: String) throws(ScenarioError) -> RequestExpectation {
        let keys = try field.mapping(Self.requestExpectationKeys)
        var expectation = RequestExpectation(target: target)
        try keys.read("status") { (status) throws(ScenarioError) in expectation.status = try status.integers(in: 100...999) }
        try keys.read("error") { (error) throws(ScenarioError) in expectation.error = ErrorKind(rawValue: try error.choice(ErrorKind.allCases.map(\.rawValue)))! }
        // 0: a request cancelled before the client created its first task.
        try keys.read("attempts") { (attempts) throws(ScenarioError) in expectation.attempts = try attempts.integers(in: 0...1_000_000) }
        try keys.read("finishedBy") { (finished) throws(ScenarioError) in expectation.finishedBy = try finished.duration() }
        try keys.read("bodyContains") { (contains) throws(ScenarioError) in expectation.bodyContains = try contains.string() }
        try keys.read("bodyBytes") { (bytes) throws(ScenarioError) in expectation.bodyBytes = try bytes.integers(in: 0...Int.max) }
        try keys.read("pieces") { (pieces) throws(ScenarioError) in expectation.pieces = try pieces.integers(in: 0...Int.max) }
        try keys.read("json") { (json) throws(ScenarioError) in
            for item in try json.list(allowingSingle: true) {
                let pair = try item.mapping(["path", "equals"])
                let equals = try pair.required("equals")
                let path = try pair.required("path")
                if let problem = JSONPath.problem(in: try path.string()) {
                    throw path.error("'\(try path.string())' is not a JSON path: \(problem)", hint: "write keys joined by dots and indices in brackets, e.g. items[0].name")
                }
                expectation.json.append(JSONExpectation(path: try path.string(), equals: String(decoding: try jsonText(equals), as: UTF8.self)))
            }
        }
        return expectation
    }

    func schedule(_ field: Field) throws(ScenarioError) -> Schedule {
        let keys = try field.mapping(["faults", "exact", "order", "jitter", "metrics", "origin"])
        var schedule = Schedule()
        for item in try keys["faults"]?.list() ?? [] {
            let decision = try item.mapping(["site", "request", "attempt", "occurrence", "drawn"])
            schedule.faults.append(FaultDecision(
                site: try decision.required("site").string(), request: try decision["request"]?.string(),
                attempt: try decision["attempt"]?.int(in: 1...1_000_000) ?? 1,
                occurrence: try decision["occurrence"]?.int(in: 1...1_000_000) ?? 1,
                drawn: Int64(try decision["drawn"]?.int(in: 0...Int.max) ?? 0)))
        }
        let choiceKeys = ["order", "jitter", "metrics"].filter { keys[$0] != nil }
        if let exact = keys["exact"] {
            schedule.exact = try exact.bool()
            if !schedule.exact, let first = choiceKeys.first {
                throw keys[first]!.error("'\(first)' needs an exact schedule", hint: "remove 'exact: false'")
            }
        } else {
            schedule.exact = !choiceKeys.isEmpty
        }
        for item in try keys["order"]?.list() ?? [] {
            let choice = try item.mapping(["point", "rank"])
            schedule.order.append(SchedulingChoice(point: try choice.required("point").int(in: 1...Int.max),
                                                   rank: try choice.required("rank").int(in: 0...1_000_000)))
        }
        for item in try keys["jitter"]?.list() ?? [] {
            let draw = try item.mapping(["request", "attempt", "occurrence", "drawn"])
            schedule.jitter.append(JitterDecision(
                request: try draw["request"]?.string(), attempt: try draw["attempt"]?.int(in: 1...1_000_000) ?? 1,
                occurrence: try draw["occurrence"]?.int(in: 1...1_000_000) ?? 1,
                nanoseconds: Int64(try draw.required("drawn").int(in: 0...Int.max))))
        }
        for item in try keys["metrics"]?.list() ?? [] {
            let order = try item.mapping(["request", "attempt", "occurrence"])
            schedule.metrics.append(MetricsDecision(
                request: try order["request"]?.string(), attempt: try order["attempt"]?.int(in: 1...1_000_000) ?? 1,
                occurrence: try order["occurrence"]?.int(in: 1...1_000_000) ?? 1))
        }
        try keys.read("origin") { (origin) throws(ScenarioError) in
            let from = try origin.mapping(["file", "seed", "tool"])
            schedule.origin = Schedule.Origin(file: try from["file"]?.string() ?? "", seed: try from["seed"]?.seed() ?? 0,
                                              tool: try from["tool"]?.string() ?? "")
        }
        return schedule
    }
}
