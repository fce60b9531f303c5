import Foundation
import TapedeckCassettes

/// Checks a run's requests against the scenario's expectations, one failure per unmet check.
struct ExpectationChecker {
    let expectations: Expectations
    let requests: [RequestOutcome]
    /// The requests the script sends (what a step's name covers: its own repeats, not another
    /// step that happens to be named `x#7`).
    let scripted: [ScriptRequest]
    /// The network's exchanges, as (method, URL) pairs, for the per-route counts.
    let exchanges: [(method: String, url: URL)]

    func failures() -> [Failure] {
        var failures: [Failure] = []
        for expected in expectations.exchanges {
            let count = exchanges.filter { expected.route.matches(method: $0.method, url: $0.url) }.count
            if !expected.count.contains(count) {
                failures.append(Failure(kind: .expectation, request: nil, check: "exchanges",
                                        message: "\(expected.route): expected \(expected.count) exchanges, the network saw \(count)"))
            }
        }
        for expectation in expectations.requests {
            let covered = scripted.names(coveredBy: expectation.target)
            let matching = requests.filter { covered.contains($0.name) }
            for request in matching {
                for (check, message) in problems(expectation, request) {
                    failures.append(Failure(kind: .expectation, request: request.name, check: check, message: message))
                }
            }
        }
        return failures
    }

    private func problems(_ expected: RequestExpectation, _ request: RequestOutcome) -> [(String, String)] {
        var problems: [(String, String)] = []
        // A status counts only when its response arrived whole: a head followed by a reset, a
        // timeout or a cancel mid-body is a failed transfer, not that status.
        let whole = [.none, .validation, .serialization].contains(request.error)
        let got = request.status.map { status in
            if whole { return String(status) }
            // Cancelled after an answer came (during a retry's backoff, or mid-body): no transfer failed.
            if request.error == .cancelled { return "\(status), then the request was cancelled" }
            // The answer came whole; what failed was the retrier's attempt to recover from it
            // (a token refresh after a 401).
            if request.error == .retry { return "\(status), then the retry failed" }
            return "a \(status) head, then the transfer failed (\(request.error.rawValue))"
        } ?? "no response (\(request.error.rawValue))"
        if let statuses = expected.status, !(whole && request.status.map(statuses.contains) == true) {
            problems.append(("status", "expected \(statuses), got \(got)"))
        }
        if let kind = expected.error, kind != request.error {
            problems.append(("error", "expected \(kind.rawValue), got \(request.error.rawValue)" + (request.errorDetail.map { " (\(OutcomeText.reason($0)))" } ?? "")))
        }
        if let attempts = expected.attempts, !attempts.contains(request.attempts) {
            problems.append(("attempts", "expected \(attempts), made \(request.attempts)"))
        }
        if let deadline = expected.finishedBy {
            if let end = request.end {
                if end > deadline { problems.append(("finishedBy", "expected by \(Self.format(deadline)), finished at \(Self.format(end))")) }
            } else {
                problems.append(("finishedBy", "expected by \(Self.format(deadline)), never finished"))
            }
        }
        if let bytes = expected.bodyBytes, !bytes.contains(request.bodyBytes) {
            problems.append(("bodyBytes", "expected \(bytes) body bytes, got \(request.bodyBytes)"))
        }
        if let pieces = expected.pieces {
            if let got = request.pieces {
                if !pieces.contains(got) { problems.append(("pieces", "expected \(pieces) pieces, the stream handler got \(got)")) }
            } else {
                problems.append(("pieces", "not a stream request: add stream: true to its script step"))
            }
        }
        // The stdlib's search (`firstRange(of:)`), not Foundation's `contains`, which goes through NSString.
        if let fragment = expected.bodyContains, String(decoding: request.body ?? Data(), as: UTF8.self).firstRange(of: fragment) == nil {
            problems.append(("bodyContains", "the body (\(request.bodyBytes) bytes) does not contain '\(fragment)'"))
        }
        for field in expected.json {
            let actual = JSONPath.value(at: field.path, in: request.body ?? Data())
            if actual != JSONPath.normalized(field.equals) {
                problems.append(("json", "\(field.path): expected \(field.equals), got \(actual ?? "nothing")"))
            }
        }
        return problems
    }

