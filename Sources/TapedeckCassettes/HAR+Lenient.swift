// Reading other tools' HAR files without refusing them for one odd entry or one oddly typed
// number (see HAR.swift).

/// Why an entry could not be decoded: the field (a path inside the entry, empty for the entry as
/// a whole) and what was wrong with it.
package struct HARUnreadable: Hashable, Sendable {
    package var field: String
    package var reason: String

    package init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
}

/// Decodes one entry without ever failing: a decoding error becomes an unreadable placeholder
/// (and the array it sits in moves on to the next element).
struct LenientEntry: Decodable {
    let entry: HAREntry

    init(from decoder: any Decoder) throws {
        do {
            entry = try HAREntry(from: decoder)
        } catch {
            var placeholder = HAREntry.unreadable(Self.describe(error, below: decoder.codingPath.count))
            // Name the request when its method and URL can still be read.
            if let request = (try? RequestLine(from: decoder))?.request {
                placeholder.request.method = request.method ?? ""
                placeholder.request.url = request.url ?? ""
            }
            entry = placeholder
        }
    }

    /// What may still be read of an entry that does not decode.
    private struct RequestLine: Decodable {
        struct Request: Decodable {
            var method: String?
            var url: String?
        }
        var request: Request?
    }

    /// The field and the reason, from a DecodingError's path. `depth` keys of the error's path
    /// lead to the entry itself and are left out.
    static func describe(_ error: any Error, below depth: Int) -> HARUnreadable {
        guard let error = error as? DecodingError else { return HARUnreadable(field: "", reason: "\(error)") }
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys.dropFirst(depth) {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text
        }
        switch error {
        case let .keyNotFound(key, context):
            return HARUnreadable(field: path(context.codingPath + [key]), reason: "the required field '\(key.stringValue)' is missing")
        case let .typeMismatch(type, context):
            return HARUnreadable(field: path(context.codingPath), reason: "expected \(type): \(context.debugDescription)")
        case let .valueNotFound(type, context):
            return HARUnreadable(field: path(context.codingPath), reason: "expected \(type), found null")
        case let .dataCorrupted(context):
            return HARUnreadable(field: path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return HARUnreadable(field: "", reason: "\(error)")
        }
    }
}

extension KeyedDecodingContainer {
    /// An integer that some writers store as a float (`62.0`).
    func decodeLenientInt(forKey key: Key) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(Int.self, forKey: key) { return value }
        let value = try decode(Double.self, forKey: key)
        guard value.isFinite, value.rounded() == value, abs(value) < 1e15 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected an integer, found \(value)")
        }
        return Int(value)
    }
}
