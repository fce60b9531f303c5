public import Foundation
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Something that can make an upload's body (Alamofire's `UploadableConvertible`): data, a file,
/// a stream, or a multipart form encoded on demand.
public protocol UploadableConvertible: Sendable {
    /// The body to send. Called for every attempt, on the session's requestQueue (hand back the
    /// same body, or a new stream each time); a throw fails the attempt with the error if it is a
    /// ``ClientError``, else ``ClientError/createUploadableFailed(error:)`` (after asking the retrier).
    func createUploadable() throws -> UploadRequest.Uploadable
}

/// A data request that sends a body through a URLSession upload task: made by the `upload`
/// methods of ``Session`` (data, file, stream, multipart form). The body is made for every
/// attempt, as in Alamofire (a form is encoded once; a stream is read once, so a retry of a
/// stream upload sends nothing). The response is read as for any ``DataRequest``;
/// ``Request/uploadProgress`` follows the body being sent.
///
/// ```swift
/// session.upload(Data("hello".utf8), to: "https://api.example.com/notes", method: .put)
///     .uploadProgress { print("sent", $0.fractionCompleted) }
///     .responseData { print($0.result) }
/// ```
public final class UploadRequest: DataRequest, @unchecked Sendable {
    // @unchecked Sendable: as DataRequest; `uploadState` is a lock too.

    /// Where an upload's body comes from.
    public enum Uploadable: UploadableConvertible, @unchecked Sendable {
        // @unchecked Sendable: an InputStream is read by one task only.
        /// Bytes in memory.
        case data(Data)
        /// A file; `shouldRemove` deletes it once the request finished (a form written to disk).
        case file(URL, shouldRemove: Bool)
        /// A stream, read once by the task (a retry cannot send it again; make a new request).
        case stream(InputStream)

        /// Itself.
        public func createUploadable() throws -> Uploadable { self }

        /// `data`, `file` or `stream` (for event descriptions).
        var kind: String {
            switch self {
            case .data: "data"
            case .file: "file"
            case .stream: "stream"
            }
        }

        /// The body's length when known (data, file), for upload progress.
        var length: Int64? {
            switch self {
            case let .data(data): return Int64(data.count)
            case let .file(url, _):
                return (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
            case .stream: return nil
            }
        }
    }

    private struct UploadState {
        var uploadable: Uploadable?
    }

    /// What makes the body (given to the `upload` method).
    public let upload: any UploadableConvertible
    /// The file manager that removes a temporary form file once the request finished.
    public let fileManager: FileManager
    private let uploadState = Protected(UploadState())

    init(id: UUID, convertible: any URLRequestConvertible, upload: any UploadableConvertible, fileManager: FileManager,
         underlyingQueue: any SchedulerQueue, serializationQueue: any SchedulerQueue, eventMonitor: CompositeEventMonitor,
         interceptor: (any RequestInterceptor)?, delegate: Session) {
        self.upload = upload
        self.fileManager = fileManager
        super.init(id: id, convertible: convertible, underlyingQueue: underlyingQueue, serializationQueue: serializationQueue,
                   eventMonitor: eventMonitor, interceptor: interceptor, delegate: delegate)
    }

    /// The body made for this request (nil until the request was set up).
    public var uploadable: Uploadable? { uploadState.read { $0.uploadable } }

    /// Makes the attempt's body, as Alamofire does for every attempt (a multipart form encodes
    /// once and hands the same body to each): on the requestQueue, before the URLRequest. A
    /// temporary file an earlier attempt made and this one no longer uses is removed, and so is
    /// this one's when a cancel came while it was being made.
    func prepareUploadable() throws -> Uploadable {
        let made: Uploadable
        do { made = try upload.createUploadable() } catch {
            throw error.asClientError(orFailWith: { .createUploadableFailed(error: $0) })
        }
        let previous = uploadState.write { state -> Uploadable? in
            defer { state.uploadable = made }
            return state.uploadable
        }
        if case let .file(old, shouldRemove: true)? = previous, case let .file(new, _) = made, old != new {
            try? fileManager.removeItem(at: old)
        }
        if isCancelled { removeTemporaryUpload() }
        return made
    }

    func didCreateUploadable(_ uploadable: Uploadable) {
        underlyingQueue.preconditionCurrent()
        eventMonitor.request(self, didCreateUploadable: uploadable)
    }

    /// The body could not be made: the attempt fails with the error (the retrier is asked, as for
    /// a URLRequest that could not be built).
    func didFailToCreateUploadable(with error: ClientError) {
        underlyingQueue.preconditionCurrent()
        self.error = error
        eventMonitor.request(self, didFailToCreateUploadableWithError: error)
        retryOrFinish(error: error)
    }

    override func task(for request: URLRequest, using session: URLSession) -> URLSessionTask {
        switch uploadable {
        case let .data(data):
            return session.uploadTask(with: request, from: data)
        case let .file(url, _):
            return session.uploadTask(with: request, fromFile: url)
        case let .stream(stream):
            var streamed = request
            streamed.httpBodyStream = stream
            return session.uploadTask(withStreamedRequest: streamed)
        case nil:
            return session.uploadTask(with: request, from: Data())
        }
    }

    /// The body's length, when the uploadable knows it (a stream may not).
    override var sentBodyLength: Int64? {
        uploadable?.length
    }

    /// Deletes a temporary form file once the request is over (whether or not its session is
    /// still there).
    override func releaseResources() {
        removeTemporaryUpload()
    }

    func removeTemporaryUpload() {
        guard case let .file(url, shouldRemove: true) = uploadable else { return }
        try? fileManager.removeItem(at: url)
    }
}

/// A multipart form as an upload: the URLRequest carries the form's `Content-Type`; the body is
/// encoded once (every attempt sends the same), in memory under the threshold, else into a
/// temporary file removed afterwards.
final class MultipartUpload: UploadableConvertible, URLRequestConvertible, @unchecked Sendable {
    // @unchecked Sendable: the form is only read; the encoded body is behind a lock.
    let form: MultipartFormData
    let encodingMemoryThreshold: UInt64
    let request: any URLRequestConvertible
    let fileManager: FileManager
    private let encoded = Protected<UploadRequest.Uploadable?>(nil)

    init(form: MultipartFormData, encodingMemoryThreshold: UInt64, request: any URLRequestConvertible, fileManager: FileManager) {
        self.form = form
        self.encodingMemoryThreshold = encodingMemoryThreshold
        self.request = request
        self.fileManager = fileManager
    }

    func asURLRequest() throws -> URLRequest {
        var urlRequest = try request.asURLRequest()
        urlRequest.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        return urlRequest
    }

    func createUploadable() throws -> UploadRequest.Uploadable {
        if let done = encoded.read({ $0 }) { return done }
        let made = try encode()
        encoded.write { $0 = made }
        return made
    }

    private func encode() throws -> UploadRequest.Uploadable {
        if form.contentLength < encodingMemoryThreshold { return .data(try form.encode()) }
        let directory = fileManager.temporaryDirectory.appendingPathComponent("tapedeck.multipart", isDirectory: true)
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(UUID().uuidString)
        do {
            try form.writeEncodedData(to: file)
        } catch {
            try? fileManager.removeItem(at: file)
            throw error
        }
        return .file(file, shouldRemove: true)
    }
}
