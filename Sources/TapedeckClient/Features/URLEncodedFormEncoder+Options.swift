public import Foundation

extension URLEncodedFormEncoder {
    /// How `Data` values are written (Alamofire's cases).
    public enum DataEncoding: Sendable {
        /// As `Data` encodes itself: an array of bytes (`d[]=1&d[]=2`).
        case deferredToData
        /// Base64 text (the default).
        case base64
        /// Text of your own.
        case custom(@Sendable (Data) throws -> String)
    }

    /// How `Date` values are written (Alamofire's cases).
    public enum DateEncoding: @unchecked Sendable {
        // @unchecked Sendable: `formatted` holds a DateFormatter, which the encoder only reads.

        /// As `Date` encodes itself: seconds since 2001-01-01 (the default).
        case deferredToDate
        /// Seconds since 1970-01-01.
        case secondsSince1970
        /// Milliseconds since 1970-01-01.
        case millisecondsSince1970
        /// ISO 8601 text (`2024-05-01T12:00:00Z`).
        case iso8601
        /// Text from this formatter.
        case formatted(DateFormatter)
        /// Text of your own.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How keys are spelt (Alamofire's cases), applied to each value's whole key path as Alamofire
    /// applies it (`userInfo[firstName]` → `user_info[first_name]`).
    public enum KeyEncoding: Sendable {
        /// The key as the type declares it (the default).
        case useDefaultKeys
        /// `userName` → `user_name`, `imageURL` → `image_url`.
        case convertToSnakeCase
        /// `userName` → `user-name`.
        case convertToKebabCase
        /// The first letter upper-cased: `userName` → `UserName`.
        case capitalized
        /// All upper case.
        case uppercased
        /// All lower case.
        case lowercased
        /// A spelling of your own.
        case custom(@Sendable (String) -> String)

        /// `key` spelt this way.
        public func encode(_ key: String) -> String {
            switch self {
            case .useDefaultKeys: return key
            case .convertToSnakeCase: return Self.separatingWords(key, with: "_")
            case .convertToKebabCase: return Self.separatingWords(key, with: "-")
            case .capitalized: return key.prefix(1).uppercased() + key.dropFirst()
            case .uppercased: return key.uppercased()
            case .lowercased: return key.lowercased()
            case let .custom(spell): return spell(key)
            }
        }

        /// `key` in lower case with `separator` between its camel-case words: a word starts at an
        /// upper-case letter after a lower-case letter or digit, and at the last capital of a run
        /// followed by a lower-case letter (`imageURLList` → `image_url_list`). Leading and
        /// trailing underscores stay as they are.
        private static func separatingWords(_ key: String, with separator: Character) -> String {
            let core = key.drop { $0 == "_" }
            let leading = key.prefix(key.count - core.count)
            let body = core.reversed().drop { $0 == "_" }.reversed()
            let trailing = core.suffix(core.count - body.count)
            let letters = Array(body)
            var result = ""
            for (index, letter) in letters.enumerated() {
                if letter.isUppercase, index > 0 {
                    let previous = letters[index - 1]
                    let next = index + 1 < letters.count ? letters[index + 1] : nil
                    if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                        result.append(separator)
                    }
                }
                result.append(contentsOf: letter.lowercased())
            }
            return leading + result + trailing
        }
    }

    /// How a nested object's key is attached to its parent's key (Alamofire's type).
    public struct KeyPathEncoding: Sendable {
        /// `parent[child]` (the default).
        public static let brackets = KeyPathEncoding { "[\($0)]" }
        /// `parent.child`.
        public static let dots = KeyPathEncoding { ".\($0)" }

        private let encoding: @Sendable (_ subkey: String) -> String

        /// A key-path spelling: `encoding` gives what follows the parent's key for `subkey`.
        public init(encoding: @escaping @Sendable (_ subkey: String) -> String) {
            self.encoding = encoding
        }

        /// What follows the parent's key for `subkey`.
        public func encodeKeyPath(_ subkey: String) -> String {
            encoding(subkey)
        }
    }

    /// What an explicit `nil` (a `null` in the encoded value) becomes (Alamofire's type).
    public struct NilEncoding: Sendable {
        /// The pair is left out (the default).
        public static let dropKey = NilEncoding { nil }
        /// The key with an empty value: `key=`.
        public static let dropValue = NilEncoding { "" }
        /// `key=null`.
        public static let null = NilEncoding { "null" }

        private let encoding: @Sendable () -> String?

        /// A nil spelling: `encoding` gives the value, or nil to leave the pair out.
        public init(encoding: @escaping @Sendable () -> String?) {
            self.encoding = encoding
        }

        /// The value written for a nil, or nil to leave the pair out.
        public func encodeNil() -> String? {
            encoding()
        }
    }

    /// How spaces are escaped (Alamofire's cases).
    public enum SpaceEncoding: Sendable {
        /// `%20` (the default).
        case percentEscaped
        /// `+`.
        case plusReplaced

        /// `text` (already percent-escaped) with its spaces written this way.
        public func encode(_ text: String) -> String {
            switch self {
            case .percentEscaped: return text
            case .plusReplaced: return text.replacingOccurrences(of: "%20", with: "+")
            }
        }
    }
}
