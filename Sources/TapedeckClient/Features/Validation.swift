public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What a validator decides.
public typealias ValidationResult = Result<Void, any Error>

/// A validator of a data request: sees the (last, adapted) request, the response and the data.
public typealias Validation = @Sendable (URLRequest?, HTTPURLResponse, Data?) -> ValidationResult

extension Request {
    /// What a validator decides (Alamofire's `Request.ValidationResult`).
    public typealias ValidationResult = TapedeckClient.ValidationResult
}

extension DataRequest {
    /// A validator of a data request (Alamofire's `DataRequest.Validation`).
    public typealias Validation = TapedeckClient.Validation
}

extension DataRequest {
    /// Adds a custom validator. Validators run after the task completed, in the order added, before
    /// the retry decision; once one fails (or an error is already recorded) later ones do not run.
    @preconcurrency
    @discardableResult
    public func validate(_ validation: @escaping Validation) -> Self {
        appendValidator(validation)
        return self
    }

    /// Fails with `unacceptableStatusCode` unless the status is in `acceptableStatusCodes`.
    @preconcurrency
    @discardableResult
    public func validate<S: Sequence & Sendable>(statusCode acceptableStatusCodes: S) -> Self where S.Iterator.Element == Int {
        validate { _, response, _ in StatusCodeValidation.validate(acceptable: acceptableStatusCodes, response: response) }
    }

    /// Fails unless the response's MIME type matches one of `acceptableContentTypes` (evaluated when
    /// the validator runs). Skipped for an empty body.
    @preconcurrency
    @discardableResult
    public func validate<S: Sequence & Sendable>(contentType acceptableContentTypes: @escaping @Sendable @autoclosure () -> S) -> Self
    where S.Iterator.Element == String {
        validate { _, response, data in
            guard let data, !data.isEmpty else { return .success(()) }
            return ContentTypeValidation.validate(acceptable: Array(acceptableContentTypes()), response: response)
        }
    }

    /// Status `200..<300`, then the content type against the request's `Accept` header, read when
    /// the validator runs from the last (adapted) request; no `Accept` means `*/*`.
    @discardableResult
    public func validate() -> Self {
        validate(statusCode: 200..<300)
        return validate { [weak self] _, response, data in
            guard let data, !data.isEmpty else { return .success(()) }
            return ContentTypeValidation.validate(acceptingAsIn: self?.request, response: response)
        }
    }
}

/// A `type/subtype` pair, parsed as Alamofire 5.12 does: whitespace trimmed, parameters dropped,
/// exactly two parts required.
struct MIMEType: Hashable {
    let type: String
    let subtype: String

    init?(_ string: String) {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        let withoutParameters = trimmed.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let parts = withoutParameters.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        type = String(parts[0])
        subtype = String(parts[1])
    }

    var isWildcard: Bool { type == "*" && subtype == "*" }

    /// Whether this acceptable type matches the response type `other`.
    func matches(_ other: MIMEType) -> Bool {
        switch (type, subtype) {
        case (other.type, other.subtype), (other.type, "*"), ("*", other.subtype), ("*", "*"):
            return true
        default:
            return false
        }
    }
}

/// The status-code check of `validate(statusCode:)` and `validate()`, data requests and downloads alike.
enum StatusCodeValidation {
    static func validate<S: Sequence>(acceptable: S, response: HTTPURLResponse) -> ValidationResult where S.Element == Int {
        acceptable.contains(response.statusCode)
            ? .success(())
            : .failure(ClientError.responseValidationFailed(reason: .unacceptableStatusCode(code: response.statusCode)))
    }
}

enum ContentTypeValidation {
    /// The content type against `request`'s `Accept` header (`validate()`); no `Accept` means `*/*`.
    static func validate(acceptingAsIn request: URLRequest?, response: HTTPURLResponse) -> ValidationResult {
        let accept = request?.value(forHTTPHeaderField: "Accept")
        return validate(acceptable: accept.map { $0.components(separatedBy: ",") } ?? ["*/*"], response: response)
    }

    static func validate(acceptable: [String], response: HTTPURLResponse) -> ValidationResult {
        guard let raw = response.mimeType ?? response.value(forHTTPHeaderField: "Content-Type"),
              let responseType = MIMEType(raw) else {
            if acceptable.contains(where: { MIMEType($0)?.isWildcard == true }) { return .success(()) }
            return .failure(ClientError.responseValidationFailed(reason: .missingContentType(acceptableContentTypes: acceptable.sorted())))
        }
        for candidate in acceptable {
            if let type = MIMEType(candidate), type.matches(responseType) { return .success(()) }
        }
        let shown = response.mimeType ?? "\(responseType.type)/\(responseType.subtype)"
        return .failure(ClientError.responseValidationFailed(reason: .unacceptableContentType(
            acceptableContentTypes: acceptable.sorted(), responseContentType: shown)))
    }
}
