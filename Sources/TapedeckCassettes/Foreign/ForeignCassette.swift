public import Foundation

/// Cassettes written by other record/replay tools, read as Tapedeck's interactions, so that
/// `tapedeck cassette import` turns them into HAR cassettes that replay anywhere Tapedeck's do.
///
/// ```swift
/// let data = try Data(contentsOf: URL(fileURLWithPath: "cassettes/test_login.yaml"))
/// let cassette = try ForeignCassette.read(data, file: "cassettes/test_login.yaml")   // format detected
/// try CassetteFile.write(cassette, to: URL(fileURLWithPath: "login.har.gz"))
/// ```
///
/// An entry that cannot become an interaction is left out and listed in ``Cassette/skipped``;
/// what the reader had to assume is in ``Cassette/notes``. Nothing is redacted here: the CLI
/// redacts by default, as it does for recordings.
public enum ForeignCassette {
    /// A cassette format another tool writes.
    public enum Format: String, CaseIterable, Sendable {
        /// vcrpy (Python): YAML or JSON, `interactions` with `request.uri` and
        /// `response.status.code`, bodies as text or `!!binary`.
        case vcrpy
        /// VCR (Ruby) and Betamax (Python), which share its shape: `http_interactions` with
        /// `body: {encoding, string | base64_string}` and a `recorded_at` per interaction.
        case vcr
        /// go-vcr (Go), versions 1 to 4: `interactions` with `request.url`, `response.code`, and
        /// a `duration` per response.
        case goVCR = "go-vcr"
        /// DVR (Swift): JSON with `interactions` whose bodies are text, a JSON value or base64 as
        /// the `Content-Type` says, and `recorded_at` in seconds since 1970.
        case dvr
        /// A Postman collection (v2.0, v2.1): each saved example response (`item[].response[]`)
        /// with the request it was saved from; `{{variables}}` from the collection, an
        /// environment, or the caller.
        case postman
        /// WireMock (Java) stub mappings, as its recorder writes them: a `mappings` folder of one
        /// mapping per file (bodies in `__files`), or a file with a `mappings` list. A mapping
        /// that matches by pattern is left out by import, and kept as a pattern stub when the
        /// file is read as it is (``Interaction/pattern``).
        case wiremock
        /// A Hoverfly simulation (`hoverctl export`, schema v1 to v5, and the older `data` list of
        /// pairs): `data.pairs` whose exact matchers name one request. A pair that matches by
        /// pattern is left out by import, and kept as a pattern stub when the file is read as it is.
        case hoverfly
        /// nock (Node.js) recordings (`nock.recorder.rec({output_objects: true})`, nockBack
        /// fixtures): a JSON list of `{scope, method, path, body, status, response, rawHeaders}`.
        case nock
        /// ExVCR (Elixir): a JSON list of `{request: {url, method, …}, response: {status_code,
        /// headers, body, type}}`; a body that is not text as an Erlang binary term in base64
        /// (`binary: true`), a transport error as `type: error` with its reason.
        case exvcr
        /// Talkback (Node.js): one JSON5 tape per request, `{meta: {host, …}, req: {url, method,
        /// headers, body}, res: {status, headers, body}}`, bodies as text or a JSON value when the
        /// tape is human-readable, else base64.
        case talkback

        /// What the CLI calls it.
        public var title: String {
            switch self {
            case .vcrpy: "vcrpy"
            case .vcr: "VCR/Betamax"
            case .goVCR: "go-vcr"
            case .dvr: "DVR"
            case .postman: "Postman collection"
            case .wiremock: "WireMock"
            case .hoverfly: "Hoverfly"
            case .nock: "nock"
            case .exvcr: "ExVCR"
            case .talkback: "Talkback"
            }
        }

        /// What a file of this format is called: `a vcrpy cassette`, `a Postman collection`.
        public var fileNoun: String {
            switch self {
            case .postman: "a Postman collection"
            case .wiremock: "WireMock mappings"
            case .hoverfly: "a Hoverfly simulation"
            case .nock: "a nock recording"
            case .exvcr: "an ExVCR cassette"
            case .talkback: "a Talkback tape"
            default: "a \(title) cassette"
            }
        }
    }

