import Foundation
import Yams

// The `client.provider` section (a Moya-style provider as the client) and the script's
// `target:` steps that send its targets.
extension ScenarioReader {
    func provider(_ field: Field) throws(ScenarioError) -> ProviderSetup {
        let keys = try field.mapping(["baseURL", "stub", "trackInflights", "plugins", "targets"])
        var provider = ProviderSetup()
        try keys.read("baseURL") { (base) throws(ScenarioError) in provider.baseURL = try absoluteURL(base) }
        try keys.read("stub") { (stub) throws(ScenarioError) in provider.stub = try stubMode(stub) }
        provider.trackInflights = try keys["trackInflights"]?.bool() ?? false
        try keys.read("plugins") { (plugins) throws(ScenarioError) in
            provider.plugins = try plugins.list(allowingSingle: true).map { (item) throws(ScenarioError) in try plugin(item) }
        }
        let targets = try keys.required("targets", hint: "name the targets the script sends, e.g. targets: {items: {path: /items}}")
        guard case let .mapping(mapping) = targets.node, !mapping.isEmpty else {
            throw targets.error("expected targets by name, e.g. 'items: {path: /items}'")
        }
        for (key, value) in mapping {
            guard let name = key.string, !name.isEmpty else { throw targets.error("a target's name must be text") }
            let target = try self.target(targets.child(name, value), name: name)
            // A baseURL that is there but wrong (the provider's or the target's) has its own
            // error: the target does not lack one then.
            if target.baseURL == nil && provider.baseURL == nil && keys["baseURL"] == nil && value.mapping?["baseURL"] == nil {
                throw targets.child(name, value).error("target '\(name)' has no base URL",
                                                       hint: "give 'baseURL:' here or in client.provider")
            }
            provider.targets.append(target)
        }
        return provider
    }

    private func target(_ field: Field, name: String) throws(ScenarioError) -> TargetSetup {
        let keys = try field.mapping(["baseURL", "path", "method", "task", "headers", "validate", "auth", "sample", "stub"])
        var target = TargetSetup(name: name, path: try keys["path"]?.string() ?? "")
        try keys.read("baseURL") { (base) throws(ScenarioError) in target.baseURL = try absoluteURL(base) }
        try keys.read("method") { (method) throws(ScenarioError) in
            target.method = try method.string().uppercased()
            guard target.method.allSatisfy({ $0.isLetter }) else { throw method.error("'\(target.method)' is not an HTTP method") }
        }
        try keys.read("task") { (task) throws(ScenarioError) in
            target.task = try self.task(task)
            switch target.task {
            case .data, .form, .json:
                if ["GET", "HEAD"].contains(target.method) {
                    throw task.error("a \(target.method) request carries no body, and this task sends one",
                                     hint: "give the target 'method: POST' (or PUT, PATCH), or use a 'query' task")
                }
            default:
                break
            }
        }
        try keys.read("headers") { (headers) throws(ScenarioError) in target.headers = try self.headers(headers) }
        try keys.read("validate") { (validate) throws(ScenarioError) in target.validation = try targetValidation(validate) }
        try keys.read("auth") { (auth) throws(ScenarioError) in
            let scheme = try auth.string()
            switch scheme.lowercased() {
            case "none": target.auth = nil
            case "bearer": target.auth = "Bearer"
            case "basic": target.auth = "Basic"
            default:
                guard !scheme.isEmpty, !scheme.contains(" ") else {
                    throw auth.error("'\(scheme)' is not an authorization scheme", hint: "use bearer, basic, none or one word")
                }
                target.auth = scheme
            }
        }
        try keys.read("sample") { (sample) throws(ScenarioError) in target.sample = try response(sample.mapping(Self.responseKeys)) }
        try keys.read("stub") { (stub) throws(ScenarioError) in target.stub = try stubMode(stub) }
        return target
    }

    /// `plain`, or one of `{data: TEXT}`, `{query: {...}}`, `{form: {...}}`, `{json: {...}}`.
    private func task(_ field: Field) throws(ScenarioError) -> TaskSetup {
        if field.isScalar {
            _ = try field.choice(["plain"])
            return .plain
        }
        let keys = try field.mapping(["data", "query", "form", "json"])
        let (kind, value) = try keys.one(of: ["data", "query", "form", "json"])
        if kind == "data" { return .data(Data(try value.string().utf8)) }
        guard value.isMapping else { throw value.error("'\(kind)' parameters must be a mapping of names to values") }
        let parameters = try jsonText(value)
        switch kind {
        case "query": return .query(parameters)
        case "form": return .form(parameters)
        default: return .json(parameters)
        }
    }

