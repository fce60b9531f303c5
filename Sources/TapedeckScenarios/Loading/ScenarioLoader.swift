public import Foundation
import TapedeckCassettes
import Yams

extension Scenario {
    /// Reads a scenario file (YAML, or JSON, which is YAML too). Errors name the file, the line and
    /// column, and the key; unknown keys are errors (with the closest known key), all of them
    /// reported at once. Plain scalars are read as YAML 1.2's core schema reads them (`NO` is
    /// text, `0x1F` is 31; see docs/scenarios.md).
    public static func load(_ url: URL) throws(ScenarioError) -> Scenario {
        let text = try readText(url, what: "scenario file", hint: "give a .yaml or .json scenario file")
        return try parse(text, file: url.path, source: url)
    }

    /// Parses scenario text; `file` names it in errors and `source` anchors relative paths. A
    /// `file` ending in `.json` must be strict JSON (no trailing commas, no comments).
    public static func parse(_ text: String, file: String, source: URL? = nil) throws(ScenarioError) -> Scenario {
        let node = try compose(text, file: file, empty: "start from a file in docs/examples/scenarios")
        if case let .mapping(root) = node, let log = root["log"], case let .mapping(inner) = log, inner["entries"] != nil {
            throw ScenarioError(file: file, line: 1, column: 1, reason: "is a HAR file (a cassette), not a scenario",
                                hint: "a scenario replays it from traffic.cassette: write a .yaml file with 'traffic: {cassette: \(source.map { $0.lastPathComponent } ?? "FILE.har")}' "
                                    + "and a script of its requests (docs/scenarios.md); `tapedeck cassette inspect` lists what it holds")
        }
        let defaultName = source.map { $0.deletingPathExtension().lastPathComponent } ?? "scenario"
        let reader = ScenarioReader(file: file, base: source?.deletingLastPathComponent())
        var scenario = try reader.scenario(Field(node: node, path: "", file: file), defaultName: defaultName, source: source)
        scenario.inputs.urls = (source.map { [$0] } ?? []) + reader.named.urls
        return scenario
    }

    /// The most bytes a scenario file (or a text it includes) may hold: 64 MiB.
    static let largestText = 64 << 20

    /// The text of a file, or an error saying why it cannot be read (missing, a directory, not UTF-8, too large).
    static func readText(_ url: URL, what: String, hint: String) throws(ScenarioError) -> String {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        guard exists else { throw ScenarioError(file: url.path, reason: "no such file", hint: "check the path") }
        guard !isDirectory.boolValue else { throw ScenarioError(file: url.path, reason: "is a directory, not a \(what)", hint: hint) }
        // Read as a stream, so a pipe (`tapedeck run <(generate)`) or a device reads too; at most
        // `largestText` bytes.
        let read: Data?
        do {
            read = try FileStream.read(atPath: url.path, limit: largestText)
        } catch is FileStream.CannotOpen {
            throw ScenarioError(file: url.path, reason: "cannot open the file", hint: "check its permissions")
        } catch {
            throw ScenarioError(file: url.path, reason: "cannot read the file (\(error.localizedDescription))", hint: "check that it is a readable file")
        }
        guard let data = read else {
            throw ScenarioError(file: url.path, reason: "is larger than \(largestText >> 20) MiB (or never ends), too large for a \(what)",
                                hint: "a scenario names large bodies with bodyFile and traffic with a cassette; check the path")
        }
        if data.starts(with: [0x1F, 0x8B]) {
            throw ScenarioError(file: url.path, reason: "is gzip-compressed (a .har.gz cassette?), not a \(what)",
                                hint: what == "scenario file" ? "a scenario names a cassette under traffic.cassette; \(hint)" : hint)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            guard let offset = firstInvalidUTF8(data) else {
                throw ScenarioError(file: url.path, reason: "is not UTF-8 text", hint: "save it as UTF-8")
            }
            let before = data.prefix(offset)
            let line = before.count { $0 == 0x0A } + 1
            let column = offset - (before.lastIndex(of: 0x0A).map { $0 - data.startIndex + 1 } ?? 0) + 1
            throw ScenarioError(file: url.path, line: line, column: column,
                                reason: "is not UTF-8 text: byte \(offset) is 0x\(String(format: "%02X", data[data.startIndex + offset])), which starts no UTF-8 character there",
                                hint: "save it as UTF-8 (a Latin-1 or Windows-1252 editor writes é as one such byte)")
        }
        return text
    }

