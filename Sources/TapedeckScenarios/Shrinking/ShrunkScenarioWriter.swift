public import Foundation
import TapedeckScheduling
import Yams

/// Writes a shrink's result as a scenario file anyone can run with `tapedeck run`: the original
/// file's sections as they were (relative paths rewritten to resolve from the new file), its faults
/// cut to the sites the schedule uses — explicit, without `probability` or `enabled`, with the
/// simplified values — and an exact `schedule:` naming the file and seed it came from.
///
/// ```swift
/// let result = try Shrinker().shrink(scenario, seed: 17)
/// let yaml = try ShrunkScenarioWriter.yaml(result, original: input, output: URL(fileURLWithPath: "min.yaml"))
/// try yaml.write(to: URL(fileURLWithPath: "min.yaml"), atomically: true, encoding: .utf8)
/// ```
public enum ShrunkScenarioWriter {
    /// The YAML text of the shrunk scenario, to be written at `output`; `original` is the file
    /// that was shrunk (its text is the starting point).
    public static func yaml(_ result: Shrinker.Result, original: URL, output: URL) throws(ScenarioError) -> String {
        let text: String
        let composed: Node?
        do {
            text = try String(contentsOf: original, encoding: .utf8)
            composed = try Yams.compose(yaml: text, CoreSchema.resolver)   // read as the loader reads it (YAML 1.2)
        } catch {
            throw ScenarioError(file: original.path, reason: "cannot read it again to write the shrunk scenario: \(error)")
        }
        guard case let .mapping(top)? = composed else { throw ScenarioError(file: original.path, reason: "not a mapping") }
        let from = original.deletingLastPathComponent()
        let to = output.deletingLastPathComponent()
        let seed = result.shrunk.origin?.seed ?? result.scenario.seed
        var pairs: [(Node, Node)] = []
        let description = "Shrunk by tapedeck shrink from \(original.lastPathComponent), seed \(seed): \(result.shrunk.decisions.count) of "
            + "\(result.original.decisions.count) decisions; fails with \(result.failure)."
            + (result.scenario.description.isEmpty ? "" : " " + result.scenario.description)
        pairs.append((Node("name"), quoted(result.scenario.name + "-shrunk")))
        pairs.append((Node("description"), quoted(description)))
        pairs.append((Node("seed"), Node(String(seed))))
        for (key, value) in top {
            guard let name = key.string else { continue }
            switch name {
            case "name", "description", "seed", "schedule": continue
            case "traffic": pairs.append((key, rebase(traffic: value, from: from, to: to)))
            case "script": pairs.append((key, rebase(script: value, from: from, to: to)))
            // An editor's link to the schema, when relative, resolves from the new file too.
            case "$schema": pairs.append((key, value.string?.contains("://") == true ? value : path(value, from: from, to: to)))
            case "faults":
                let faults = explicitFaults(value, sites: result.scenario.faults)
                if !faults.isEmpty { pairs.append((key, Node(faults))) }
            default: pairs.append((key, value))
            }
        }
        pairs.append((Node("schedule"), schedule(result.shrunk, origin: original.path)))
        let body: String
        do {
            body = try Yams.serialize(node: Self.untagged(Node(pairs)), width: -1)
        } catch {
            throw ScenarioError(file: output.path, reason: "cannot write YAML: \(error)")
        }
        let header = """
            # Written by `tapedeck shrink \(Self.commentText(OutcomeBuilder.displayPath(original.path))) --seed \(seed)`.
            # Every decision is explicit: faults fire only where `schedule.faults` says, the order of
            # ready work is FIFO except at `schedule.order`, jitter is zero except at `schedule.jitter`.
            # It fails the same way on every run and under any --seed: \(Self.commentText("\(result.failure)")).

            """
        return header + body
    }

