import Foundation

/// A JSON document as a Sendable value: what ``JSONResponseSerializer`` produces and
/// `responseDecodable(of: ClientJSON.self)` hands over (`responseJSON` hands its ``foundationValue``).
public indirect enum ClientJSON: Hashable, Sendable {
    /// JSON `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A number (every JSON number is a `Double` here).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([ClientJSON])
    /// An object.
    case object([String: ClientJSON])

    /// The member named `key` of an object (nil otherwise).
    public subscript(key: String) -> ClientJSON? {
        if case let .object(object) = self { return object[key] }
        return nil
    }

    /// The element at `index` of an array (nil when out of range or not an array).
    public subscript(index: Int) -> ClientJSON? {
        if case let .array(array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }
}

extension ClientJSON: Decodable {
    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([ClientJSON].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: ClientJSON].self))
        }
    }
}

extension ClientJSON {
    /// The document as `JSONSerialization` gives it (what Alamofire's `responseJSON` hands over):
    /// `[String: Any]`, `[Any]`, `String`, `NSNumber` (so `as? Int` and `as? Bool` work), `NSNull`.
    ///
    /// ```swift
    /// let object = ClientJSON.object(["id": .number(7)]).foundationValue as? [String: Any]
    /// let id = object?["id"] as? Int   // 7
    /// ```
    public var foundationValue: Any {
        switch self {
        case .null: NSNull()
        case let .bool(value): NSNumber(value: value)
        case let .number(value): Self.foundationNumber(value)
        case let .string(value): value
        case let .array(values): values.map(\.foundationValue)
        case let .object(values): values.mapValues(\.foundationValue)
        }
    }

    /// A whole number as an integer `NSNumber` (JSONSerialization's choice for `7`), others as doubles.
    private static func foundationNumber(_ value: Double) -> NSNumber {
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 { return NSNumber(value: Int64(value)) }
        return NSNumber(value: value)
    }
}
