public import HTTPTypes

/// Builds `HTTPFields` from string pairs, skipping names that are not valid field names.
public struct HTTPFieldsBuilder: Sendable {
    public private(set) var fields = HTTPFields()

    public init() {}

    public mutating func append(_ name: String, _ value: String) {
        guard let fieldName = HTTPField.Name(name) else { return }
        fields.append(HTTPField(name: fieldName, value: value))
    }
}