    /// A duration as the timeline writes it (`4.5s`, `250ms`).
    private static func format(_ duration: Duration) -> String {
        TextTimeline.format(Int64(duration.wholeNanoseconds))
    }
}

/// Reads a value out of a JSON body by a path of keys and `[index]`es, as normalised JSON text.
enum JSONPath {
    static func value(at path: String, in body: Data) -> String? {
        let steps = components(path)
        // Scanned first: only the value found is parsed. A document the scanner declines (not
        // JSON, or JSON it is stricter about) goes to the full parser, which has the last word.
        switch JSONPathScan.find(steps, in: body) {
        case let .value(range):
            return normalized(body[body.startIndex + range.lowerBound..<body.startIndex + range.upperBound])
        case .missing:
            return nil
        case .declined:
            break
        }
        guard var current = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else { return nil }
        for component in steps {
            switch component {
            case let .key(key):
                guard let object = current as? [String: Any], let next = object[key] else { return nil }
                current = next
            case let .index(index):
                guard let array = current as? [Any], index >= 0, index < array.count else { return nil }
                current = array[index]
            }
        }
        return text(current)
    }

    /// What is wrong with `path` as a path, or nil when it is one (the empty path is the whole body).
    static func problem(in path: String) -> String? {
        switch parse(path) {
        case .success: return nil
        case let .failure(problem): return problem.reason
        }
    }

    /// JSON text in one canonical form (sorted keys), so `{"a":1}` equals `{ "a": 1 }`.
    static func normalized(_ json: String) -> String? {
        normalized(Data(json.utf8))
    }

    private static func normalized(_ json: Data) -> String? {
        guard let value = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]) else { return nil }
        return text(value)
    }

    private static func text(_ value: Any) -> String? {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private static func components(_ path: String) -> [JSONPathStep] {
        (try? parse(path).get()) ?? []
    }

    private struct PathProblem: Error {
        let reason: String
    }

    /// The steps of `path`: keys joined by dots, `[N]` indexes, and `["key"]` (or `['key']`) for a
    /// key holding a dot or a bracket (`meta["user.name"]`).
    private static func parse(_ path: String) -> Result<[JSONPathStep], PathProblem> {
        var steps: [JSONPathStep] = []
        var rest = Substring(path)
        guard !rest.isEmpty else { return .success([]) }
        var expectKey = true   // at the start, or after a dot
        while !rest.isEmpty {
            if rest.first == "[" {
                if expectKey, !steps.isEmpty { return .failure(PathProblem(reason: "an empty key (two dots in a row, or a dot at an end)")) }
                rest = rest.dropFirst()
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    guard let close = rest.dropFirst().firstIndex(of: quote), rest[rest.index(after: close)...].first == "]" else {
                        return .failure(PathProblem(reason: "a quoted key without its closing \(quote)]"))
                    }
                    steps.append(.key(String(rest[rest.index(after: rest.startIndex)..<close])))
                    rest = rest[rest.index(close, offsetBy: 2)...]
                } else {
                    guard let close = rest.firstIndex(of: "]") else { return .failure(PathProblem(reason: "a '[' without its ']'")) }
                    let index = rest[..<close]
                    guard let number = Int(index), number >= 0 else {
                        return .failure(PathProblem(reason: "'[\(index)]' is not an index (a whole number from 0) nor a quoted key ([\"a.b\"])"))
                    }
                    steps.append(.index(number))
                    rest = rest[rest.index(after: close)...]
                }
                expectKey = false
                if let next = rest.first, next != "[", next != "." { return .failure(PathProblem(reason: "'\(rest)' follows an index (join keys with a dot)")) }
            } else if rest.first == "." {
                // A dot at the start, after another dot, or at the end joins nothing.
                if expectKey { return .failure(PathProblem(reason: "an empty key (two dots in a row, or a dot at an end)")) }
                rest = rest.dropFirst()
                expectKey = true
                if rest.isEmpty { return .failure(PathProblem(reason: "an empty key (two dots in a row, or a dot at an end)")) }
            } else {
                let key = rest.prefix { $0 != "." && $0 != "[" }
                if key.contains("]") { return .failure(PathProblem(reason: "a ']' without its '['")) }
                steps.append(.key(String(key)))
                rest = rest.dropFirst(key.count)
                expectKey = false
            }
        }
        return .success(steps)
    }
}