    /// `node` with every scalar written so that it reads back as the same value without a tag:
    /// Yams writes a scalar's text and style but not its tag, so `!!float '0.5'` (a number) would
    /// come back as the text "0.5", and `!!str 123` (text) as a number.
    static func untagged(_ node: Node) -> Node {
        switch node {
        case let .scalar(scalar):
            guard let value = CoreSchema.value(of: node) else { return node }
            let asWritten: CoreSchema.Value = CoreSchema.isPlain(scalar) ? CoreSchema.resolve(scalar.string) : .string(scalar.string)
            guard value != asWritten else { return node }
            switch value {
            case let .string(text):
                return Node(text, Tag(.implicit), .doubleQuoted)
            case .null:
                return Node("null", Tag(.implicit), .plain)
            case let .bool(flag):
                return Node(flag ? "true" : "false", Tag(.implicit), .plain)
            case let .integer(digits):
                return Node(digits, Tag(.implicit), .plain)
            case let .float(text, _):
                return Node(text, Tag(.implicit), .plain)
            }
        case let .mapping(mapping):
            return Node(mapping.map { (untagged($0.key), untagged($0.value)) }, mapping.tag, mapping.style)
        case let .sequence(sequence):
            return Node(sequence.map(untagged), sequence.tag, sequence.style)
        case .alias:
            return node
        }
    }

