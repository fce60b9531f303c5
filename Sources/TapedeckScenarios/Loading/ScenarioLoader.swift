public import Foundation
import Yams

extension Scenario {
    /// Reads a scenario file (YAML, or JSON, which is YAML too). Errors name the file, the line and
    /// column, and the key; unknown keys are errors (with the closest known key).
    public static func load(_ url: URL) throws(ScenarioError) -> Scenario {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw ScenarioError(file: url.path, reason: exists ? "cannot read the file: \(error.localizedDescription)" : "no such file",
                                hint: exists ? "check its permissions and that it is UTF-8" : "check the path")
        }
        return try parse(text, file: url.path, source: url)
    }

    /// Parses scenario text; `file` names it in errors and `source` anchors relative paths.
    public static func parse(_ text: String, file: String, source: URL? = nil) throws(ScenarioError) -> Scenario {
        let node: Node
        do {
            guard let composed = try Yams.compose(yaml: text) else {
                throw ScenarioError(file: file, reason: "the file is empty", hint: "start from a file in fixtures/scenarios")
            }
            node = composed
        } catch let error as ScenarioError {
            throw error
        } catch let error as YamlError {
            throw Self.syntaxError(error, file: file)
        } catch {
            throw ScenarioError(file: file, reason: "not YAML or JSON: \(error)")
        }
        let defaultName = source.map { $0.deletingPathExtension().lastPathComponent } ?? "scenario"
        return try ScenarioReader(file: file, base: source?.deletingLastPathComponent()).scenario(Field(node: node, path: "", file: file),
                                                                                               defaultName: defaultName, source: source)
    }

    private static func syntaxError(_ error: YamlError, file: String) -> ScenarioError {
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _):
            let what = [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            return ScenarioError(file: file, line: mark.line, column: mark.column, reason: "not valid YAML: \(what)")
        case let .composer(context, problem, mark, _):
            let what = [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            return ScenarioError(file: file, line: mark.line, column: mark.column, reason: "not valid YAML: \(what)")
        case let .duplicatedKeysInMapping(duplicates, context):
            // Yams finds a repeated key before the reader does; it marks the first repeated key.
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return ScenarioError(file: file, line: context.mark.line, column: context.mark.column,
                                 reason: "\(keys) appear\(duplicates.count == 1 ? "s" : "") more than once in one mapping", hint: "keep one of them")
        default:
            return ScenarioError(file: file, reason: "not valid YAML: \(error)")
        }
    }
}
