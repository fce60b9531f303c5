import Foundation

// HTML form bodies (`application/x-www-form-urlencoded`): secret fields replaced, the rest as spelt.

extension Redactor {
    /// A form's (`application/x-www-form-urlencoded`) secret fields replaced, the rest of its
    /// text kept as it was spelt.
    func redactForm(_ body: Data) -> Data {
        guard let text = String(data: body, encoding: .utf8) else { return body }
        var changed = false
        let read = Self.formFields(text)
        let grant = Self.isTokenGrant(read)
        let fields = read.map { field -> String in
            guard let value = field.value, isSecretFormName(field.name, inTokenGrant: grant), value != Self.placeholder else { return String(field.spelt) }
            changed = true
            return field.spelt[..<field.spelt.firstIndex(of: "=")!] + "=" + Self.placeholder
        }
        return changed ? Data(fields.joined(separator: "&").utf8) : body
    }

    /// Whether a form field named `name` holds a secret: a secret name (``isSecretQueryName(_:)``),
    /// or, in an OAuth token request (`inTokenGrant`), the one-time `code` or `device_code` it
    /// trades for tokens (RFC 6749 §4.1.3, RFC 8628 §3.4).
    func isSecretFormName(_ name: String, inTokenGrant: Bool) -> Bool {
        isSecretQueryName(name) || inTokenGrant && (name == "code" || name == "device_code")
    }

    /// Whether a form's fields are an OAuth token request's (they name a `grant_type`).
    static func isTokenGrant(_ fields: [(spelt: Substring, name: String, value: Substring?)]) -> Bool {
        fields.contains { $0.name == "grant_type" }
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