    /// Where the first byte that is no part of a UTF-8 character is (nil: all of it is UTF-8).
    static func firstInvalidUTF8(_ data: Data) -> Int? {
        var iterator = data.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The document's root node, composed with the YAML 1.2 core schema; a syntax error names its
    /// line and column with a hint (tabs, indentation), a `.json` file's as JSON.
    static func compose(_ text: String, file: String, empty: String) throws(ScenarioError) -> Node {
        if file.lowercased().hasSuffix(".json") { try checkJSON(text, file: file) }
        let composed: Node?
        do {
            composed = try Yams.compose(yaml: text, CoreSchema.resolver)
        } catch let error as YamlError {
            throw syntaxError(error, text: text, file: file)
        } catch {
            throw ScenarioError(file: file, reason: "not YAML or JSON: \(error)")
        }
        guard let composed else { throw ScenarioError(file: file, reason: "the file is empty", hint: empty) }
        // Only aliases can make a short file hold more than it shows.
        if text.utf8.contains(UInt8(ascii: "*")) { try checkExpansion(composed, file: file) }
        if text.utf8.contains(UInt8(ascii: "!")) { try checkTags(composed, file: file) }
        return composed
    }

    /// Refuses the first (in file order) tag that cannot stand: one outside the core schema, or a
    /// core type its value is not. Without it `status: !!null 503` would read as 503.
    private static func checkTags(_ root: Node, file: String) throws(ScenarioError) {
        var first: ScenarioError?
        var stack = [root]
        while let node = stack.popLast() {
            if let problem = CoreSchema.tagProblem(node) {
                let error = ScenarioError(file: file, line: node.mark?.line ?? 0, column: node.mark?.column ?? 0,
                                          reason: problem.reason, hint: problem.hint)
                if first.map({ ($0.line, $0.column) > (error.line, error.column) }) ?? true { first = error }
            }
            switch node {
            case let .mapping(mapping): for (key, value) in mapping { stack.append(key); stack.append(value) }
            case let .sequence(sequence): stack.append(contentsOf: sequence)
            default: break
            }
        }
        if let first { throw first }
    }

    /// The most values a document may hold once its aliases are expanded.
    static let maximumValues = 1_000_000

    /// Refuses a document whose aliases expand past ``maximumValues`` values (a "billion laughs"
    /// file: nine levels of ten aliases each hold 10⁹ strings in a few hundred bytes) before
    /// anything walks it. Yams shares an alias's node, so composing was cheap; reading it was not.
    private static func checkExpansion(_ root: Node, file: String) throws(ScenarioError) {
        var count = 0
        var stack = [root]
        while let node = stack.popLast() {
            count += 1
            if count > maximumValues {
                throw ScenarioError(file: file, line: node.mark?.line ?? 0, column: node.mark?.column ?? 0,
                                    reason: "the file holds more than \(maximumValues) values once its aliases are expanded",
                                    hint: "an alias repeats all it names; put a large body in a file (bodyFile) instead of nesting aliases")
            }
            switch node {
            case let .mapping(mapping): stack.append(contentsOf: mapping.values)
            case let .sequence(sequence): stack.append(contentsOf: sequence)
            default: break
            }
        }
    }

    /// A `.json` file must be JSON, not merely YAML: a trailing comma or a comment is an error.
    private static func checkJSON(_ text: String, file: String) throws(ScenarioError) {
        guard let problem = StrictJSON.problem(in: text) else { return }
        // `key: value` lines in a .json file are YAML, not broken JSON.
        let start = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if let first = start.first, first != "{", first != "[", start.prefix(while: { $0 != "\n" }).contains(":") {
            let line = text[..<start.startIndex].count { $0 == "\n" } + 1
            throw ScenarioError(file: file, line: line, column: 1, reason: "not valid JSON: the file reads as YAML (key: value lines)",
                                hint: "name it .yaml, or write JSON: {\"script\": [...]}")
        }
        throw ScenarioError(file: file, line: problem.line, column: problem.column, reason: "not valid JSON: \(problem.message)",
                            hint: "a .json scenario must be strict JSON (no trailing commas, no comments); or name it .yaml")
    }

    private static func syntaxError(_ error: YamlError, text: String, file: String) -> ScenarioError {
        let language = file.lowercased().hasSuffix(".json") ? "JSON" : "YAML"
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _), let .composer(context, problem, mark, _):
            let what = [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            // A quote left open is found only where the file ends: point at where it opened. A flow
            // collection's trouble may be a missing comma as well as a missing bracket: keep the
            // place, and say where the collection opened.
            if let context, context.mark.line > 0, context.mark.line < mark.line {
                if context.text.contains("quoted scalar") {
                    return ScenarioError(file: file, line: context.mark.line, column: context.mark.column, reason: "not valid \(language): \(what)",
                                         hint: "the quote that opens here is not closed (the file ends at line \(mark.line) without it): close it")
                }
            }
            if let context, context.mark.line > 0, context.text.contains("flow") {
                return ScenarioError(file: file, line: mark.line, column: mark.column, reason: "not valid \(language): \(what)",
                                     hint: "in the [ or { opened at line \(context.mark.line), column \(context.mark.column): separate its items with commas, "
                                         + "close it, and quote a value that holds [ ] { } or a comma (path: \"items[1]\")")
            }
            if problem.contains("undefined alias") {
                // Yams does not name it: the alias is the `*name` at the mark.
                let name = aliasName(at: mark, text: text)
                return ScenarioError(file: file, line: mark.line, column: mark.column,
                                     reason: "not valid \(language): \(name.map { "the alias '*\($0)' names no anchor" } ?? what)",
                                     hint: "an alias (*\(name ?? "name")) repeats a value given an anchor (&\(name ?? "name")) earlier in the file: "
                                         + "add the anchor, or check the spelling")
            }
            return ScenarioError(file: file, line: mark.line, column: mark.column, reason: "not valid \(language): \(what)",
                                 hint: syntaxHint(problem: what, line: mark.line, text: text))
        case let .duplicatedKeysInMapping(duplicates, context):
            // Yams marks the mapping; the repeat is the key's second line in the mapping's column.
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            let repeated = duplicates.first.flatMap { key in
                repeatedKey(key, mapping: context.mark, text: text) ?? repeatedFlowKey(key, first: context.mark, text: text)
            }
            return ScenarioError(file: file, line: repeated?.line ?? context.mark.line, column: repeated?.column ?? context.mark.column,
                                 reason: "\(keys) appear\(duplicates.count == 1 ? "s" : "") more than once in one mapping", hint: "keep one of them")
        case let .reader(problem, offset, value, _):
            // libyaml's reader gives a byte offset: turn it into the line and column others have.
            let bytes = Array(text.utf8.prefix(offset ?? 0))
            let lineStart = (bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }) ?? 0
            let line = bytes.count(where: { $0 == UInt8(ascii: "\n") }) + 1
            let column = String(decoding: bytes[lineStart...], as: UTF8.self).unicodeScalars.count + 1
            let character = value >= 0 ? " (U+" + String(format: "%04X", value) + ")" : ""
            return ScenarioError(file: file, line: offset == nil ? 0 : line, column: offset == nil ? 0 : column,
                                 reason: "not valid \(language): \(problem)\(character)",
                                 hint: "remove it; inside double quotes a control character can be written as an escape (\"\\e\", \"\\u0007\")")
        default:
            return ScenarioError(file: file, reason: "not valid \(language): \(error)")
        }
    }

    /// Where `key` appears the second time in the block mapping that starts at `mapping`: the
    /// lines from there on whose text starts in the mapping's column with `key:` (quoted or not);
    /// nil when it is not found so (a flow mapping, say).
    private static func repeatedKey(_ key: String, mapping: Mark, text: String) -> (line: Int, column: Int)? {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard mapping.line >= 1, mapping.column >= 1 else { return nil }
        let indent = mapping.column - 1
        var seen = 0
        for index in (mapping.line - 1)..<lines.count {
            let line = lines[index]
            // The mapping's own line may start with a list's `- `: its first key is at the column.
            let leading = index == mapping.line - 1 ? indent : line.prefix { $0 == " " }.count
            let rest = line.dropFirst(leading)
            if index > mapping.line - 1, leading < indent, !rest.isEmpty, !rest.hasPrefix("#") { break }   // the mapping ended
            guard leading == indent else { continue }
            if [key + ":", "\"\(key)\":", "'\(key)':"].contains(where: { rest.hasPrefix($0) }) {
                seen += 1
                if seen == 2 { return (index + 1, indent + 1) }
            }
        }
        return nil
    }

    /// Where `key` appears again in the flow mapping (`{a: 1, a: 2}`, JSON) whose first `key`
    /// is at `first`: the next key of the same mapping spelt so (plain or quoted); nil when the
    /// mapping ends first.
    private static func repeatedFlowKey(_ key: String, first: Mark, text: String) -> (line: Int, column: Int)? {
        var line = 1, column = 1
        var characters = Array(text).makeIterator()
        // Up to the first key.
        while line < first.line || (line == first.line && column < first.column) {
            guard let next = characters.next() else { return nil }
            if next.isNewline { line += 1; column = 1 } else { column += 1 }
        }
        var rest: [(character: Character, line: Int, column: Int)] = []
        while let next = characters.next() {
            rest.append((next, line, column))
            if next.isNewline { line += 1; column = 1 } else { column += 1 }
        }
        var depth = 0, quote: Character? = nil, escaped = false, expectKey = false
        // Past the first key's first character (inside its quotes when it is quoted).
        if let opening = rest.first?.character, opening == "\"" || opening == "'" { quote = opening }
        var index = 1
        while index < rest.count {
            let character = rest[index].character
            if let open = quote {
                if escaped { escaped = false } else if character == "\\" && open == "\"" { escaped = true } else if character == open { quote = nil }
                index += 1
                continue
            }
            switch character {
            case "{", "[": depth += 1
            case "}", "]":
                if depth == 0 { return nil }
                depth -= 1
            case ",": if depth == 0 { expectKey = true }
            case _ where character.isWhitespace: break
            case "#" where depth == 0 && rest[index - 1].character.isWhitespace:
                // A comment (a # after a space) runs to the end of its line.
                while index + 1 < rest.count, !rest[index + 1].character.isNewline { index += 1 }
            default:
                if depth == 0 && expectKey {
                    expectKey = false
                    let quoted = character == "\"" || character == "'"
                    var end = index + (quoted ? 1 : 0)
                    var word = ""
                    while end < rest.count, quoted ? rest[end].character != character : !":,}".contains(rest[end].character) {
                        word.append(rest[end].character)
                        end += 1
                    }
                    if (quoted ? word : word.trimmingCharacters(in: .whitespaces)) == key { return (rest[index].line, rest[index].column) }
                }
                if character == "\"" || character == "'" { quote = character }
            }
            index += 1
        }
        return nil
    }

    /// The name of the alias (`*name`) that starts at `mark`, if one does.
    private static func aliasName(at mark: Mark, text: String) -> String? {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard mark.line >= 1, mark.line <= lines.count, mark.column >= 1 else { return nil }
        let rest = lines[mark.line - 1].dropFirst(mark.column - 1)
        guard rest.first == "*" else { return nil }
        let name = rest.dropFirst().prefix { !$0.isWhitespace && !",[]{}".contains($0) }
        return name.isEmpty ? nil : String(name)
    }

    /// What usually causes a syntax error like this one: a tab, or a line indented differently
    /// from its siblings.
    private static func syntaxHint(problem: String, line: Int, text: String) -> String {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let around = lines.indices.filter { abs($0 + 1 - line) <= 1 }.map { lines[$0] }
        if around.contains(where: { $0.prefix { $0 == " " || $0 == "\t" }.contains("\t") }) || problem.contains("cannot start any token") && around.contains(where: { $0.contains("\t") }) {
            return "YAML does not allow tabs for indentation: indent with spaces"
        }
        let indentation = ["expected '-' indicator", "expected key", "mapping values are not allowed", "could not find expected ':'",
                           "expected <block end>"]
        if indentation.contains(where: problem.contains) {
            return "check the indentation of this line and the one before: the keys of one mapping (and the items of one list) must start in the same column"
        }
        return ""
    }
}
