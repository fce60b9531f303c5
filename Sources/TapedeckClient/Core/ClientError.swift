public import Foundation

/// Everything that can go wrong on a request's path, with Alamofire's case set (`AFError` in 5.12)
/// minus the cases of features this client does not have (server trust, URL-session
/// resume data); docs/client.md lists the differences. ``AFError`` is another name for it, so code
/// written against Alamofire keeps its spelling.
///
/// ```swift
/// if let error = response.error, error.isResponseValidationError, error.responseCode == 401 { … }
/// ```
public enum ClientError: Error, Sendable {
    // The cases in Alamofire's order: an error bridged to NSError (`(error as NSError).code`,
    // `error._code`) gets the code Alamofire's does on Linux (payload cases numbered first).
    /// An upload's body could not be made (its form failed to encode, or its file could not be written).
    case createUploadableFailed(error: any Error)
    /// `asURLRequest()` threw a non-`ClientError` error.
    case createURLRequestFailed(error: any Error)
    /// A download's file could not be moved to its destination.
    case downloadedFileMoveFailed(error: any Error, source: URL, destination: URL)
    /// `cancel()` was called and no other error was recorded (or, unlike Alamofire, during a retry delay).
    case explicitlyCancelled
    /// A URL could not be built from a `URLConvertible` (the value that failed).
    case invalidURL(url: any URLConvertible)
    /// A multipart form could not be encoded (a part's file, a stream, the output file).
    case multipartEncodingFailed(reason: MultipartEncodingFailureReason)
    /// A ``ParameterEncoding`` (``URLEncoding``, ``JSONEncoding``) failed.
    case parameterEncodingFailed(reason: ParameterEncodingFailureReason)
    /// A parameter encoder failed.
    case parameterEncoderFailed(reason: ParameterEncoderFailureReason)
    /// The adapter chain failed, or produced an invalid request. Always wraps, even a `ClientError`.
    case requestAdaptationFailed(error: any Error)
    /// A retrier answered "do not retry, with this error".
    case requestRetryFailed(retryError: any Error, originalError: any Error)
    /// A validator failed.
    case responseValidationFailed(reason: ResponseValidationFailureReason)
    /// A response serializer failed.
    case responseSerializationFailed(reason: ResponseSerializationFailureReason)
    /// The Session was released with the request still running.
    case sessionDeinitialized
    /// The URLSession was invalidated.
    case sessionInvalidated(error: (any Error)?)
    /// The URLSession task finished with an error (including `URLError.cancelled`).
    case sessionTaskFailed(error: any Error)
    /// The URLRequest is invalid (a GET with a body).
    case urlRequestValidationFailed(reason: URLRequestValidationFailureReason)

    /// Why a multipart form could not be encoded.
    public enum MultipartEncodingFailureReason: Sendable {
        /// A file part's URL is not a file URL.
        case bodyPartURLInvalid(url: URL)
        /// A file part's URL has no file name or no extension to name the part by.
        case bodyPartFilenameInvalid(in: URL)
        /// A file part's file does not exist.
        case bodyPartFileNotReachable(at: URL)
        /// Checking a file part's file failed.
        case bodyPartFileNotReachableWithError(atURL: URL, error: any Error)
        /// A file part's URL names a directory.
        case bodyPartFileIsDirectory(at: URL)
        /// A file part's size could not be read.
        case bodyPartFileSizeNotAvailable(at: URL)
        /// Asking a file part's size failed.
        case bodyPartFileSizeQueryFailedWithError(forURL: URL, error: any Error)
        /// A file part's file could not be opened for reading.
        case bodyPartInputStreamCreationFailed(for: URL)
        /// The output file could not be created.
        case outputStreamCreationFailed(for: URL)
        /// The output file already exists.
        case outputStreamFileAlreadyExists(at: URL)
        /// The output URL is not a file URL.
        case outputStreamURLInvalid(url: URL)
        /// Writing the output file failed.
        case outputStreamWriteFailed(error: any Error)
        /// Reading a part's stream failed, or it held fewer or more bytes than its stated length.
        case inputStreamReadFailed(error: any Error)
    }

    /// A stream part held another number of bytes than the form was told.
    public struct UnexpectedInputStreamLength: Error, Sendable {
        /// The length the part was appended with.
        public var bytesExpected: UInt64
        /// How many bytes the stream gave.
        public var bytesRead: UInt64

        /// The two counts.
        public init(bytesExpected: UInt64, bytesRead: UInt64) {
            self.bytesExpected = bytesExpected
            self.bytesRead = bytesRead
        }
    }

