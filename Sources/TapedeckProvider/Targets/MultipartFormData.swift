public import Foundation
public import TapedeckClient

/// Where a download target's file goes (Moya's `DownloadDestination`): TapedeckClient's
/// `DownloadRequest.Destination`.
public typealias DownloadDestination = DownloadRequest.Destination

/// TapedeckClient's multipart form, by Moya's name for Alamofire's (`RequestMultipartFormData`):
/// the form an upload target's parts are appended to.
public typealias RequestMultipartFormData = TapedeckClient.MultipartFormData

/// One part of a `multipart/form-data` upload (Moya 15's `MultipartFormData`): its bytes come from
/// data, a file or a stream, and it has a field name and, optionally, a file name and MIME type.
/// It is also Moya master's whole form (`MultipartFormData(parts:)`, or an array literal of
/// ``MultipartFormBodyPart``s, for `.uploadMultipartFormData`), with a file manager and a
/// boundary: Moya 15.0.3 and Moya master code both compile.
///
/// ```swift
/// var task: Task {
///     .uploadMultipart([
///         MultipartFormData(provider: .data(Data("Ada".utf8)), name: "name"),
///         MultipartFormData(provider: .file(photoURL), name: "photo", fileName: "photo.jpg", mimeType: "image/jpeg"),
///     ])
/// }
/// // Moya master's spelling:
/// var task: Task {
///     .uploadMultipartFormData([MultipartFormBodyPart(provider: .data(Data("Ada".utf8)), name: "name")])
/// }
/// ```
public struct MultipartFormData: Hashable, @unchecked Sendable {
    // @unchecked Sendable: an InputStream is read once, by the request the part is sent with.

    /// Where a part's bytes come from.
    public enum FormDataProvider: Hashable {
        /// Bytes in memory.
        case data(Foundation.Data)
        /// A file (its name and MIME type come from the URL unless both are given).
        case file(URL)
        /// A stream and how many bytes to read from it.
        case stream(InputStream, UInt64)
    }

    /// Where the bytes come from (of a whole form, no bytes).
    public let provider: FormDataProvider
    /// The field name (of a whole form, empty).
    public let name: String
    /// The file name, if any.
    public let fileName: String?
    /// The MIME type, if any.
    public let mimeType: String?
    /// The file manager a whole form's file parts are read with (Moya master's form).
    public let fileManager: FileManager
    /// A whole form's boundary (nil: one is made); nil for a part.
    public let boundary: String?
    /// A whole form's parts (Moya master's form); empty for a part.
    public let parts: [MultipartFormBodyPart]
    /// Whether this is a whole form (made with ``init(fileManager:boundary:parts:)``).
    let isForm: Bool

    /// A part.
    public init(provider: FormDataProvider, name: String, fileName: String? = nil, mimeType: String? = nil) {
        self.provider = provider
        self.name = name
        self.fileName = fileName
        self.mimeType = mimeType
        fileManager = .default
        boundary = nil
        parts = []
        isForm = false
    }

    /// A whole form of `parts` (Moya master's `MultipartFormData`), sent with `boundary` (nil: one is made).
    public init(fileManager: FileManager = .default, boundary: String? = nil, parts: [MultipartFormBodyPart]) {
        provider = .data(Data())
        name = ""
        fileName = nil
        mimeType = nil
        self.fileManager = fileManager
        self.boundary = boundary
        self.parts = parts
        isForm = true
    }

    /// The parts this value sends: a whole form's, or the part itself.
    var bodyParts: [MultipartFormBodyPart] { isForm ? parts : [self] }

    /// Equal parts, or equal forms (the file manager compared by identity).
    public static func == (lhs: MultipartFormData, rhs: MultipartFormData) -> Bool {
        lhs.provider == rhs.provider && lhs.name == rhs.name && lhs.fileName == rhs.fileName && lhs.mimeType == rhs.mimeType
            && lhs.fileManager === rhs.fileManager && lhs.boundary == rhs.boundary && lhs.parts == rhs.parts && lhs.isForm == rhs.isForm
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(provider)
        hasher.combine(name)
        hasher.combine(fileName)
        hasher.combine(mimeType)
        hasher.combine(ObjectIdentifier(fileManager))
        hasher.combine(boundary)
        hasher.combine(parts)
        hasher.combine(isForm)
    }
}

/// Moya master's name for one part of a form (Moya 15.0.3 calls a part ``MultipartFormData``).
public typealias MultipartFormBodyPart = MultipartFormData

extension MultipartFormData: ExpressibleByArrayLiteral {
    /// A whole form of these parts, with a boundary made for it.
    public init(arrayLiteral elements: MultipartFormBodyPart...) {
        self.init(parts: elements)
    }
}

extension RequestMultipartFormData {
    /// Appends Moya parts, as Moya does: data with whatever names it has; a file with its own file
    /// name and MIME type when both are given, else those of its URL; a stream with empty ones
    /// when missing.
    func append(_ parts: [MultipartFormData]) {
        for part in parts.flatMap(\.bodyParts) {
            switch part.provider {
            case let .data(data):
                append(data, withName: part.name, fileName: part.fileName, mimeType: part.mimeType)
            case let .file(url):
                if let fileName = part.fileName, let mimeType = part.mimeType {
                    append(url, withName: part.name, fileName: fileName, mimeType: mimeType)
                } else {
                    append(url, withName: part.name)
                }
            case let .stream(stream, length):
                append(stream, withLength: length, name: part.name, fileName: part.fileName ?? "", mimeType: part.mimeType ?? "")
            }
        }
    }
}

extension HTTPMethod {
    /// Whether a multipart body goes with this method (Moya's `Method.supportsMultipart`): POST,
    /// PUT, PATCH and CONNECT.
    public var supportsMultipart: Bool {
        switch self {
        case .post, .put, .patch, .connect: true
        default: false
        }
    }
}