    private func targetValidation(_ field: Field) throws(ScenarioError) -> TargetValidation {
        if case .sequence = field.node {
            return .codes(try field.list().map { (item) throws(ScenarioError) in try item.int(in: 100...999) })
        }
        switch try field.choice(["none", "successCodes", "successAndRedirectCodes"]) {
        case "successCodes": return .successCodes
        case "successAndRedirectCodes": return .successAndRedirectCodes
        default: return .none
        }
    }

    /// The names under `client.provider.targets` as the file spells them, readable or not (a
    /// step naming one that could not be read is not told the target does not exist); nil when
    /// the file has no provider.
    static func declaredTargets(in client: Field?) -> Set<String>? {
        func value(_ node: Node?, _ key: String) -> Node? {
            guard case let .mapping(pairs)? = node else { return nil }
            return pairs.first { $0.key.string == key }?.value
        }
        guard let provider = value(client?.node, "provider") else { return nil }
        guard case let .mapping(targets)? = value(provider, "targets") else { return [] }
        return Set(targets.compactMap { $0.key.string })
    }

    /// `never`, `immediate`, or `{delayed: 2s}`.
    private func stubMode(_ field: Field) throws(ScenarioError) -> StubMode {
        if field.isScalar {
            return try word(field, ["never", "immediate"], forms: [("delayed", "{delayed: DURATION}")]) == "never" ? .never : .immediate
        }
        let keys = try field.mapping(["delayed"])
        return .delayed(try keys.required("delayed").duration())
    }

    /// `{accessToken: TOKEN}`, `activity`, or `logger`.
    private func plugin(_ field: Field) throws(ScenarioError) -> PluginSetup {
        if field.isScalar {
            return try word(field, ["activity", "logger"], forms: [("accessToken", "{accessToken: TOKEN}")]) == "activity" ? .activity : .logger
        }
        let keys = try field.mapping(["accessToken"])
        return .accessToken(try keys.required("accessToken").string())
    }

    /// A scalar that must be one of `words`, where a mapping of one of `forms` (`{delayed:
    /// DURATION}`) is allowed instead: the error lists every form, and a word that is (or is close
    /// to) a form's key points at that form.
    private func word(_ field: Field, _ words: [String], forms: [(key: String, form: String)]) throws(ScenarioError) -> String {
        let text = try field.string()
        if words.contains(text) { return text }
        let every = (words + forms.map(\.form)).joined(separator: ", ")
        if let form = forms.first(where: { $0.key == text }) {
            throw field.error("'\(text)' needs a value", hint: "write \(form.form)")
        }
        let close = Field.closest(to: text, in: words + forms.map(\.key))
        let meant = close.map { close in forms.first { $0.key == close }?.form ?? close }
        throw field.error("'\(text)' is not one of \(every)", hint: (meant.map { "did you mean '\($0)'? " } ?? "") + "choose one of them")
    }

    private func absoluteURL(_ field: Field) throws(ScenarioError) -> URL {
        let text = try field.string()
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil,
              url.query == nil else {
            throw field.error("'\(text)' is not an absolute http(s) URL without a query", hint: "e.g. http://api.test")
        }
        return url
    }

    /// A `- target: NAME` step: the provider's target sent as a request (`name`, `repeat`, `at`,
    /// `every` as for `request:` steps); its method and URL are the target's.
    func targetStep(_ keys: Fields, provider: ProviderSetup?) throws(ScenarioError) -> RequestStep {
        let field = try keys.required("target")
        let name = try field.string()
        var step: RequestStep
        if let provider, let target = provider.target(named: name), target.baseURL != nil || provider.baseURL != nil {
            step = RequestStep(name: try keys["name"]?.name() ?? name, method: target.method, url: provider.url(of: target))
        } else if declaredTargets?.contains(name) == true {
            // The target is in the file but could not be read (or the provider's base URL it
            // needs could not): its own error says why, and the file is refused for it; the
            // step's other values are still checked.
            step = RequestStep(name: try keys["name"]?.name() ?? name, method: "GET", url: URL(string: "http://unreadable.target")!)
        } else if let names = provider.map({ $0.targets.map(\.name) }) ?? declaredTargets.map({ $0.sorted() }) {
            let close = Field.closest(to: name, in: names).map { "did you mean '\($0)'? " } ?? ""
            throw field.error("no target named '\(name)'", hint: close + "targets: \(names.joined(separator: ", "))")
        } else {
            throw field.error("a 'target:' step needs a provider", hint: "describe the targets in client.provider.targets")
        }
        step.target = name
        try readTiming(keys, into: &step)
        return step
    }
}
