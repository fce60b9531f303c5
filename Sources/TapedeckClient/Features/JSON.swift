/// A JSON document as a Sendable value (what `responseJSON` hands over).
public indirect enum JSON: Hashable, Sendable {
    /// JSON `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A number (every JSON number is a `Double` here).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object.
    case object([String: JSON])

    /// The member named `key` of an object (nil otherwise).
    public subscript(key: String) -> JSON? {
        if case let .object(object) = self { return object[key] }
        return nil
    }

    /// The element at `index` of an array (nil when out of range or not an array).
    public subscript(index: Int) -> JSON? {
        if case let .array(array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }
}

extension JSON: Decodable {
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
        } else if let array = try? container.decode([JSON].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }
}
