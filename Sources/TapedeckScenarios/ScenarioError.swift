/// Why a scenario file could not be used: which file, where in it (line, column, key path), what
/// is wrong, and what to do. Loading never writes anything.
///
/// ```
/// retry-storm.yaml:14:5: client.retry.limt: unknown key — did you mean 'limit'?
/// ```
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The scenario file (empty for a scenario built in code).
    public let file: String
    /// The 1-based line in the file (0 when unknown).
    public let line: Int
    /// The 1-based column in the line (0 when unknown).
    public let column: Int
    /// The key path of the offending value (`client.retry.limit`, `script[2].at`).
    public let path: String
    /// What is wrong.
    public let reason: String
    /// What to do about it (may be empty).
    public let hint: String
    /// Further problems of the same file, in file order (a file with several unknown keys, say,
    /// reports them all at once).
    public internal(set) var more: [ScenarioError] = []

    /// An error at `path` (line and column from the YAML parser, 1-based).
    public init(file: String, line: Int = 0, column: Int = 0, path: String = "", reason: String, hint: String = "") {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.reason = reason
        self.hint = hint
    }

    /// `file:line:column: path: reason — hint`, one line per problem (``more`` after this one),
    /// the first ``shownProblems`` of them and then how many more there are (a generated file
    /// with thousands of clashing names would print thousands of lines).
    public var description: String {
        let all = [self] + more
        let shown = all.prefix(Self.shownProblems).map(\.oneLine)
        guard all.count > Self.shownProblems else { return shown.joined(separator: "\n") }
        return (shown + ["\(file.isEmpty ? "scenario" : file): … and \(all.count - Self.shownProblems) more problems of the same file (fix these first)"])
            .joined(separator: "\n")
    }

    /// How many problems ``description`` lists before it counts the rest.
    public static let shownProblems = 50

    /// This problem alone, on one line: control characters a file's values put in it are
    /// written as escapes, so they neither break the line nor drive the terminal.
    private var oneLine: String {
        var text = file.isEmpty ? "scenario" : file
        if line > 0 { text += ":\(line):\(column)" }
        text += ": "
        if !path.isEmpty { text += "\(path): " }
        text += reason
        if !hint.isEmpty { text += " — \(hint)" }
        return OutcomeText.printable(text)
    }
}
