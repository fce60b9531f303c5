/// Checks that hold across a scenario's parts: names are unique, every name a cancel, an
/// expectation or a schedule uses exists, and features have what they need.
struct Validation {
    let scenario: Scenario
    let top: Fields

    /// Every problem across the parts, all at once (in file order), as the reader reports a
    /// part's own problems: a user fixing a file does not find the next one only on the next run.
    func check() throws(ScenarioError) {
        var problems: [ScenarioError] = []
        let requests = scenario.requests
        // Each request step's name with its place in the script (cancels have places too).
        let namedSteps = scenario.script.enumerated().compactMap { index, step -> (index: Int, name: String)? in
            if case let .request(request) = step { return (index, request.name) }
            return nil
        }
        let stepNames = namedSteps.map(\.name)
        var seen = Set<String>()
        for step in namedSteps where !seen.insert(step.name).inserted {
            problems.append(field("script", step.index).error("two requests are named '\(step.name)'", hint: "give each request step its own 'name'"))
        }
        // A repeat's requests are `name#1`, `name#2`…: a step named so as well would share a name
        // with one of them, and cancels, expectations and schedules could not tell them apart.
        var sent: [String: String] = [:]   // each request's name → the step's name
        for (index, step) in scenario.script.enumerated() {
            guard case let .request(request) = step else { continue }
            for name in request.expanded().map(\.name) {
                if let other = sent[name], other != request.name {
                    problems.append(field("script", index).error(
                        "two requests would be named '\(name)' (steps '\(other)' and '\(request.name)'; a repeated step's requests are named name#1, name#2…)",
                        hint: "give the request step another 'name'"))
                }
                sent[name] = sent[name] ?? request.name
            }
        }
        if requests.isEmpty {
            problems.append((top["script"] ?? top.owner).error("the script sends no request", hint: "add '- request: GET http://api.test/items'"))
        }
        // With client.auth, `token` names the client's refreshes in outcomes, timelines and schedules.
        if scenario.client.authenticates, let step = namedSteps.first(where: { $0.name == "token" }) {
            problems.append(field("script", step.index).error(
                "'token' names the client's token refreshes when client.auth is set (this request is named so by its URL)",
                hint: "give the request another 'name'"))
        }
        func known(_ name: String) -> Bool { requests.contains { $0.isNamed(name) } }
        func suggestion(_ name: String) -> String {
            // `g#5` of a step sent 3 times: say how many repeats it has, not a look-alike.
            if let hash = name.lastIndex(of: "#"), let number = Int(name[name.index(after: hash)...]) {
                let step = String(name[..<hash])
                let repeats = requests.filter { $0.step.name == step }.count
                if repeats > 0 {
                    return repeats == 1 ? "'\(step)' is sent once: name it '\(step)'"
                        : "'\(step)' is sent \(repeats) times: \(step)#1 to \(step)#\(repeats) (not #\(number))"
                }
            }
            let names = stepNames + requests.map(\.name)
            if let close = Field.closest(to: name, in: names) { return "did you mean '\(close)'?" }
            var unique: [String] = []
            var seen = Set<String>()
            for name in stepNames where seen.insert(name).inserted { unique.append(name) }
            // At most ten named: a script of thousands of steps does not make one line of them.
            return "requests: " + unique.prefix(10).joined(separator: ", ") + (unique.count > 10 ? " (and \(unique.count - 10) more)" : "")
        }
        for (index, step) in scenario.script.enumerated() {
            if case let .cancel(cancel) = step, !known(cancel.target) {
                problems.append(field("script", index).error("no request is named '\(cancel.target)'", hint: suggestion(cancel.target)))
            }
        }
        problems += afterProblems(requests, suggestion: suggestion)
        if let expectations = top["expect"].flatMap({ try? $0.mapping(["requests", "allowAnomalies", "exchanges"]) })?["requests"] {
            for expectation in scenario.expectations.requests {
                let place = (try? expectations.mapping(scenario.expectations.requests.map(\.target)))?[expectation.target] ?? expectations
                guard known(expectation.target) else {
                    problems.append(place.error("no request is named '\(expectation.target)'", hint: suggestion(expectation.target)))
                    continue
                }
                // Pieces are counted for stream requests only.
                if expectation.pieces != nil, requests.contains(where: { $0.isNamed(expectation.target) && !$0.step.stream }) {
                    let key = (try? place.mapping(ScenarioReader.requestExpectationKeys))?["pieces"]
                    problems.append((key ?? place).error("'\(expectation.target)' is not a stream request, so it has no pieces to count",
                                                          hint: "add stream: true to its script step, or expect bodyBytes instead"))
                }
            }
        }
        var faultNames = Set<String>()
        for (index, site) in scenario.faults.enumerated() {
            if !faultNames.insert(site.name).inserted {
                problems.append(field("faults", index).error("two faults are named '\(site.name)'", hint: "give each fault its own 'name'"))
            }
            if case .tokenExpiry = site.kind, scenario.traffic.auth == nil {
                problems.append(field("faults", index).error("a tokenExpiry fault needs a token server", hint: "add traffic.auth"))
            }
        }
        if scenario.client.authenticates && scenario.traffic.auth == nil {
            problems.append((top["client"] ?? top.owner).error("client.auth needs a token server", hint: "add traffic.auth (token, protect)"))
        }
        if scenario.traffic.cassette == nil && scenario.traffic.stubs.isEmpty && scenario.traffic.auth == nil {
            problems.append((top["traffic"] ?? top.owner).error("nothing answers the requests",
                                                               hint: "add traffic.cassette (a .har or .har.gz) or traffic.stubs"))
        }
        for (index, decision) in (scenario.schedule?.faults ?? []).enumerated() where !faultNames.contains(decision.site) {
            let hint = Field.closest(to: decision.site, in: scenario.faults.map(\.name)).map { "did you mean '\($0)'?" }
                ?? (scenario.faults.isEmpty ? "the scenario defines no faults: add them under faults, or drop this decision"
                    : "faults: \(scenario.faults.map(\.name).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(separator: ", "))")
            problems.append(scheduleField("faults", index, "site").error("the schedule names a fault '\(decision.site)' the scenario does not define", hint: hint))
        }
        problems.append(contentsOf: scheduleRequestProblems())
        if scenario.client.authenticates, let auth = scenario.traffic.auth, auth.token.url.contains("*") || auth.token.url.hasPrefix("/") {
            problems.append(field(["traffic", "auth", "token"]).error(
                "with client.auth the token endpoint must be a full URL (the client's refresh requests exactly it)",
                hint: "write it without '*', with its scheme and host, e.g. POST https://auth.example.com/token"))
        }
        guard !problems.isEmpty else { return }
        let ordered = problems.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        var first = ordered[0]
        first.more = Array(ordered.dropFirst()) + first.more
        throw first
    }

