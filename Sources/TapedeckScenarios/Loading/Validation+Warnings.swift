import Foundation
import TapedeckClient
import Yams

/// What a file says that loads but can never take effect: a fault whose route no request of the
/// run can match, a cancel waiting for a backoff or an attempt that never comes, a fault on
/// attempts past the client's retry limit, an expected attempt count no request reaches. Warnings, not errors: a
/// redirect (a cassette's, say) may reach a URL the file does not name.
struct LoadWarning: Sendable {
    /// Where and what, in the form of a load error (`file:line:column: path: reason — hint`).
    let problem: ScenarioError
    /// For a route that matches no request the file names: the route, so that a runner that can
    /// read the cassette drops the warning when a recorded redirect goes where the route matches.
    let route: RequestPattern?
}

/// A scenario's load warnings. Two scenarios that say the same thing are equal however their
/// files were laid out, so these never take part in equality or hashing.
struct LoadWarnings: Hashable, Sendable {
    var items: [LoadWarning] = []

    static func == (lhs: LoadWarnings, rhs: LoadWarnings) -> Bool { true }

    func hash(into hasher: inout Hasher) {}
}

extension Validation {
    /// What the file says that can never take effect (see ``LoadWarning``), in file order.
    func warnings() -> [LoadWarning] {
        var warnings: [LoadWarning] = []
        let targets = Self.reachable(scenario)
        for (index, site) in scenario.faults.enumerated() {
            guard let pattern = site.pattern else { continue }
            if case .tokenExpiry = site.kind { continue }
            let matched = targets.contains { target in
                // A redirect's method may change on the way: only its URL counts.
                target.method.map { pattern.matches(method: $0, url: target.url) } ?? RequestPattern(url: pattern.url).matches(method: "GET", url: target.url)
            }
            if matched { continue }
            let place = Self.child(field("faults", index), "route")
            warnings.append(LoadWarning(
                problem: place.error("'\(pattern)' matches no request of the script; it can never fire",
                                     hint: "check the method and URL against the script's requests, e.g. \(Self.example(scenario, closestTo: pattern))"),
                route: pattern))
        }
        // With client.auth, a refresh retries a request too, and the token route's attempts count
        // refreshes over the whole run: the attempt numbers have no bound then (left alone here).
        // But a refresh's retry waits for no delay: only client.retry makes backoffs.
        guard !scenario.client.authenticates else {
            guard (scenario.client.retry?.limit ?? 0) == 0 else { return warnings }
            for (index, step) in scenario.script.enumerated() {
                guard case let .cancel(cancel) = step, case .duringBackoff = cancel.trigger else { continue }
                warnings.append(LoadWarning(problem: Self.child(field("script", index), "during").error(
                    "the client does not retry on its own (no client.retry): with client.auth, '\(cancel.target)' waits between attempts "
                        + "only for a token refresh, which is no backoff; this cancel can never happen",
                    hint: "add client.retry, or cancel at a time ('at: 1s') to cancel during the refresh"), route: nil))
            }
            return warnings
        }
        let retries = scenario.client.retry?.limit ?? 0
        let most = "the client \(retries == 0 ? "does not retry" : "retries at most \(retries) time\(retries == 1 ? "" : "s")")"
        // A method the retry policy does not retry (POST under Alamofire's default methods) makes one attempt.
        let retried = Set((scenario.client.retry?.methods ?? RetryPolicy.defaultRetryableHTTPMethods.map(\.rawValue)).map { $0.uppercased() })
        let retriedText = retried.sorted().joined(separator: ", ")
        for (index, step) in scenario.script.enumerated() {
            guard case let .cancel(cancel) = step else { continue }
            let targets = scenario.requests.filter { $0.isNamed(cancel.target) }
            let waitsForRetry: Bool
            var key = "atAttempt"
            switch cancel.trigger {
            case .duringBackoff:
                waitsForRetry = true
                key = "during"
            case let .atAttempt(number): waitsForRetry = number > 1
            case .at: waitsForRetry = false
            }
            if retries > 0, waitsForRetry, !targets.isEmpty, let method = targets.first?.step.method,
               targets.allSatisfy({ !retried.contains($0.step.method.uppercased()) }) {
                let place = Self.child(field("script", index), key)
                warnings.append(LoadWarning(problem: place.error(
                    "'\(cancel.target)' is a \(method), which client.retry does not retry (its methods: \(retriedText)), so it makes one attempt; "
                        + "this cancel can never happen",
                    hint: "add \(method) to client.retry.methods, or cancel at a time ('at: 1s')"), route: nil))
                continue
            }
            switch cancel.trigger {
            case let .duringBackoff(number) where number > retries:
                let place = Self.child(field("script", index), "during")
                let reason = retries == 0
                    ? "the client does not retry, so '\(cancel.target)' never waits in a backoff; this cancel can never happen"
                    : "\(most), so '\(cancel.target)' never waits for retry \(number); this cancel can never happen"
                warnings.append(LoadWarning(problem: place.error(reason, hint: scenario.client.retry == nil ? "add client.retry, or cancel at a time ('at: 1s')"
                                                                                         : "raise client.retry.limit, or cancel during an earlier backoff"),
                                            route: nil))
            case let .atAttempt(number) where number > retries + 1:
                let place = Self.child(field("script", index), "atAttempt")
                warnings.append(LoadWarning(problem: place.error(
                    "\(most), so '\(cancel.target)' makes at most \(retries + 1) attempt\(retries == 0 ? "" : "s") and never reaches attempt \(number); "
                        + "this cancel can never happen",
                    hint: scenario.client.retry == nil ? "add client.retry, or cancel at a time ('at: 1s')" : "raise client.retry.limit, or cancel at an earlier attempt"),
                                            route: nil))
            default:
                continue
            }
        }
        // An expected attempt count no request can reach.
        for expectation in scenario.expectations.requests {
            guard let lowest = expectation.attempts?.ranges.map(\.lowerBound).min(), lowest > 1 else { continue }
            let targets = scenario.requests.filter { $0.isNamed(expectation.target) }
            guard !targets.isEmpty else { continue }
            let allOnce = targets.allSatisfy { !retried.contains($0.step.method.uppercased()) }
            let reachable = allOnce ? 1 : retries + 1
            guard lowest > reachable else { continue }
            let expect = Self.child(Self.child(top["expect"] ?? top.owner, "requests"), expectation.target)
            let why = allOnce && retries > 0
                ? "'\(expectation.target)' is a \(targets[0].step.method), which client.retry does not retry (its methods: \(retriedText)), so it makes one attempt"
                : "\(most), so '\(expectation.target)' makes at most \(reachable) attempt\(reachable == 1 ? "" : "s")"
            warnings.append(LoadWarning(problem: Self.child(expect, "attempts").error(
                "\(why) and never \(expectation.attempts!); this expectation can never hold",
                hint: allOnce && retries > 0 ? "add \(targets[0].step.method) to client.retry.methods, or expect attempts: 1"
                    : scenario.client.retry == nil ? "add client.retry, or expect attempts: 1" : "raise client.retry.limit, or expect at most \(reachable)"),
                                        route: nil))
        }
        for (index, site) in scenario.faults.enumerated() {
            guard let lowest = site.attempts?.ranges.map(\.lowerBound).min(), lowest > 1 else { continue }
            if case .tokenExpiry = site.kind { continue }
            let place = Self.child(field("faults", index), "attempts")
            if lowest > retries + 1 {
                warnings.append(LoadWarning(problem: place.error(
                    "\(most), so no request makes more than \(retries + 1) attempt\(retries == 0 ? "" : "s") and attempts \(site.attempts!) never come; "
                        + "this fault can never fire",
                    hint: scenario.client.retry == nil ? "add client.retry, or strike attempt 1" : "raise client.retry.limit, or strike attempts up to \(retries + 1)"),
                                            route: nil))
                continue
            }
            // Within the limit: the requests the route strikes may still make one attempt only.
            guard let pattern = site.pattern else { continue }
            let struck = scenario.requests.filter { pattern.matches(method: $0.step.method, url: $0.step.url) }
            guard let method = struck.first?.step.method, struck.allSatisfy({ !retried.contains($0.step.method.uppercased()) }) else { continue }
            warnings.append(LoadWarning(problem: place.error(
                "the requests its route matches are \(method)s, which client.retry does not retry (its methods: \(retriedText)), so they make one "
                    + "attempt and attempts \(site.attempts!) never come; this fault can never fire",
                hint: "add \(method) to client.retry.methods, or strike attempt 1"), route: nil))
        }
        return warnings
    }