    /// The format `data` is in, judged by its top-level keys and its first interaction's shape;
    /// nil when it is none of ``Format``'s (a HAR file among them).
    public static func detect(_ data: Data) -> Format? {
        guard case let .success(root) = ForeignNode.parse(data) else { return nil }
        return detect(root)
    }

    /// What a file that failed to read as HAR is.
    enum NotHAR {
        /// Another tool's cassette, in this format.
        case format(Format)
        /// A JSON or YAML document of no format Tapedeck reads (an Insomnia export, an OpenAPI
        /// file, a HAR missing its `log`).
        case otherDocument(ForeignNode)
        /// Neither JSON nor YAML: a damaged or cut file.
        case unparsed
    }

    /// What `data`, which failed to read as HAR, is. One that starts as JSON is only parsed as
    /// JSON (a damaged HAR file is not read a second time as YAML, which is slow).
    static func classifyAfterHARFailed(_ data: Data) -> NotHAR {
        let root: ForeignNode? = if ForeignNode.startsAsJSON(data) || ForeignNode.startsWithComment(data) {
            ForeignNode.jsonOrJSON5(data)
        } else if case let .success(node) = ForeignNode.parse(data) {
            node
        } else {
            nil
        }
        guard let root else { return .unparsed }
        return detect(root).map(NotHAR.format) ?? .otherDocument(root)
    }

    /// Whether `file` is named as YAML (`.yml`, `.yaml`): an empty one is VCR's empty cassette.
    static func isYAMLName(_ file: String) -> Bool {
        let name = file.lowercased()
        return name.hasSuffix(".yml") || name.hasSuffix(".yaml")
    }

    /// What a document that is neither HAR nor any other tool's cassette looks like, when it is
    /// one of a few files people mistake for cassettes; nil otherwise.
    static func lookalike(_ root: ForeignNode) -> String? {
        if root["__export_format"] != nil || root["_type"]?.string == "export" {
            return "it is an Insomnia export, which keeps requests but not their responses: record them with `tapedeck record`, or export a HAR file"
        }
        if root["openapi"] != nil || root["swagger"] != nil {
            return "it is an OpenAPI description, which holds no recorded answers: record the API with `tapedeck record`"
        }
        if root["values"] != nil, root["_postman_variable_scope"] != nil || root["name"] != nil && root["item"] == nil {
            return "it is a Postman environment: import its collection with `tapedeck cassette import COLLECTION OUT --environment FILE`"
        }
        if root["data"]?.elements.first?["requestTemplate"] != nil {
            return "it is a Hoverfly simulation from before schema v1 ('requestTemplate'): export it again with a current hoverctl (`hoverctl export`)"
        }
        if case let .list(elements, _) = root, let first = elements.first, first["uri"] != nil, first["method"] != nil, first["request"] == nil {
            return "it looks like a VCRURLConnection cassette (a list of {method, uri, …}), a format Tapedeck does not read: record the "
                + "traffic again through Tapedeck (a Tape in the tests, or `tapedeck record`)"
        }
        if root["imposters"] != nil || root["protocol"] != nil && root["stubs"] != nil {
            return "it is a Mountebank imposter, whose stubs answer by predicates Tapedeck does not read: record the service's traffic with "
                + "`tapedeck record` (a reverse proxy in front of it) instead"
        }
        return nil
    }

