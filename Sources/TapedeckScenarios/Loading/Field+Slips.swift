import Foundation

/// Indentation slips: a key that is unknown where it stands but belongs somewhere else in a
/// scenario file (`base` one level too far left, out of `client.retry`). The places come from
/// ``KeyPlaces``, generated from docs/scenario.schema.json.
extension Field {
    /// "belongs under client.retry, not client — check its indentation" for a key known
    /// elsewhere, or nil. `path` is where the key stands (`client`, `traffic.stubs[2]`, `""`).
    static func slipHint(key: String, at path: String) -> String? {
        guard let places = KeyPlaces.table[key] else { return nil }
        let elsewhere = places.filter { !matches(place: $0, path: path) }
        // Known here by the schema (a variant the reader turned down): nothing to point at.
        guard !elsewhere.isEmpty, elsewhere.count == places.count else { return nil }
        let shown = elsewhere.prefix(3).map(readable).joined(separator: ", ")
        let more = elsewhere.count > 3 ? " (and \(elsewhere.count - 3) more)" : ""
        let here = path.isEmpty ? "the top level" : path
        // Indentation can move a key only along its own branch (or out to, or in from, the top).
        func section(_ text: String) -> Substring { text.prefix { $0 != "." && $0 != "[" } }
        let alongBranch = path.isEmpty || elsewhere.contains { $0.isEmpty || section($0) == section(path) }
        return "'\(key)' belongs under \(shown)\(more), not \(here)" + (alongBranch ? " — check its indentation" : "")
    }

    /// A place as a reader writes it: `traffic.stubs[n]`, `expect.requests.NAME`, `the top level`.
    static func readable(_ place: String) -> String {
        if place.isEmpty { return "the top level" }
        return place.replacingOccurrences(of: "[]", with: "[n]")
            .split(separator: ".", omittingEmptySubsequences: false)
            .map { $0 == "*" ? "NAME" : String($0) }
            .joined(separator: ".")
    }

    /// Whether `path` (with list indices and user-named keys) is an instance of `place`.
    static func matches(place: String, path: String) -> Bool {
        var pattern = "^"
        var rest = Substring(place)
        while let first = rest.first {
            if rest.hasPrefix("[]") {
                pattern += "\\[[0-9]+\\]"
                rest = rest.dropFirst(2)
            } else if first == "*" {
                pattern += ".+"   // a user-named key may hold dots itself
                rest = rest.dropFirst()
            } else {
                pattern += NSRegularExpression.escapedPattern(for: String(first))
                rest = rest.dropFirst()
            }
        }
        pattern += "$"
        return path.range(of: pattern, options: .regularExpression) != nil
    }
}
