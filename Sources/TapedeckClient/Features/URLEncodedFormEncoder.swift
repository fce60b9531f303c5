public import Foundation

/// Turns an `Encodable` value into `a=1&b[]=x&c[d]=y` form text, as Alamofire's encoder writes it:
/// numbers as Swift prints them (`2.0`, `nan`), booleans `1`/`0` unless ``boolEncoding`` says
/// otherwise, an explicit or absent optional as ``nilEncoding`` says, nested containers in bracket
/// notation (or what ``keyPathEncoding`` says), and the pairs of each object sorted (the order of
/// an array's elements is kept: Alamofire sorts them too, which changes what the array says).
///
/// ```swift
/// let encoder = URLEncodedFormEncoder(dateEncoding: .iso8601, keyEncoding: .convertToSnakeCase,
///                                     spaceEncoding: .plusReplaced)
/// let form: String = try encoder.encode(Signup(userName: "ada l", joined: Date(timeIntervalSince1970: 0)))
/// // "joined=1970-01-01T00%3A00%3A00Z&user_name=ada+l"
/// ```
public final class URLEncodedFormEncoder: Sendable {
    /// How an array's elements are keyed (Alamofire's cases: `brackets`, `noBrackets`,
    /// `indexInBrackets`, `custom`).
    public typealias ArrayEncoding = URLEncoding.ArrayEncoding
    /// How booleans are written (`numeric`: `1`/`0`, `literal`: `true`/`false`).
    public typealias BoolEncoding = URLEncoding.BoolEncoding

    /// Whether each object's pairs are sorted (Alamofire's default); false keeps the order the
    /// value encodes them in.
    public let alphabetizeKeyValuePairs: Bool
    /// How arrays are keyed.
    public let arrayEncoding: ArrayEncoding
    /// How booleans are written.
    public let boolEncoding: BoolEncoding
    /// How `Data` values are written.
    public let dataEncoding: DataEncoding
    /// How `Date` values are written.
    public let dateEncoding: DateEncoding
    /// How each coding key is spelt.
    public let keyEncoding: KeyEncoding
    /// How a nested key is attached to its parent's.
    public let keyPathEncoding: KeyPathEncoding
    /// What a `nil` becomes (an explicit one, and an optional property without a value).
    public let nilEncoding: NilEncoding
    /// How spaces are escaped.
    public let spaceEncoding: SpaceEncoding
    /// The characters written as they are; every other is percent-escaped.
    public let allowedCharacters: CharacterSet

    /// What Alamofire leaves unescaped in a query: RFC 3986's query characters without the
    /// delimiters `:#[]@!$&'()*+,;=` (so `/` and `?` stay, as RFC 3986 §3.4 allows).
    public static let queryAllowed: CharacterSet = {
        CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: ":#[]@!$&'()*+,;="))
    }()

    /// An encoder with Alamofire's options and defaults.
    ///
    /// ```swift
    /// let encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets, boolEncoding: .literal)
    /// ```
    public init(alphabetizeKeyValuePairs: Bool = true, arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .numeric,
                dataEncoding: DataEncoding = .base64, dateEncoding: DateEncoding = .deferredToDate,
                keyEncoding: KeyEncoding = .useDefaultKeys, keyPathEncoding: KeyPathEncoding = .brackets,
                nilEncoding: NilEncoding = .dropKey, spaceEncoding: SpaceEncoding = .percentEscaped,
                allowedCharacters: CharacterSet = URLEncodedFormEncoder.queryAllowed) {
        self.alphabetizeKeyValuePairs = alphabetizeKeyValuePairs
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.dataEncoding = dataEncoding
        self.dateEncoding = dateEncoding
        self.keyEncoding = keyEncoding
        self.keyPathEncoding = keyPathEncoding
        self.nilEncoding = nilEncoding
        self.spaceEncoding = spaceEncoding
        self.allowedCharacters = allowedCharacters
    }

    /// The form text for `value`, which must encode as a keyed container.
    public func encode<Value: Encodable>(_ value: Value) throws -> String {
        let root = FormSlot()
        try value.encode(to: FormValueEncoder(slot: root, options: self, codingPath: []))
        guard case let .fields(fields) = root.content else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "form parameters must encode to a keyed container"))
        }
        return serialize(fields, under: nil).joined(separator: "&")
    }

    /// The form for `value` as UTF-8 data (Alamofire's `encode(_:) -> Data`).
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let text: String = try encode(value)
        return Data(text.utf8)
    }

    /// The `key=value` segments of an object's fields (under `parent`'s key), each field's own
    /// segments joined, sorted unless ``alphabetizeKeyValuePairs`` is false.
    private func serialize(_ fields: [(key: String, slot: FormSlot)], under parent: String?) -> [String] {
        let segments = fields.compactMap { field -> String? in
            let key = parent.map { $0 + keyPathEncoding.encodeKeyPath(field.key) } ?? field.key
            let parts = serialize(field.slot, key: key)
            return parts.isEmpty ? nil : parts.joined(separator: "&")
        }
        return alphabetizeKeyValuePairs ? segments.sorted() : segments
    }

    private func serialize(_ slot: FormSlot, key: String) -> [String] {
        switch slot.content {
        case .empty:
            return []
        case let .text(text):
            // The key spelling applies to the whole path, as Alamofire's does (`userInfo[firstName]`
            // → `user_info[first_name]`; a custom spelling sees the path).
            return ["\(escape(keyEncoding.encode(key)))=\(escape(text))"]
        case let .list(items):
            // A nil left out takes no number: [1, nil, 3] is t[0]=1&t[1]=3, as in Alamofire.
            return items.filter { !$0.isEmpty }.enumerated().flatMap { serialize($0.element, key: arrayEncoding.encode(key: key, atIndex: $0.offset)) }
        case let .fields(fields):
            return serialize(fields, under: key)
        }
    }

    /// Percent-escapes all but ``allowedCharacters`` (a space becomes `%20`, or `+` with
    /// ``SpaceEncoding/plusReplaced``).
    private func escape(_ string: String) -> String {
        var allowed = allowedCharacters
        allowed.insert(" ")
        let escaped = string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
        return spaceEncoding.encode(escaped.replacingOccurrences(of: " ", with: "%20"))
    }
}

extension CharacterSet {
    /// What Alamofire leaves unescaped in a query (RFC 3986's query characters without the
    /// delimiters `:#[]@!$&'()*+,;=`): Alamofire's name for ``URLEncodedFormEncoder/queryAllowed``.
    ///
    /// ```swift
    /// let encoder = URLEncodedFormEncoder(allowedCharacters: .afURLQueryAllowed)
    /// ```
    public static let afURLQueryAllowed: CharacterSet = URLEncodedFormEncoder.queryAllowed
}

