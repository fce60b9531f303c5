import ArgumentParser
import TapedeckCassettes

/// The redaction options `tapedeck cassette redact` and `import` share: names to redact beyond
/// the default rules, and cookies to keep in clear.
struct RedactionFlags: ParsableArguments {
    @Option(name: .customLong("header"), help: "Another header to redact (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("query"), help: "Another query item to redact (repeatable).")
    var queryItems: [String] = []

    @Option(name: .customLong("json-field"), help: "Another JSON field to redact (repeatable).")
    var jsonFields: [String] = []

    @Option(name: .customLong("keep-cookie"), help: ArgumentHelp("A cookie whose value is kept in clear (repeatable).", valueName: "NAME"))
    var keptCookies: [String] = []

    /// Whether any was given.
    var isEmpty: Bool { headers.isEmpty && queryItems.isEmpty && jsonFields.isEmpty && keptCookies.isEmpty }

    /// The default rules with these names added.
    var redactor: Redactor {
        var redactor = Redactor(extraHeaders: Set(headers), extraQueryItems: Set(queryItems), extraJSONFields: Set(jsonFields))
        redactor.keptCookies = Set(keptCookies)
        return redactor
    }
}
