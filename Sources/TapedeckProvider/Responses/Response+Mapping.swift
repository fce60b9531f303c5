public import Foundation

extension Response {
    // MARK: status codes

    /// This response, or ``ProviderError/statusCode(_:)`` when its status is outside `statusCodes`.
    public func filter<R: RangeExpression>(statusCodes: R) throws -> Response where R.Bound == Int {
        guard statusCodes.contains(statusCode) else { throw ProviderError.statusCode(self) }
        return self
    }

    /// This response, or ``ProviderError/statusCode(_:)`` unless its status is `statusCode`.
    public func filter(statusCode: Int) throws -> Response {
        try filter(statusCodes: statusCode...statusCode)
    }

    /// This response, or ``ProviderError/statusCode(_:)`` unless its status is 200–299.
    public func filterSuccessfulStatusCodes() throws -> Response {
        try filter(statusCodes: 200...299)
    }

    /// This response, or ``ProviderError/statusCode(_:)`` unless its status is 200–399.
    public func filterSuccessfulStatusAndRedirectCodes() throws -> Response {
        try filter(statusCodes: 200...399)
    }

    // MARK: bodies

    /// The body as Foundation objects (`[String: Any]`, `[Any]`, `String`, `NSNumber`/numbers,
    /// `NSNull`), as Moya returns it; fragments are allowed. An empty body is
    /// ``ProviderError/jsonMapping(_:)``, or `NSNull()` when `failsOnEmptyData` is false.
    ///
    /// ```swift
    /// let login = (try response.mapJSON() as? [String: Any])?["login"] as? String
    /// ```
    ///
    /// For a typed, `Sendable` value use `map(JSON.self)` (TapedeckClient's `JSON`).
    public func mapJSON(failsOnEmptyData: Bool = true) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        } catch {
            if data.isEmpty && !failsOnEmptyData { return NSNull() }
            throw ProviderError.jsonMapping(self)
        }
    }

    /// The body as UTF-8 text, or the string at `keyPath` (dot-separated keys) of a JSON object.
    /// Fails with ``ProviderError/stringMapping(_:)``.
    public func mapString(atKeyPath keyPath: String? = nil) throws -> String {
        guard let keyPath else {
            guard let string = String(data: data, encoding: .utf8) else { throw ProviderError.stringMapping(self) }
            return string
        }
        guard let object = try? mapJSON(), let string = Self.value(in: object, atKeyPath: keyPath) as? String else {
            throw ProviderError.stringMapping(self)
        }
        return string
    }

    /// The body decoded as `type` by `decoder` — or the value at `keyPath` (dot-separated keys) of a
    /// JSON object. A missing key path is ``ProviderError/jsonMapping(_:)`` (unless
    /// `failsOnEmptyData` is false: then the whole body is decoded); a decoding error is
    /// ``ProviderError/objectMapping(_:_:)``. With `failsOnEmptyData` false, an empty body decodes
    /// as `{}`, then as `[{}]`.
    public func map<D: Decodable>(
        _ type: D.Type, atKeyPath keyPath: String? = nil, using decoder: JSONDecoder = JSONDecoder(), failsOnEmptyData: Bool = true
    ) throws -> D {
        var body = data
        if let keyPath, !keyPath.isEmpty {
            if let object = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed),
               let value = Self.value(in: object, atKeyPath: keyPath),
               let encoded = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) {
                body = encoded
            } else if failsOnEmptyData {
                throw ProviderError.jsonMapping(self)
            }
        }
        if body.isEmpty && !failsOnEmptyData {
            if let empty = try? decoder.decode(D.self, from: Data("{}".utf8)) { return empty }
            if let empty = try? decoder.decode(D.self, from: Data("[{}]".utf8)) { return empty }
        }
        do {
            return try decoder.decode(D.self, from: body)
        } catch {
            throw ProviderError.objectMapping(error, self)
        }
    }

    private static func value(in object: Any, atKeyPath keyPath: String) -> Any? {
        var current: Any? = object
        for key in keyPath.split(separator: ".") {
            current = (current as? [String: Any])?[String(key)]
        }
        return current is NSNull ? nil : current
    }
}
