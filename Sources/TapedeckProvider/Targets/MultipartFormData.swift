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
///
/// ```swift
/// var task: Task {
///     .uploadMultipart([
///         MultipartFormData(provider: .data(Data("Ada".utf8)), name: "name"),
///         MultipartFormData(provider: .file(photoURL), name: "photo", fileName: "photo.jpg", mimeType: "image/jpeg"),
///     ])
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

    /// Where the bytes come from.
    public let provider: FormDataProvider
    /// The field name.
    public let name: String
    /// The file name, if any.
    public let fileName: String?
    /// The MIME type, if any.
    public let mimeType: String?

    /// A part.
    public init(provider: FormDataProvider, name: String, fileName: String? = nil, mimeType: String? = nil) {
        self.provider = provider
        self.name = name
        self.fileName = fileName
        self.mimeType = mimeType
    }
}

extension RequestMultipartFormData {
    /// Appends Moya parts, as Moya does: data with whatever names it has; a file with its own file
    /// name and MIME type when both are given, else those of its URL; a stream with empty ones
    /// when missing.
    func append(_ parts: [MultipartFormData]) {
        for part in parts {
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
