import ArgumentParser
import TapedeckCassettes

/// The matching options `tapedeck serve` and `tapedeck record` share: the rules a scenario file's
/// `traffic.cassette.match` gives, as flags (`--match-body json --match-header X-Tenant`).
struct MatchFlags: ParsableArguments {
    /// How URLs are compared.
    enum URLRule: String, ExpressibleByArgument, CaseIterable {
        case ignoringQueryOrder, exact, ignoringQuery
    }

    /// How bodies are compared.
    enum BodyRule: String, ExpressibleByArgument, CaseIterable {
        case ignore, raw, json, form, multipart
    }

    @Option(name: .customLong("match-url"),
            help: "How URLs are compared: ignoringQueryOrder (the query's items in any order), exact (in their order), or ignoringQuery.")
    var url: URLRule = .ignoringQueryOrder

    @Option(name: .customLong("match-body"),
            help: "How request bodies are compared: ignore, raw (byte for byte), json (key order and spaces ignored), form (field order ignored) or multipart (the boundary ignored).")
    var body: BodyRule = .ignore

    @Option(name: .customLong("match-header"),
            help: "A header field whose value must match too (repeat the option for several).")
    var headers: [String] = []

    /// The rules these flags give.
    var rules: MatchRules {
        let url: MatchRules.URLRule = switch self.url {
        case .ignoringQueryOrder: .ignoringQueryOrder
        case .exact: .exact
        case .ignoringQuery: .ignoringQuery
        }
        let body: MatchRules.BodyRule = switch self.body {
        case .ignore: .ignore
        case .raw: .raw
        case .json: .json
        case .form: .form
        case .multipart: .multipart
        }
        return MatchRules(url: url, headers: headers, body: body)
    }
}