    /// Why a ``ParameterEncoding`` failed.
    public enum ParameterEncodingFailureReason: Sendable {
        /// The request had no URL to put a query in.
        case missingURL
        /// `JSONSerialization` refused the parameters.
        case jsonEncodingFailed(error: any Error)
        /// A custom encoding threw.
        case customEncodingFailed(error: any Error)
    }

    /// Why a ``ParameterEncoder`` failed.
    public enum ParameterEncoderFailureReason: Sendable {
        /// What an encoder needs from the request.
        public enum RequiredComponent: Sendable {
            /// The request's URL.
            case url
            /// The request's method (its raw value, as the request had it).
            case httpMethod(rawValue: String)
        }

        /// The request lacked what the encoder needs (its URL or its method).
        case missingRequiredComponent(RequiredComponent)
        /// The encoder threw.
        case encoderFailed(error: any Error)
    }

    /// Why a URLRequest was refused before sending.
    public enum URLRequestValidationFailureReason: Sendable {
        /// A GET request carried a body.
        case bodyDataInGETRequest(Data)
    }

    /// Why a validator refused the response.
    public enum ResponseValidationFailureReason: Sendable {
        /// The status code was not acceptable.
        case unacceptableStatusCode(code: Int)
        /// The response's content type was not one of those accepted.
        case unacceptableContentType(acceptableContentTypes: [String], responseContentType: String)
        /// The response had no content type, but the validator wanted one of those accepted.
        case missingContentType(acceptableContentTypes: [String])
        /// A custom validator failed with this error.
        case customValidationFailed(error: any Error)
        /// A download's validator had no file to read (Alamofire's case; TapedeckClient's download
        /// validators do not read the file, so it never produces it: a `switch` over the reasons
        /// compiles as with Alamofire).
        case dataFileNil
        /// A download's validator could not read the file at this URL (Alamofire's case; never
        /// produced here, as `dataFileNil`).
        case dataFileReadFailed(at: URL)
    }

    /// Why a serializer could not produce its value.
    public enum ResponseSerializationFailureReason: Sendable {
        /// There was no body where one was needed.
        case inputDataNilOrZeroLength
        /// The body was not text in this encoding.
        case stringSerializationFailed(encoding: String.Encoding)
        /// The body was not JSON.
        case jsonSerializationFailed(error: any Error)
        /// The decoder threw.
        case decodingFailed(error: any Error)
        /// An empty body cannot stand for a value of this type.
        case invalidEmptyResponse(type: String)
        /// A custom serializer threw.
        case customSerializationFailed(error: any Error)
        /// A download finished without a file to read.
        case inputFileNil
        /// A download's file could not be read.
        case inputFileReadFailed(at: URL)
    }
}

extension ClientError {
    /// True for `.explicitlyCancelled`.
    public var isExplicitlyCancelledError: Bool {
        if case .explicitlyCancelled = self { return true }
        return false
    }

    /// True for `.requestAdaptationFailed`.
    public var isRequestAdaptationError: Bool {
        if case .requestAdaptationFailed = self { return true }
        return false
    }

    /// True for `.requestRetryFailed`.
    public var isRequestRetryError: Bool {
        if case .requestRetryFailed = self { return true }
        return false
    }

    /// True for `.responseValidationFailed`.
    public var isResponseValidationError: Bool {
        if case .responseValidationFailed = self { return true }
        return false
    }

    /// True for `.responseSerializationFailed`.
    public var isResponseSerializationError: Bool {
        if case .responseSerializationFailed = self { return true }
        return false
    }

    /// True for `.sessionTaskFailed`.
    public var isSessionTaskError: Bool {
        if case .sessionTaskFailed = self { return true }
        return false
    }

    /// True for `.createURLRequestFailed`.
    public var isCreateURLRequestError: Bool {
        if case .createURLRequestFailed = self { return true }
        return false
    }

    /// True for `.multipartEncodingFailed`.
    public var isMultipartEncodingError: Bool {
        if case .multipartEncodingFailed = self { return true }
        return false
    }

    /// True for `.createUploadableFailed`.
    public var isCreateUploadableError: Bool {
        if case .createUploadableFailed = self { return true }
        return false
    }

    /// True for `.downloadedFileMoveFailed`.
    public var isDownloadedFileMoveError: Bool {
        if case .downloadedFileMoveFailed = self { return true }
        return false
    }

    /// True for `.sessionDeinitialized`.
    public var isSessionDeinitializedError: Bool {
        if case .sessionDeinitialized = self { return true }
        return false
    }

