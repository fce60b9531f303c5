import Foundation

// HTML form bodies (`application/x-www-form-urlencoded`): secret fields replaced, the rest as spelt.

extension Redactor {
    /// A form's (`application/x-www-form-urlencoded`) secret fields replaced, the rest of its
    /// text kept as it was spelt.
    func redactForm(_ body: Data) -> Data {
        guard let text = String(data: body, encoding: .utf8) else { return body }
        var changed = false
        let fields = Self.formFields(text).map { field -> String in
            guard let value = field.value, isSecretQueryName(field.name), value != Self.placeholder else { return String(field.spelt) }
            changed = true
            return field.spelt[..<field.spelt.firstIndex(of: "=")!] + "=" + Self.placeholder
        }
        return changed ? Data(fields.joined(separator: "&").utf8) : body
    }

    /// Whether a body of `contentType` is an HTML form (`application/x-www-form-urlencoded`).
    static func isForm(_ contentType: String?) -> Bool {
        contentType?.containsBytes(of: "application/x-www-form-urlencoded", foldingCase: true) == true
    }

    /// A form's fields as spelt (`&`-separated, empty ones kept), each with its name decoded as
    /// a server reads it and its value as spelt (nil without `=`).
    static func formFields(_ text: String) -> [(spelt: Substring, name: String, value: Substring?)] {
        text.split(separator: "&", omittingEmptySubsequences: false).map { field in
            guard let equals = field.firstIndex(of: "=") else { return (field, MatchRules.formDecoded(String(field)), nil) }
            return (field, MatchRules.formDecoded(String(field[..<equals])), field[field.index(after: equals)...])
        }
    }
}
