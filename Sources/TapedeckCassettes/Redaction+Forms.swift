import Foundation

// HTML form bodies (`application/x-www-form-urlencoded`): secret fields replaced, the rest as spelt.

extension Redactor {
    /// A form's (`application/x-www-form-urlencoded`) secret fields replaced, the rest of its
    /// text kept as it was spelt.
    func redactForm(_ body: Data) -> Data {
        guard let text = String(data: body, encoding: .utf8) else { return body }
        var changed = false
        let read = Self.formFields(text)
        let kind = FormKind(names: read.map(\.name))
        let fields = read.map { field -> String in
            guard let value = field.value, isSecretFormName(field.name, in: kind), value != Self.placeholder else { return String(field.spelt) }
            changed = true
            return field.spelt[..<field.spelt.firstIndex(of: "=")!] + "=" + Self.placeholder
        }
        return changed ? Data(fields.joined(separator: "&").utf8) : body
    }

    /// Whether a form field named `name` holds a secret: a secret name (``isSecretQueryName(_:)``),
    /// or, in an OAuth token request, the one-time `code` or `device_code` it trades for tokens
    /// (RFC 6749 §4.1.3, RFC 8628 §3.4) — but not the `key` of a storage upload form, which
    /// names the object uploaded.
    func isSecretFormName(_ name: String, in kind: FormKind) -> Bool {
        if kind.isStorageUpload, name.lowercased() == "key" { return false }
        return isSecretQueryName(name) || kind.isTokenGrant && (name == "code" || name == "device_code")
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

/// What a form's field names, taken together, say of it: some fields mean something else in
/// some forms (an OAuth token request's `code` is a secret; an upload form's `key` is not).
struct FormKind {
    /// An OAuth token request: it names a `grant_type`.
    var isTokenGrant: Bool
    /// A browser upload to S3-style storage (S3, Google Cloud Storage, MinIO, R2): a signed
    /// `policy` and a `signature`, `x-amz-signature` or `x-goog-signature` beside it. Its `key`
    /// is the name the uploaded object gets (`uploads/${filename}`), not a credential.
    var isStorageUpload: Bool

    /// Reads the kind of form from its fields' names (decoded, as a server reads them).
    init(names: some Sequence<String>) {
        var grant = false, policy = false, signature = false
        for name in names {
            let lowered = name.lowercased()
            if lowered == "grant_type" { grant = true }
            if lowered == "policy" { policy = true }
            if lowered == "signature" || lowered.hasSuffix("-signature") { signature = true }
        }
        isTokenGrant = grant
        isStorageUpload = policy && signature
    }
}