    /// Every `after` names a request of the script, not its own step, and no chain of `after`s
    /// comes back to where it started (those steps would wait for each other for ever). Linear in
    /// the script: a chain of thousands of pages loads at once.
    private func afterProblems(_ requests: [ScriptRequest], suggestion: (String) -> String) -> [ScenarioError] {
        var problems: [ScenarioError] = []
        // A request's or a step's name → its step's name (the first, as `isNamed` finds it).
        var stepOf: [String: String] = [:]
        for request in requests {
            if stepOf[request.name] == nil { stepOf[request.name] = request.step.name }
            if stepOf[request.step.name] == nil { stepOf[request.step.name] = request.step.name }
        }
        var waitsFor: [String: String] = [:]   // a step's name → the step its `after` names (one: names are unique)
        var places: [String: Field] = [:]
        for (index, step) in scenario.script.enumerated() {
            guard case let .request(request) = step, let after = request.after else { continue }
            let item = field("script", index)
            let place = (try? item.mapping(Self.requestStepKeys))?["after"] ?? item
            guard let waited = stepOf[after] else {
                problems.append(place.error("no request is named '\(after)'", hint: suggestion(after)))
                continue
            }
            guard waited != request.name else {
                problems.append(place.error("'\(request.name)' cannot wait for itself",
                                            hint: "name another request, or use 'repeat' with 'every' to space its own sends"))
                continue
            }
            waitsFor[request.name] = waited
            places[request.name] = place
        }
        // A cycle: following `after` from a step leads back to one on the way (reported once, at
        // the first of its steps in the file). Each step is walked once: a walk stops at a step
        // an earlier walk settled.
        var settled = Set<String>()
        let indices = scriptIndex
        for (index, step) in scenario.script.enumerated() {
            guard case let .request(request) = step, !settled.contains(request.name), waitsFor[request.name] != nil else { continue }
            var path: [String] = [request.name]
            var position: [String: Int] = [request.name: 0]
            while let next = waitsFor[path.last!], !settled.contains(next), position[next] == nil {
                position[next] = path.count
                path.append(next)
            }
            settled.formUnion(path)
            guard let next = waitsFor[path.last!], let start = position[next] else { continue }
            let cycle = Array(path[start...])
            let first = cycle.min { (indices[$0] ?? .max) < (indices[$1] ?? .max) } ?? cycle[0]
            let from = cycle.firstIndex(of: first)!
            let ordered = Array(cycle[from...] + cycle[..<from])
            // A long cycle is named by its ends: the message stays one readable line.
            let shown = ordered.count <= 6 ? ordered + [first]
                : Array(ordered.prefix(3)) + ["… \(ordered.count - 5) more …"] + Array(ordered.suffix(2)) + [first]
            let text = shown.map { $0.hasPrefix("… ") ? $0 : "'\($0)'" }.joined(separator: " waits for ")
            problems.append((places[first] ?? field("script", index)).error("\(text): none of them would ever be sent",
                                                                            hint: "remove one 'after', so that the chain starts somewhere"))
        }
        return problems
    }

