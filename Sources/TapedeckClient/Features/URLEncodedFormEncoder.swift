public import Foundation

/// Turns an `Encodable` value into `a=1&b[]=x&c[d]=y` form text. Pairs are sorted by their encoded
/// key, so the output is deterministic; nested containers use bracket notation (or what
/// ``keyPathEncoding`` says), booleans `true`/`false` unless ``boolEncoding`` says otherwise.
///
/// ```swift
/// let encoder = URLEncodedFormEncoder(dateEncoding: .iso8601, keyEncoding: .convertToSnakeCase,
///                                     spaceEncoding: .plusReplaced)
/// let form: String = try encoder.encode(Signup(userName: "ada l", joined: Date(timeIntervalSince1970: 0)))
/// // "joined=1970-01-01T00%3A00%3A00Z&user_name=ada+l"
/// ```
public struct URLEncodedFormEncoder: Sendable {
    /// How an array's elements are keyed (Alamofire's cases: `brackets`, `noBrackets`,
    /// `indexInBrackets`, `custom`).
    public typealias ArrayEncoding = URLEncoding.ArrayEncoding
    /// How booleans are written (`numeric`: `1`/`0`, `literal`: `true`/`false`).
    public typealias BoolEncoding = URLEncoding.BoolEncoding

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
    /// What an explicit `nil` becomes.
    public let nilEncoding: NilEncoding
    /// How spaces are escaped.
    public let spaceEncoding: SpaceEncoding

    /// An encoder with these options, in Alamofire's order (pairs are always sorted; Alamofire's
    /// `alphabetizeKeyValuePairs:` and `allowedCharacters:` are not taken). Booleans default to
    /// `true`/`false` (Alamofire's default is `1`/`0`; docs/client.md).
    ///
    /// ```swift
    /// let encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets, boolEncoding: .numeric)
    /// ```
    public init(arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .literal,
                dataEncoding: DataEncoding = .base64, dateEncoding: DateEncoding = .deferredToDate,
                keyEncoding: KeyEncoding = .useDefaultKeys, keyPathEncoding: KeyPathEncoding = .brackets,
                nilEncoding: NilEncoding = .dropKey, spaceEncoding: SpaceEncoding = .percentEscaped) {
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.dataEncoding = dataEncoding
        self.dateEncoding = dateEncoding
        self.keyEncoding = keyEncoding
        self.keyPathEncoding = keyPathEncoding
        self.nilEncoding = nilEncoding
        self.spaceEncoding = spaceEncoding
    }

    /// The form text for `value`, which must encode as a keyed container.
    public func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoded = try jsonEncoder().encode(value)
        guard case let .object(object) = try JSONDecoder().decode(FormValue.self, from: encoded) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "form parameters must encode to a keyed container"))
        }
        var pairs: [(String, String)] = []
        for (key, child) in encodedKeys(object) {
            flatten(child, key: key, into: &pairs)
        }
        return pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// The form for `value` as UTF-8 data (Alamofire's `encode(_:) -> Data`).
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let text: String = try encode(value)
        return Data(text.utf8)
    }

    /// A JSON encoder writing dates and data as this encoder's options say (the form is read back
    /// from its output).
    private func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        switch dateEncoding {
        case .deferredToDate: encoder.dateEncodingStrategy = .deferredToDate
        case .secondsSince1970: encoder.dateEncodingStrategy = .secondsSince1970
        case .millisecondsSince1970: encoder.dateEncodingStrategy = .millisecondsSince1970
        case .iso8601: encoder.dateEncodingStrategy = .iso8601
        case let .formatted(formatter): encoder.dateEncodingStrategy = .formatted(formatter)
        case let .custom(write):
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(try write(date))
            }
        }
        switch dataEncoding {
        case .deferredToData: encoder.dataEncodingStrategy = .deferredToData
        case .base64: encoder.dataEncodingStrategy = .base64
        case let .custom(write):
            encoder.dataEncodingStrategy = .custom { data, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(try write(data))
            }
        }
        return encoder
    }

    /// An object's members with their keys encoded, sorted by the encoded key.
    private func encodedKeys(_ object: [String: FormValue]) -> [(String, FormValue)] {
        object.map { (keyEncoding.encode($0.key), $0.value) }.sorted { $0.0 < $1.0 }
    }

    private func flatten(_ value: FormValue, key: String, into pairs: inout [(String, String)]) {
        switch value {
        case let .object(object):
            for (child, member) in encodedKeys(object) {
                flatten(member, key: key + keyPathEncoding.encodeKeyPath(child), into: &pairs)
            }
        case let .array(array):
            for (index, element) in array.enumerated() { flatten(element, key: arrayEncoding.encode(key: key, atIndex: index), into: &pairs) }
        case let .bool(bool):
            pairs.append((key, boolEncoding.encode(value: bool)))
        case let .scalar(text):
            pairs.append((key, text))
        case .null:
            if let text = nilEncoding.encodeNil() { pairs.append((key, text)) }
        }
    }

    /// Percent-escapes per RFC 3986 (letters, digits, `-._~` pass through); a space becomes `%20`,
    /// or `+` with ``SpaceEncoding/plusReplaced``.
    private func escape(_ string: String) -> String {
        spaceEncoding.encode(Self.escape(string))
    }

    /// Percent-escapes per RFC 3986 (letters, digits, `-._~` pass through; space becomes `%20`).
    static func escape(_ string: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }
}

/// A JSON value as form text: scalars keep their JSON spelling (integers, decimals); booleans and
/// nulls are kept apart for the encoder's ``URLEncodedFormEncoder/boolEncoding`` and
/// ``URLEncodedFormEncoder/nilEncoding``.
private enum FormValue: Decodable {
    case object([String: FormValue])
    case array([FormValue])
    case bool(Bool)
    case scalar(String)
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .scalar(String(integer))
        } else if let number = try? container.decode(Double.self) {
            self = .scalar(String(number))
        } else if let string = try? container.decode(String.self) {
            self = .scalar(string)
        } else if let array = try? container.decode([FormValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: FormValue].self))
        }
    }
}
