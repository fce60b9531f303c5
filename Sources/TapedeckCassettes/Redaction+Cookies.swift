import Foundation

/// Cookies are redacted value by value: the names and a `Set-Cookie`'s attributes stay, so a
/// replayed page still finds its cookies by name (and sends them back, matching the redacted
/// recording), while no value reaches the disk.
extension Redactor {
    /// The value of a `Cookie` (`a=1; b=2`) or `Set-Cookie` (`sid=abc; Path=/; HttpOnly`) field
    /// with every cookie's value replaced; a `Set-Cookie` folded from several fields
    /// (`a=1; Path=/, b=2`) has each of its cookies' values replaced.
    static func redactCookies(_ value: String, setCookie: Bool) -> String {
        if !setCookie {
            return value.split(separator: ";", omittingEmptySubsequences: false).map { pair in
                redactedPair(pair)
            }.joined(separator: ";")
        }
        return setCookieFields(value).map { cookie in
            // The first pair is the cookie; the rest are attributes (Path, Expires, HttpOnly…).
            guard let semicolon = cookie.firstIndex(of: ";") else { return redactedPair(cookie) }
            return redactedPair(cookie[..<semicolon]) + cookie[semicolon...]
        }.joined(separator: ",")
    }

    /// `name=value` with the value replaced, the spacing around it kept; a pair with no `=`
    /// is all value.
    private static func redactedPair(_ pair: Substring) -> String {
        guard let equals = pair.firstIndex(of: "=") else {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? String(pair) : pair.replacingOccurrences(of: trimmed, with: placeholder)
        }
        let leading = pair[pair.index(after: equals)...].prefix { $0 == " " }
        return pair[...equals] + leading + placeholder
    }

    /// The cookies of a `Set-Cookie` value, split where fields were folded with `,`: at a comma
    /// followed by `name=` (an `Expires` date's comma, `Wed, 21 Oct…`, is followed by no `=`
    /// before a space or `;`).
    private static func setCookieFields(_ value: String) -> [Substring] {
        var fields: [Substring] = []
        var start = value.startIndex
        var index = value.startIndex
        while let comma = value[index...].firstIndex(of: ",") {
            let rest = value[value.index(after: comma)...].drop { $0 == " " }
            let name = rest.prefix { $0 != "=" && $0 != ";" && $0 != "," && $0 != " " }
            if !name.isEmpty, rest.dropFirst(name.count).first == "=" {
                fields.append(value[start..<comma])
                start = value.index(after: comma)
            }
            index = value.index(after: comma)
        }
        fields.append(value[start...])
        return fields
    }
}