    static func detect(_ root: ForeignNode) -> Format? {
        if root["http_interactions"] != nil { return .vcr }
        if root["data"]?["pairs"] != nil { return .hoverfly }
        // Hoverfly before schema v1: `data` is the list of pairs itself.
        if let first = root["data"]?.elements.first, first["request"] != nil, first["response"] != nil, first["requestTemplate"] == nil { return .hoverfly }
        if isNock(root) { return .nock }
        if isExVCR(root) { return .exvcr }
        if isTalkback(root) { return .talkback }
        if case .list = root["mappings"] { return .wiremock }
        if root["response"] != nil, let request = root["request"],
           ["url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate", "method"].contains(where: { request[$0] != nil }) {
            return .wiremock
        }
        if root["info"]?["schema"]?.string?.contains("getpostman.com") == true || root["info"] != nil && root["item"] != nil { return .postman }
        // A collection without its `info` (cut down by hand): its items are requests or folders.
        if let first = root["item"]?.elements.first, first["request"] != nil || first["item"] != nil { return .postman }
        // VCR 1.x: a bare list of `!ruby/struct:VCR::HTTPInteraction`s.
        if case let .list(elements, _) = root, elements.first?["request"]?["uri"] != nil { return .vcr }
        // vcrpy before 1.0: a bare list whose requests give `protocol`, `host`, `port` and `path`.
        if case let .list(elements, _) = root, elements.first?["request"]?["host"] != nil { return .vcrpy }
        guard let interactions = root["interactions"] else { return nil }
        let first = interactions.elements.first
        let request = first?["request"]
        let response = first?["response"]
        if request?["uri"] != nil || response?["status"]?["code"] != nil { return .vcrpy }
        if response?["code"] != nil || request?["form"] != nil || root["version"]?.int.map({ $0 >= 1 && $0 <= 4 }) == true && request?["url"] != nil {
            return .goVCR
        }
        if request?["url"] != nil || root["name"] != nil || first?["recorded_at"] != nil { return .dvr }
        // An empty cassette: vcrpy writes `version: 1`, go-vcr `version: 1…4` too; either reads as empty.
        return root["version"] != nil ? .vcrpy : nil
    }

    /// Reads `data`, another tool's cassette, as a cassette (`file` names it in errors and notes).
    /// `format` nil detects it (``detect(_:)``). Throws when the file cannot be parsed or is in no
    /// format this reader knows; entries that cannot be read are skipped, not fatal.
    public static func read(_ data: Data, file: String, format: Format? = nil) throws(CassetteError) -> Cassette {
        try load(data, file: file, format: format).cassette
    }

    /// ``read(_:file:format:)``, also returning the format it read the file as.
    public static func readDetecting(_ data: Data, file: String, format: Format? = nil) throws(CassetteError) -> (cassette: Cassette, format: Format) {
        let reading = try load(data, file: file, format: format)
        return (reading.cassette, reading.format)
    }

    /// What reading another tool's file gave.
    public struct Reading: Sendable {
        /// The interactions, with the entries left out and the notes.
        public var cassette: Cassette
        /// The format the file was read as.
        public var format: Format
        /// What to say about the file as a whole: `12 requests have no saved example…`.
        public var remarks: [String] = []
    }

    /// The variables of a Postman environment export (`{"values": [{"key", "value", "enabled"}]}`),
    /// for ``load(_:file:format:variables:origin:keepingPatterns:replacing:)``; `file` names it in errors.
    public static func postmanEnvironment(_ data: Data, file: String) throws(CassetteError) -> [String: String] {
        guard case let .success(root) = ForeignNode.parse(data), let values = root["values"], case .list = values else {
            throw CassetteError(.json, file: file, reason: "this is no Postman environment (no 'values' list)",
                                hint: "export the environment from Postman (Environments, …, Export)")
        }
        var variables: [String: String] = [:]
        for item in values.elements where item["enabled"]?.string != "false" && item["disabled"]?.string != "true" {
            if let key = item["key"]?.string { variables[key] = item["value"]?.string ?? "" }
        }
        return variables
    }

    /// Reads `data` as ``read(_:file:format:)`` does, with `variables` for a Postman collection's
    /// `{{name}}`s (over the collection's own) and `origin` for WireMock's and Hoverfly's URLs
    /// without a host, and says what it noticed about the file as a whole. With
    /// `keepingPatterns`, a WireMock or Hoverfly stub that matches by pattern becomes an
    /// interaction with its ``Interaction/pattern`` (for replay; HAR cannot hold it) instead of
    /// being left out. `replacing` puts back the values of placeholders another tool wrote in
    /// their place (VCR's `filter_sensitive_data`: `["<GITHUB_LOGIN>": "octocat"]`) in every
    /// string of the file before it is read, as that tool does when it replays.
    public static func load(_ data: Data, file: String, format: Format? = nil, variables: [String: String] = [:],
                            origin: String = defaultStubOrigin, keepingPatterns: Bool = false,
                            replacing: [String: String] = [:]) throws(CassetteError) -> Reading {
        // (Refusing other documents, it returns a reading or throws.)
        try reading(data, file: file, format: format, variables: variables, origin: origin, refusingOtherDocuments: true,
                    keepingPatterns: keepingPatterns, replacing: replacing)!
    }