    /// The error this one wraps, if any.
    public var underlyingError: (any Error)? {
        switch self {
        case let .createURLRequestFailed(error), let .requestAdaptationFailed(error), let .sessionTaskFailed(error),
             let .createUploadableFailed(error), let .downloadedFileMoveFailed(error, _, _):
            return error
        case let .multipartEncodingFailed(reason):
            switch reason {
            case let .bodyPartFileNotReachableWithError(_, error), let .bodyPartFileSizeQueryFailedWithError(_, error),
                 let .outputStreamWriteFailed(error), let .inputStreamReadFailed(error):
                return error
            default:
                return nil
            }
        case let .requestRetryFailed(retryError, _):
            return retryError
        case let .parameterEncoderFailed(.encoderFailed(error)):
            return error
        case let .parameterEncodingFailed(.jsonEncodingFailed(error)), let .parameterEncodingFailed(.customEncodingFailed(error)):
            return error
        case let .responseValidationFailed(.customValidationFailed(error)):
            return error
        case let .responseSerializationFailed(reason):
            switch reason {
            case let .jsonSerializationFailed(error), let .decodingFailed(error), let .customSerializationFailed(error):
                return error
            default:
                return nil
            }
        case let .sessionInvalidated(error):
            return error
        default:
            return nil
        }
    }

    /// The status code of an `unacceptableStatusCode` validation failure.
    public var responseCode: Int? {
        if case let .responseValidationFailed(.unacceptableStatusCode(code)) = self { return code }
        return nil
    }

    /// The acceptable content types of a content-type validation failure.
    public var acceptableContentTypes: [String]? {
        switch self {
        case let .responseValidationFailed(.unacceptableContentType(types, _)), let .responseValidationFailed(.missingContentType(types)):
            return types
        default:
            return nil
        }
    }

    /// The response content type of an `unacceptableContentType` failure.
    public var responseContentType: String? {
        if case let .responseValidationFailed(.unacceptableContentType(_, type)) = self { return type }
        return nil
    }

    /// The `URLError` at the bottom of this error, if any.
    public var urlError: URLError? {
        underlyingError as? URLError ?? ((underlyingError as? ClientError)?.urlError)
    }
}

extension Error {
    /// This error as a `ClientError`, if it is one.
    public var asClientError: ClientError? {
        self as? ClientError
    }

    /// This error if it is a `ClientError`, else `wrap(self)` (Alamofire's "keep, else wrap" rule).
    func asClientError(orFailWith wrap: (any Error) -> ClientError) -> ClientError {
        (self as? ClientError) ?? wrap(self)
    }
}

extension ClientError: CustomStringConvertible {
    /// What failed, in a sentence. An `NSError` inside (a `URLError`, a `CocoaError`) is described
    /// with its `userInfo` keys in sorted order (``StableErrorText``), so the sentence is the same in
    /// every run: it goes into traces and outcomes.
    public var description: String {
        StableErrorText.stabilizing(sentence, around: self)
    }

    private var sentence: String {
        switch self {
        case let .createURLRequestFailed(error): return "creating the URLRequest failed: \(StableErrorText.describe(error))"
        case let .invalidURL(url): return "invalid URL: \(url)"
        case let .parameterEncodingFailed(reason): return "parameter encoding failed: \(reason)"
        case let .parameterEncoderFailed(reason): return "parameter encoding failed: \(reason)"
        case .urlRequestValidationFailed: return "a GET request must not have a body"
        case let .requestAdaptationFailed(error): return "request adaptation failed: \(StableErrorText.describe(error))"
        case let .requestRetryFailed(retryError, originalError):
            return "retry failed: \(StableErrorText.describe(retryError)) (original error: \(StableErrorText.describe(originalError)))"
        case let .sessionTaskFailed(error): return "the URLSession task failed: \(StableErrorText.describe(error))"
        case .explicitlyCancelled: return "the request was cancelled"
        case let .responseValidationFailed(reason): return "response validation failed: \(reason)"
        case let .responseSerializationFailed(reason): return "response serialization failed: \(reason)"
        case .sessionDeinitialized: return "the Session was released while the request was running"
        case let .sessionInvalidated(error): return "the URLSession was invalidated\(error.map { ": \(StableErrorText.describe($0))" } ?? "")"
        case let .multipartEncodingFailed(reason): return "multipart encoding failed: \(reason)"
        case let .createUploadableFailed(error): return "the upload's body could not be made: \(StableErrorText.describe(error))"
        case let .downloadedFileMoveFailed(error, source, destination):
            return "moving the downloaded file from \(source.path) to \(destination.path) failed: \(StableErrorText.describe(error))"
        }
    }
}