    /// Each request step's place in the script, by name.
    private var scriptIndex: [String: Int] {
        var indices: [String: Int] = [:]
        for (index, step) in scenario.script.enumerated() {
            if case let .request(request) = step, indices[request.name] == nil { indices[request.name] = index }
        }
        return indices
    }

    /// The keys a request or target step may have (for pointing at one of them).
    private static let requestStepKeys = ["request", "target", "name", "headers", "body", "json", "multipart", "stream", "validate",
                                          "repeat", "at", "every", "after"]

    /// Every request a schedule's decisions name is one the run sends: a script request's name as
    /// outputs print it (`items#2`), or `token` for the client's token refreshes. One problem per
    /// decision naming another.
    private func scheduleRequestProblems() -> [ScenarioError] {
        guard let schedule = scenario.schedule else { return [] }
        var problems: [ScenarioError] = []
        var names = scenario.requests.map(\.name)
        if scenario.client.authenticates { names.append("token") }
        let known = Set(names)
        let lists: [(String, [String?])] = [("faults", schedule.faults.map(\.request)), ("jitter", schedule.jitter.map(\.request)),
                                            ("metrics", schedule.metrics.map(\.request))]
        for (list, requests) in lists {
            for (index, request) in requests.enumerated() {
                guard let request, !known.contains(request) else { continue }
                var hint = Field.closest(to: request, in: names).map { "did you mean '\($0)'?" } ?? ""
                if hint.isEmpty, scenario.requests.contains(where: { $0.step.name == request && $0.name != request }) {
                    hint = "a repeated step's requests are named '\(request)#1', '\(request)#2', ..."
                }
                problems.append(scheduleField(list, index, "request").error("no request of the run is named '\(request)'",
                                                                            hint: hint.isEmpty ? "requests: \(names.prefix(10).joined(separator: ", "))" : hint))
            }
        }
        return problems
    }

    /// `schedule.LIST[index].key` (or the closest enclosing value found).
    private func scheduleField(_ list: String, _ index: Int, _ key: String) -> Field {
        let items = (top["schedule"].flatMap { try? $0.mapping(["faults", "exact", "order", "jitter", "metrics", "origin"]) }?[list])
            .flatMap { try? $0.list() }
        guard let items, index < items.count else { return top["schedule"] ?? top.owner }
        return (try? items[index].mapping(["site", "request", "attempt", "occurrence", "drawn"]))?[key] ?? items[index]
    }

    /// The value at a path of mapping keys (or the closest enclosing value found).
    private func field(_ path: [String]) -> Field {
        var current = top.owner
        for key in path {
            guard case let .mapping(mapping) = current.node, let pair = mapping.first(where: { $0.key.string == key }) else { return current }
            current = current.child(key, pair.value)
        }
        return current
    }

    /// The `index`-th item of the list under `key` (for pointing at it). The list is taken apart
    /// once: a file of thousands of clashing steps points at each in turn.
    func field(_ key: String, _ index: Int) -> Field {
        let items = lists.items(of: key) { top[key].flatMap { try? $0.list() } ?? [] }
        return index < items.count ? items[index] : top.owner
    }

    /// The lists ``field(_:_:)`` has taken apart, by key.
    private let lists = ListCache()

    private final class ListCache {
        private var byKey: [String: [Field]] = [:]

        func items(of key: String, _ make: () -> [Field]) -> [Field] {
            if let items = byKey[key] { return items }
            let items = make()
            byKey[key] = items
            return items
        }
    }
}
