import Foundation

/// Error descriptions that read the same in every run and every process.
///
/// An `NSError`'s own description (and so a `URLError`'s, a `CocoaError`'s) lists its `userInfo`
/// in the dictionary's order, which Swift draws anew for each dictionary: the same failure reads
/// `UserInfo={A=1, B=2}` in one run and `UserInfo={B=2, A=1}` in the next. Anything that goes into a
/// trace, a timeline or an outcome describes errors through this instead.
///
/// ```swift
/// let error = URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "timed out", NSURLErrorFailingURLErrorKey: url])
/// StableErrorText.describe(error)
/// // Error Domain=NSURLErrorDomain Code=-1001 UserInfo={NSErrorFailingURLKey=https://a.test/, NSLocalizedDescription=timed out}
/// ```
public enum StableErrorText {
    /// `error` described with a fixed order: a Foundation error with a `userInfo` as
    /// `Error Domain=… Code=… UserInfo={…}` with the keys sorted (an error among the values as its
    /// domain and code); any other error as it describes itself, with the Foundation errors it holds
    /// (a `DecodingError`'s underlying error, say) put in that form.
    public static func describe(_ error: any Error) -> String {
        isFoundationError(error) ? foundationText(error) : stabilizing("\(error)", around: error)
    }

    /// `text` with the descriptions of the Foundation errors inside `value` (its associated values
    /// and stored properties, a few levels down) put in the fixed form of ``describe(_:)``: for text
    /// made by interpolating a value that holds errors, such as an enum's reflected description.
    public static func stabilizing(_ text: String, around value: Any) -> String {
        var text = text
        for error in foundationErrors(in: value, depth: 0) {
            let raw = "\(error)"
            if text.contains(raw) { text = text.replacingOccurrences(of: raw, with: foundationText(error)) }
        }
        return text
    }

    /// True for errors whose description is Foundation's `NSError` one (with the `userInfo` listed).
    static func isFoundationError(_ error: any Error) -> Bool {
        error is URLError || error is CocoaError || error is POSIXError || type(of: error) is NSError.Type
    }

    private static func foundationText(_ error: any Error) -> String {
        let ns = error as NSError
        guard !ns.userInfo.isEmpty else { return "\(error)" }
        let fields = ns.userInfo.keys.sorted().map { key in "\(key)=\(value(ns.userInfo[key]!))" }
        return "Error Domain=\(ns.domain) Code=\(ns.code) UserInfo={\(fields.joined(separator: ", "))}"
    }

    private static func foundationErrors(in value: Any, depth: Int) -> [any Error] {
        if let error = value as? any Error, isFoundationError(error) { return [error] }
        guard depth < 6, !(value is Data), !(value is String) else { return [] }
        return Mirror(reflecting: value).children.flatMap { foundationErrors(in: $0.value, depth: depth + 1) }
    }

    private static func value(_ value: Any) -> String {
        switch value {
        case let error as any Error:
            let ns = error as NSError
            return "\(ns.domain) \(ns.code)"
        case let dictionary as [String: Any]:
            return "{" + dictionary.keys.sorted().map { "\($0)=\(Self.value(dictionary[$0]!))" }.joined(separator: ", ") + "}"
        case let dictionary as [AnyHashable: Any]:
            let keys = dictionary.keys.sorted { "\($0)" < "\($1)" }
            return "{" + keys.map { "\($0)=\(Self.value(dictionary[$0]!))" }.joined(separator: ", ") + "}"
        case let list as [Any]:
            return "[" + list.map { Self.value($0) }.joined(separator: ", ") + "]"
        default:
            return "\(value)"
        }
    }
}
