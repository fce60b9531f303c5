import Foundation

// Placeholders a recording tool wrote in place of values (VCR's `filter_sensitive_data`:
// `<GITHUB_LOGIN>`, `<<ENTERPRISE_HOSTNAME>>`), which that tool puts back when it replays.

extension ForeignCassette {
    /// The first placeholder in `text` (percent-decoded first): `<NAME>` or `<<NAME>>`, NAME in
    /// capitals, digits and `_`, as VCR's documentation and its users write them.
    ///
    /// ```swift
    /// ForeignCassette.placeholder(in: "https://api.github.com/users/%3CGITHUB_LOGIN%3E")   // "<GITHUB_LOGIN>"
    /// ```
    static func placeholder(in text: String) -> String? {
        let decoded = text.removingPercentEncoding ?? text
        guard let range = decoded.range(of: "<<?[A-Z][A-Z0-9_]*>>?", options: .regularExpression) else { return nil }
        return String(decoded[range])
    }

    /// What to say of a cassette whose request URLs hold placeholders: they match only a request
    /// sending that very text, until their values are given. Nil when none does.
    static func placeholderRemark(_ cassette: Cassette) -> String? {
        var names: [String] = []
        var count = 0
        for interaction in cassette.interactions {
            guard let name = placeholder(in: interaction.request.url.absoluteString) else { continue }
            count += 1
            if !names.contains(name) { names.append(name) }
        }
        guard let first = names.first else { return nil }
        return "\(count) request URL\(count == 1 ? " holds" : "s hold") placeholders the recording tool wrote in place of values "
            + "(\(names.prefix(3).joined(separator: ", "))\(names.count > 3 ? ", …" : "")), as VCR's filter_sensitive_data does: "
            + "they match only a request that sends that very text; import the file with the values: "
            + "tapedeck cassette import FILE OUT --replace '\(first)=VALUE'"
    }

    /// Why an interaction's URL could not be read, naming the placeholder it holds, if any.
    static func unreadableURLReason(_ text: String?) -> String {
        let reason = "the URL is missing, or not an absolute http or https URL"
        guard let text, let name = placeholder(in: text) else { return reason }
        return reason + " (it holds \(name), a placeholder the recording tool wrote in place of a value, as VCR's filter_sensitive_data does: "
            + "import the file with its value: tapedeck cassette import FILE OUT --replace '\(name)=VALUE')"
    }
}
