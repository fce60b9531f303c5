/// Checks that hold across a scenario's parts: names are unique, every name a cancel, an
/// expectation or a schedule uses exists, and features have what they need.
struct Validation {
    let scenario: Scenario
    let top: Fields

    func check() throws(ScenarioError) {
        let requests = scenario.requests
        let stepNames = scenario.script.compactMap { step -> String? in
            if case let .request(request) = step { return request.name }
            return nil
        }
        var seen = Set<String>()
        for (index, name) in stepNames.enumerated() where !seen.insert(name).inserted {
            throw field("script", index).error("two requests are named '\(name)'", hint: "give each request step its own 'name'")
        }
        guard !requests.isEmpty else {
            throw (top["script"] ?? top.owner).error("the script sends no request", hint: "add '- request: GET http://api.test/items'")
        }
        func known(_ name: String) -> Bool { requests.contains { $0.isNamed(name) } }
        func suggestion(_ name: String) -> String {
            let names = stepNames + requests.map(\.name)
            return Field.closest(to: name, in: names).map { "did you mean '\($0)'?" } ?? "requests: \(stepNames.joined(separator: ", "))"
        }
        for (index, step) in scenario.script.enumerated() {
            if case let .cancel(cancel) = step, !known(cancel.target) {
                throw field("script", index).error("no request is named '\(cancel.target)'", hint: suggestion(cancel.target))
            }
        }
        if let expectations = top["expect"].flatMap({ try? $0.mapping(["requests", "allowAnomalies", "exchanges"]) })?["requests"] {
            for expectation in scenario.expectations.requests where !known(expectation.target) {
                let place = (try? expectations.mapping(scenario.expectations.requests.map(\.target)))?[expectation.target] ?? expectations
                throw place.error("no request is named '\(expectation.target)'", hint: suggestion(expectation.target))
            }
        }
        var faultNames = Set<String>()
        for (index, site) in scenario.faults.enumerated() {
            guard faultNames.insert(site.name).inserted else {
                throw field("faults", index).error("two faults are named '\(site.name)'", hint: "give each fault its own 'name'")
            }
            if case .tokenExpiry = site.kind, scenario.traffic.auth == nil {
                throw field("faults", index).error("a tokenExpiry fault needs a token server", hint: "add traffic.auth")
            }
        }
        if scenario.client.authenticates && scenario.traffic.auth == nil {
            throw (top["client"] ?? top.owner).error("client.auth needs a token server", hint: "add traffic.auth (token, protect)")
        }
        if scenario.traffic.cassette == nil && scenario.traffic.stubs.isEmpty && scenario.traffic.auth == nil {
            throw (top["traffic"] ?? top.owner).error("nothing answers the requests",
                                                     hint: "add traffic.cassette (a .har or .har.gz) or traffic.stubs")
        }
        for decision in scenario.schedule?.faults ?? [] where !faultNames.contains(decision.site) {
            throw (top["schedule"] ?? top.owner).error("the schedule names a fault '\(decision.site)' the scenario does not define")
        }
    }

    /// The `index`-th item of the list under `key` (for pointing at it).
    private func field(_ key: String, _ index: Int) -> Field {
        guard let list = top[key], let items = try? list.list(), index < items.count else { return top.owner }
        return items[index]
    }
}