    /// ``load(_:file:format:variables:origin:keepingPatterns:replacing:)``, but nil for a document that reads as JSON or YAML in no
    /// format import knows (a `package.json` in a folder of cassettes), which a caller going
    /// through a folder leaves alone. A file that does not parse, or a cassette with problems,
    /// still throws.
    public static func loadIfCassette(_ data: Data, file: String, format: Format? = nil, variables: [String: String] = [:],
                                      origin: String = defaultStubOrigin, replacing: [String: String] = [:]) throws(CassetteError) -> Reading? {
        try reading(data, file: file, format: format, variables: variables, origin: origin, refusingOtherDocuments: false, keepingPatterns: false,
                    replacing: replacing)
    }

    private static func reading(_ data: Data, file: String, format: Format?, variables: [String: String], origin: String,
                                refusingOtherDocuments: Bool, keepingPatterns: Bool, replacing: [String: String]) throws(CassetteError) -> Reading? {
        guard var reading = try parsedReading(data, file: file, format: format, variables: variables, origin: origin,
                                              refusingOtherDocuments: refusingOtherDocuments, keepingPatterns: keepingPatterns, replacing: replacing) else {
            return nil
        }
        if let remark = placeholderRemark(reading.cassette) { reading.remarks.append(remark) }
        return reading
    }