    /// `text` on one comment line: a line break, U+2028/U+2029 or another control character (in
    /// a response body an expectation quotes, say) would end the comment and leave the rest as YAML.
    static func commentText(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            Field.breaksLine(scalar) ? " " : scalar
        }))
    }

    // MARK: faults

    /// The fault items whose sites survived, named, without chances, with simplified values.
    private static func explicitFaults(_ node: Node, sites: [FaultSite]) -> [Node] {
        guard case let .sequence(items) = node else { return [] }
        var kept: [Node] = []
        for (index, item) in items.enumerated() {
            guard case let .mapping(fields) = item else { continue }
            let kindName = value(fields, "kind")?.string ?? ""
            let siteName = value(fields, "name")?.string ?? "\(kindName)-\(index + 1)"
            guard let site = sites.first(where: { $0.name == siteName }) else { continue }
            var pairs: [(Node, Node)] = [(Node("name"), quoted(siteName))]
            for (key, field) in fields {
                guard let name = key.string, !["name", "probability", "enabled"].contains(name) else { continue }
                // A Retry-After the shrink took away.
                if name == "retryAfter", case .status(_, _, nil, _) = site.kind { continue }
                pairs.append((key, simplified(name, field, site.kind)))
            }
            kept.append(Node(pairs))
        }
        return kept
    }

    /// The value of `key` after simplification of the site's kind.
    private static func simplified(_ key: String, _ field: Node, _ kind: FaultKind) -> Node {
        switch (key, kind) {
        case let ("afterBytes", .reset(bytes)), let ("afterBytes", .truncate(bytes)): return Node(String(bytes))
        case let ("delay", .latency(delay, _)): return Node(durationText(delay))
        case let ("retryAfter", .status(_, _, retryAfter?, _)): return Node(durationText(retryAfter))
        default: return field
        }
    }

    // MARK: paths

    private static func rebase(traffic: Node, from: URL, to: URL) -> Node {
        guard case let .mapping(fields) = traffic else { return traffic }
        var pairs: [(Node, Node)] = []
        for (key, field) in fields {
            switch key.string {
            case "cassette":
                if case .scalar = field {
                    pairs.append((key, path(field, from: from, to: to)))
                } else {
                    pairs.append((key, rewriting(field, keys: ["file"], from: from, to: to)))
                }
            case "stubs":
                guard case let .sequence(stubs) = field else { pairs.append((key, field)); continue }
                pairs.append((key, Node(stubs.map { stub in
                    var rebased = rewriting(stub, keys: ["bodyFile"], from: from, to: to)
                    if case let .mapping(stubFields) = rebased, case let .sequence(responses)? = value(stubFields, "responses") {
                        rebased = replacing(stubFields, "responses", Node(responses.map { rewriting($0, keys: ["bodyFile"], from: from, to: to) }))
                    }
                    return rebased
                })))
            default:
                pairs.append((key, field))
            }
        }
        return Node(pairs)
    }

    /// A script with each request step's multipart `file:` parts rebased (a `multipart:` is a
    /// list of parts or a single part).
    private static func rebase(script: Node, from: URL, to: URL) -> Node {
        guard case let .sequence(steps) = script else { return script }
        return Node(steps.map { step in
            guard case let .mapping(fields) = step, let parts = value(fields, "multipart") else { return step }
            let rebased: Node
            switch parts {
            case let .sequence(items): rebased = Node(items.map { rewriting($0, keys: ["file"], from: from, to: to) })
            default: rebased = rewriting(parts, keys: ["file"], from: from, to: to)
            }
            return replacing(fields, "multipart", rebased)
        })
    }

    private static func rewriting(_ node: Node, keys: Set<String>, from: URL, to: URL) -> Node {
        guard case let .mapping(fields) = node else { return node }
        return Node(fields.map { key, field in (key, keys.contains(key.string ?? "") ? path(field, from: from, to: to) : field) })
    }

    private static func replacing(_ fields: Node.Mapping, _ name: String, _ replacement: Node) -> Node {
        Node(fields.map { key, field in (key, key.string == name ? replacement : field) })
    }

    private static func path(_ node: Node, from: URL, to: URL) -> Node {
        guard let text = node.string, !text.hasPrefix("/") else { return node }
        return quoted(relativePath(of: from.appendingPathComponent(text), from: to))
    }

    /// `target` as a path relative to the directory `base`.
    static func relativePath(of target: URL, from base: URL) -> String {
        let targetParts = target.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let baseParts = base.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < min(targetParts.count, baseParts.count) && targetParts[common] == baseParts[common] { common += 1 }
        let ups = Array(repeating: "..", count: baseParts.count - common)
        return (ups + targetParts[common...]).joined(separator: "/")
    }

    private static func value(_ fields: Node.Mapping, _ name: String) -> Node? {
        fields.first { $0.key.string == name }?.value
    }

    // MARK: schedule

    private static func schedule(_ schedule: Schedule, origin: String) -> Node {
        func flow(_ pairs: [(String, Node)]) -> Node {
            Node(pairs.map { (Node($0.0), $0.1) }, .implicit, .flow)
        }
        func request(_ name: String?) -> [(String, Node)] { name.map { [("request", quoted($0))] } ?? [] }
        var pairs: [(Node, Node)] = [
            (Node("origin"), flow([("file", quoted(origin)), ("seed", Node(String(schedule.origin?.seed ?? 0))), ("tool", quoted("tapedeck shrink"))])),
            (Node("exact"), Node("true")),
        ]
        pairs.append((Node("faults"), Node(schedule.faults.map { fault in
            flow([("site", quoted(fault.site))] + request(fault.request) + [("attempt", Node(String(fault.attempt))),
                 ("occurrence", Node(String(fault.occurrence))), ("drawn", Node(String(fault.drawn)))])
        })))
        pairs.append((Node("order"), Node(schedule.order.map { flow([("point", Node(String($0.point))), ("rank", Node(String($0.rank)))]) })))
        pairs.append((Node("jitter"), Node(schedule.jitter.map { draw in
            flow(request(draw.request) + [("attempt", Node(String(draw.attempt))), ("occurrence", Node(String(draw.occurrence))),
                                          ("drawn", Node(String(draw.nanoseconds)))])
        })))
        pairs.append((Node("metrics"), Node(schedule.metrics.map { order in
            flow(request(order.request) + [("attempt", Node(String(order.attempt))), ("occurrence", Node(String(order.occurrence)))])
        })))
        return Node(pairs)
    }

    private static func quoted(_ text: String) -> Node {
        Node(text, .implicit, .doubleQuoted)
    }

    /// `250ms`, `2s`, `1500us`, `7ns`, `0s`.
    static func durationText(_ duration: Duration) -> String {
        let nanoseconds = duration.wholeNanoseconds
        if nanoseconds == 0 { return "0s" }
        for (unit, size) in [("s", Int64(1_000_000_000)), ("ms", 1_000_000), ("us", 1_000)] where nanoseconds % size == 0 && nanoseconds != 0 {
            return "\(nanoseconds / size)\(unit)"
        }
        return "\(nanoseconds)ns"
    }
}
