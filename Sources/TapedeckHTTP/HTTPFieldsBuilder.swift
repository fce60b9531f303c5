public import HTTPTypes

/// Builds `HTTPFields` from string pairs, skipping names that are not valid field names.
public struct HTTPFieldsBuilder: Sendable {
    /// The fields appended so far, in order.
    public private(set) var fields = HTTPFields()

    /// An empty builder.
    public init() {}

    /// Appends a field; a name swift-http-types cannot take is skipped.
    public mutating func append(_ name: String, _ value: String) {
        guard let fieldName = HTTPField.Name(name) else { return }
        fields.append(HTTPField(name: fieldName, value: value))
    }
}