    /// Where the run's requests can go, as far as the file says: every request of the script,
    /// the token endpoint the client refreshes at, and where the stubs redirect (`method` nil: any
    /// method, since a redirect may change it).
    static func reachable(_ scenario: Scenario) -> [(method: String?, url: URL)] {
        var targets: [(method: String?, url: URL)] = scenario.requests.map { ($0.step.method, $0.step.url) }
        if let auth = scenario.traffic.auth, let url = URL(string: auth.token.url), url.scheme != nil {
            targets.append((auth.token.method, url))
        }
        for stub in scenario.traffic.stubs {
            for response in stub.responses {
                guard let location = response.headers.first(where: { $0.name.lowercased() == "location" })?.value else { continue }
                if let absolute = URL(string: location), absolute.scheme != nil {
                    targets.append((nil, absolute))
                } else {
                    // A relative Location resolves against the request the stub answered.
                    for request in scenario.requests where stub.pattern.matches(method: request.step.method, url: request.step.url) {
                        if let resolved = URL(string: location, relativeTo: request.step.url)?.absoluteURL { targets.append((nil, resolved)) }
                    }
                }
            }
        }
        return targets
    }

    /// The request of the script most like `pattern` (fewest edits between the URLs, as far as
    /// the pattern spells them; a path pattern against paths), as a route would name it (for a hint).
    private static func example(_ scenario: Scenario, closestTo pattern: RequestPattern) -> String {
        let wanted = pattern.url.hasSuffix("*") ? String(pattern.url.dropLast()) : pattern.url
        func spelt(_ url: URL) -> String {
            guard wanted.hasPrefix("/"), let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
            return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
        func distance(_ step: RequestStep) -> Int {
            Field.editDistance(wanted, String(spelt(step.url).prefix(wanted.count + 8))) + (pattern.method.map { $0 == step.method ? 0 : 2 } ?? 0)
        }
        let best = scenario.requests.min { distance($0.step) < distance($1.step) }
        return best.map { "'\($0.step.method) \($0.step.url.absoluteString)'" } ?? "'GET http://api.test/items'"
    }

    /// The value under `key` of a mapping field (the field itself when it has none).
    static func child(_ field: Field, _ key: String) -> Field {
        guard case let .mapping(mapping) = field.node, let pair = mapping.first(where: { $0.key.string == key }) else { return field }
        return field.child(key, pair.value)
    }
}
