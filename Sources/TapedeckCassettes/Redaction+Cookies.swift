import Foundation

/// Cookies are redacted value by value: the names and a `Set-Cookie`'s attributes stay, so a
/// replayed page still finds its cookies by name (and sends them back, matching the redacted
/// recording), while no value reaches the disk — except the values of the cookies named in
/// ``Redactor/keptCookies`` (settings such as `theme=dark` a page's script reads back).
extension Redactor {
    /// The value of a `Cookie` (`a=1; b=2`) or `Set-Cookie` (`sid=abc; Path=/; HttpOnly`) field
    /// with every cookie's value replaced but those of the cookies named in `kept` (names compared
    /// exactly, as RFC 6265 does); a `Set-Cookie` folded from several fields (`a=1; Path=/, b=2`)
    /// has each of its cookies' values replaced.
    static func redactCookies(_ value: String, setCookie: Bool, kept: Set<String> = []) -> String {
        func redactedPair(_ pair: Substring) -> String {
            if !kept.isEmpty, pair.contains("="), kept.contains(cookieName(pair)) { return String(pair) }
            return Self.redactedPair(pair)
        }
        if !setCookie {
            return value.split(separator: ";", omittingEmptySubsequences: false).map { pair in
                redactedPair(pair)
            }.joined(separator: ";")
        }
        return setCookieFields(value).map { cookie in
            // The first pair is the cookie; then its attributes. Only the attributes a browser
            // knows are kept as they are (Path, Expires, HttpOnly…): anything else — `; sid=…`,
            // a cookie the folding hid — could be a secret, and loses its value.
            var pairs = cookie.split(separator: ";", omittingEmptySubsequences: false)
            guard !pairs.isEmpty else { return String(cookie) }
            pairs[0] = Substring(redactedPair(pairs[0]))
            for index in pairs.indices.dropFirst() {
                let name = pairs[index].prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces).lowercased()
                if !cookieAttributes.contains(name) { pairs[index] = Substring(redactedPair(pairs[index])) }
            }
            return pairs.joined(separator: ";")
        }.joined(separator: ",")
    }

    /// `Set-Cookie` attributes (RFC 6265 and the ones browsers added), kept with their values.
    private static let cookieAttributes: Set<String> = [
        "path", "domain", "expires", "max-age", "secure", "httponly", "samesite", "partitioned", "priority", "version",
    ]

    /// The name of a `name=value` pair, without the spaces around it.
    static func cookieName(_ pair: Substring) -> String {
        pair.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces)
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
    /// followed by `name=` (spaces allowed around the name, the name possibly empty); an `Expires`
    /// date's comma (`Wed, 21 Oct…`) is followed by words, not by `=`.
    private static func setCookieFields(_ value: String) -> [Substring] {
        var fields: [Substring] = []
        var start = value.startIndex
        var index = value.startIndex
        while let comma = value[index...].firstIndex(of: ",") {
            let rest = value[value.index(after: comma)...].drop { $0 == " " }
            let name = rest.prefix { $0 != "=" && $0 != ";" && $0 != "," && $0 != " " }
            if rest.dropFirst(name.count).drop(while: { $0 == " " }).first == "=" {
                fields.append(value[start..<comma])
                start = value.index(after: comma)
            }
            index = value.index(after: comma)
        }
        fields.append(value[start...])
        return fields
    }
}