    private static func parsedReading(_ data: Data, file: String, format: Format?, variables: [String: String], origin: String,
                                      refusingOtherDocuments: Bool, keepingPatterns: Bool, replacing: [String: String]) throws(CassetteError) -> Reading? {
        let root: ForeignNode
        switch ForeignNode.parse(data) {
        case let .success(node): root = node.replacingText(replacing.map { ($0.key, $0.value) })
        case let .failure(failure):
            throw CassetteError(.json, file: file, place: failure.line.map { "line \($0)" } ?? "", reason: failure.reason,
                                hint: HARCodec.looksLikeJSON5(data, file: file)
                                    ? "it looks like JSON5 (as Talkback's tapes are written) that does not parse: check its quotes, brackets and commas"
                                    : "import reads the JSON or YAML cassettes of vcrpy, VCR, Betamax, go-vcr, DVR and ExVCR, Talkback tapes, Postman collections, WireMock mappings, Hoverfly simulations and nock recordings")
        }
        if root.isNull {
            // An empty file: VCR's empty cassette, when named as YAML (or as a format).
            guard format != nil || isYAMLName(file) else {
                throw CassetteError(.json, file: file, reason: "the file is empty", hint: "nothing to import; restore the file or record again")
            }
            return Reading(cassette: Cassette(), format: format ?? .vcr)
        }
        if case let .list(elements, _) = root, elements.isEmpty { return Reading(cassette: Cassette(), format: format ?? .vcr) }   // a bare empty list (VCR 1.x, old vcrpy)
        guard let format = format ?? detect(root) else {
            guard refusingOtherDocuments else { return nil }
            throw CassetteError(.json, file: file, reason: "this is no cassette of vcrpy, VCR, Betamax, go-vcr or DVR, nor a Postman collection, WireMock mappings, a Hoverfly simulation, a nock recording, an ExVCR cassette or a Talkback tape (none of their top-level keys: 'interactions', 'http_interactions', 'item', 'mappings', 'request', 'data.pairs', 'meta' with 'req', nor a list of {scope, method} or {request: {url}, response: {status_code}})",
                                hint: root["log"] != nil ? "it looks like a HAR file already: use it as it is, or `tapedeck cassette convert`"
                                    : root["requests"] != nil && root["order"] != nil ? "it looks like a Postman collection in the old v1 format: export it from Postman as Collection v2.1"
                                    : lookalike(root) ?? "if it is one of them, name its format with --from")
        }
        if format == .postman { return try postman(root, file: file, variables: variables) }
        if format == .nock {
            guard case .list = root else {
                throw CassetteError(.json, file: file, reason: "this is not a list of nock definitions", hint: "record with nock.recorder.rec({output_objects: true})")
            }
            return nock(root, file: file)
        }
        if format == .talkback { return talkback(root, file: file) }
        if format == .exvcr {
            guard case .list = root else {
                throw CassetteError(.json, file: file, reason: "this is not a list of ExVCR interactions", hint: "check --from")
            }
            return exVCR(root, file: file)
        }
        if format == .wiremock || format == .hoverfly { return try stubs(root, file: file, format: format, origin: origin, keepingPatterns: keepingPatterns) }
        let key = format == .vcr ? "http_interactions" : "interactions"
        let list = if case .list = root { root } else { root[key] }
        guard let list else {
            // A format named with --from that the file is not in: said, not read as an empty cassette.
            let detected = detect(root).map { ": it looks like a \($0.title) cassette (--from \($0.rawValue))" }
            throw CassetteError(.json, file: file, reason: "there is no '\(key)' list, so this is not a \(format.title) cassette",
                                hint: root["log"] != nil ? "it looks like a HAR file already: use it as it is" : "check --from\(detected ?? "")")
        }
        if list.isNull { return Reading(cassette: Cassette(), format: format) }   // `interactions: null`: nothing was recorded
        guard case .list = list else {
            throw CassetteError(.json, file: file, place: list.line.map { "line \($0)" } ?? "",
                                reason: "'\(key)' is not a list", hint: "check the file is a \(format.title) cassette")
        }
        var reader = EntryReader(file: file, format: format)
        // Written as Tapedeck's own: its HAR reader then trusts what it wrote.
        var cassette = Cassette()
        for (position, entry) in list.elements.enumerated() {
            do throws(CassetteError) {
                var interaction = try reader.interaction(entry, position: position)
                interaction.index = cassette.interactions.count
                cassette.interactions.append(interaction)
            } catch {
                let request = entry["request"]
                let method = request?["method"]?.string.map { String($0.drop { $0 == ":" }).uppercased() }   // VCR 1.x: `:get`
                cassette.skipped.append(SkippedEntry(position: position, method: method ?? "",
                                                     url: (request?["uri"] ?? request?["url"])?.string ?? "", error: error))
            }
        }
        cassette.notes = reader.notes
        return Reading(cassette: cassette, format: format)
    }

    private static func postman(_ root: ForeignNode, file: String, variables: [String: String]) throws(CassetteError) -> Reading {
        guard let items = root["item"], case .list = items else {
            throw CassetteError(.json, file: file, reason: root["requests"] != nil
                                ? "this is a Postman collection in the old v1 format ('requests')" : "there is no 'item' list, so this is not a Postman collection",
                                hint: "export the collection from Postman as Collection v2.1")
        }
        var reader = PostmanReader(file: file, root: root, variables: variables)
        var cassette = Cassette()
        var position = 0
        reader.read(items.elements, into: &cassette, position: &position)
        cassette.notes = reader.notes
        var reading = Reading(cassette: cassette, format: .postman)
        if reader.keptDynamic > 0 {
            reading.remarks.append("\(reader.keptDynamic) example\(reader.keptDynamic == 1 ? " has" : "s have") {{names}} with no value in headers or "
                                   + "bodies (ones nobody gave, or Postman's dynamic {{$guid}}, {{$timestamp}}, … drawn anew on every send): kept as written, "
                                   + "which replay does not match on unless told to (--variable NAME=VALUE, --environment FILE set them)")
        }
        if reader.withoutExamples > 0 {
            reading.remarks.append("\(reader.withoutExamples) request\(reader.withoutExamples == 1 ? " has" : "s have") no saved example response "
                                   + "(Postman's \"Save Response\"), so nothing of \(reader.withoutExamples == 1 ? "it" : "them") can replay")
        }
        return reading
    }

    /// A form field's name or value as `application/x-www-form-urlencoded` writes it.
    static func formEscaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
