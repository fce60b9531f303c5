import Foundation

// Where a run's errors point (marks), and request patterns: their forms, and a "did you mean" for
// a pattern that is really a request's name.
extension ScenarioReader {
    /// Where the keys a run may complain about are (`traffic`, `traffic.cassette`): a failure found
    /// only when the run starts (a cassette that cannot be read) still names its line.
    static func marks(_ top: Fields) -> SourceMarks {
        var marks = SourceMarks()
        guard let traffic = top["traffic"] else { return marks }
        marks["traffic"] = traffic.mark
        if case let .mapping(mapping) = traffic.node {
            for (key, value) in mapping {
                guard let name = key.string, ["cassette", "upstream"].contains(name) else { continue }
                // The value's place (the path), else the key's.
                marks["traffic.\(name)"] = value.mark.map { _ in traffic.at(value).mark } ?? traffic.at(key).mark
                if name == "cassette", case let .mapping(options) = value {
                    marks["traffic.cassette"] = traffic.at(key).mark
                    if let file = options.first(where: { $0.key.string == "file" }) {
                        marks["traffic.cassette.file"] = traffic.at(file.value).mark
                    }
                }
            }
        }
        return marks
    }

    /// Each request step's name (as the reader will derive it) and a pattern matching its URL, read
    /// leniently (for hints only).
    static func requestPatterns(in script: Field?) -> [(name: String, pattern: String)] {
        guard case let .sequence(items)? = script?.node else { return [] }
        return items.compactMap { item -> (String, String)? in
            guard case let .mapping(step) = item else { return nil }
            func text(_ key: String) -> String? { step.first { $0.key.string == key }?.value.string }
            guard let request = text("request") else { return nil }
            let words = request.split(separator: " ", maxSplits: 1).map(String.init)
            guard let urlText = words.last, let url = URL(string: urlText), url.host != nil else { return nil }
            let last = url.path.split(separator: "/").last.map(String.init).flatMap { Field.isShowableName($0) ? $0 : nil }
            let name = text("name") ?? (last ?? url.host!)
            return (name, (words.count == 2 ? words[0].uppercased() + " " : "") + urlText)
        }
    }

    /// A request pattern: `[METHOD] URL`, the URL absolute http(s), `/path`, or `*`, with an optional
    /// trailing `*` (a prefix). Anything else is an error — a request's name, a URL without its scheme.
    func pattern(_ field: Field, allowingPrefix: Bool = true) throws(ScenarioError) -> RequestPattern {
        let text = try field.string().trimmingCharacters(in: .whitespaces)
        let pattern = RequestPattern(parsing: text)
        let forms = "write [METHOD] URL: an absolute http(s) URL, a path starting with /, or *; a trailing * makes a prefix"
        if let method = pattern.method, !method.allSatisfy({ $0.isLetter }) {
            throw field.error("'\(method)' is not an HTTP method", hint: forms)
        }
        let url = pattern.url
        if url.contains(where: \.isWhitespace), url == "*" || url.hasPrefix("/") || Self.isAbsolute(url) {
            // As the request line would carry it: a space in a URL is written %20 (or + in a query).
            throw field.error("'\(text)': a URL has no spaces", hint: "write a space as %20 (or + in a query)")
        }
        if url == "*" || url.hasPrefix("/") || Self.isAbsolute(url) {
            if let star = url.firstIndex(of: "*"), star != url.index(before: url.endIndex) {
                throw field.error("'\(text)': '*' works only at the end of a pattern (a prefix)", hint: "e.g. http://api.test/items/*")
            }
            if !allowingPrefix, url.hasSuffix("*") {
                throw field.error("'\(text)' is a prefix; a full URL is needed here", hint: "write the exact URL, without *")
            }
            return pattern
        }
        if url.contains(".") && !url.contains("://") && !url.contains(" ") {
            throw field.error("'\(text)' is not a request pattern: the URL has no scheme", hint: "write http://\(url) or https://\(url)")
        }
        if let request = requestPatterns.first(where: { $0.name == url || $0.name == text }) {
            throw field.error("'\(text)' is not a request pattern", hint: "did you mean '\(request.pattern)' (the URL of request '\(request.name)')? Patterns match URLs, not request names")
        }
        if let close = Field.closest(to: url, in: requestPatterns.map(\.name)), let request = requestPatterns.first(where: { $0.name == close }) {
            throw field.error("'\(text)' is not a request pattern", hint: "did you mean '\(request.pattern)' (request '\(request.name)')? \(forms)")
        }
        throw field.error("'\(text)' is not a request pattern", hint: forms)
    }

    private static func isAbsolute(_ text: String) -> Bool {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return false }
        let body = text.hasSuffix("*") ? String(text.dropLast()) : text
        if body.lowercased() == "http://" || body.lowercased() == "https://" { return text.hasSuffix("*") }
        return URL(string: body)?.host.map { !$0.isEmpty } ?? (text.hasSuffix("*"))
    }
}
