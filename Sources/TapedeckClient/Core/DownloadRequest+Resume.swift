public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Resuming downloads. A cancel that asks for resume data, or the failure of a resumable transfer
// (its response had a validator), keeps the partial file and says where it is, how many bytes it
// holds, the response's validator (ETag, else Last-Modified) and the request; a retry goes on from
// there, and so does `download(resumingWith:)`: it asks for the rest (`Range: bytes=N-`,
// `If-Range`) and appends a 206 to the file, or starts it again when the server answers the whole
// body (or the partial file is gone). Alamofire leaves this to URLSession's download tasks, whose
// resume data corelibs never produces; here downloads ride data tasks (docs/client.md, "Uploads and
// downloads"), so the request keeps it itself, on every platform and transport.

/// Where a resumed download goes on from: what resume data holds (JSON).
struct ResumePoint: Codable, Hashable, Sendable {
    /// Marks the data as Tapedeck's.
    var format = ResumePoint.currentFormat
    /// What was being downloaded.
    var url: URL
    /// The partial file.
    var file: String
    /// The bytes in it.
    var bytes: Int64
    /// The response's `ETag`, if it had one.
    var etag: String?
    /// The response's `Last-Modified`, if it had one.
    var lastModified: String?
    /// The request's method and header fields (a resumed request sends them again).
    var method: String? = nil
    var headers: [String: String]? = nil

    static let currentFormat = "tapedeck.resume.1"

    /// The point `data` holds, or nil when it is not Tapedeck's resume data.
    static func read(_ data: Data) -> ResumePoint? {
        guard let point = try? JSONDecoder().decode(ResumePoint.self, from: data), point.format == currentFormat else { return nil }
        return point
    }
}

/// Resume data that `download(resumingWith:)` cannot go on from (not made by a Tapedeck download's
/// cancel): delivered inside ``ClientError/createURLRequestFailed(error:)`` before any exchange.
public struct ResumeDataError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with it.
    public let reason: String

    /// What happened, and what to do.
    public var description: String {
        "tapedeck: cannot resume the download: \(reason) — resume data comes from cancel(producingResumeData: true) of a download"
    }
}

/// The URLRequest of a resumed download (its Range is added when its task is made).
private struct ResumeConvertible: URLRequestConvertible {
    let point: ResumePoint?

    func asURLRequest() throws -> URLRequest {
        guard let point else { throw ResumeDataError(reason: "the data is not Tapedeck's resume data") }
        var request = URLRequest(url: point.url)
        request.httpMethod = point.method ?? "GET"
        for (name, value) in point.headers ?? [:] { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }
}

extension DownloadRequest {
    /// Cancels the download; with `shouldProduceResumeData`, the bytes received so far stay in the
    /// partial file and ``resumeData`` says how to go on (nil when nothing had arrived).
    ///
    /// ```swift
    /// let download = session.download(url, to: destination).responseURL { _ in }
    /// // later:
    /// download.cancel(producingResumeData: true)
    /// // once it finished: session.download(resumingWith: download.resumeData!, to: destination)
    /// ```
    @discardableResult
    public func cancel(producingResumeData shouldProduceResumeData: Bool) -> Self {
        if shouldProduceResumeData { downloadState.write { $0.producesResumeData = true } }
        return cancel()
    }

    /// Cancels the download keeping what arrived, and calls `completionHandler` with the resume
    /// data (nil when nothing had arrived) once the transfer ended, on the rootQueue.
    @preconcurrency
    @discardableResult
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (_ data: Data?) -> Void) -> Self {
        downloadState.write {
            $0.producesResumeData = true
            $0.resumeDataHandlers.append(completionHandler)
        }
        return cancel()
    }

    /// The attempt's URLRequest, asking only for the rest when the download resumes — and when
    /// its partial file is still there (else the whole body comes again, into a new file).
    func resumingRequest(_ request: URLRequest) -> URLRequest {
        let fileManager = delegate?.delegate.fileManager ?? .default
        let point = downloadState.write { state -> ResumePoint? in
            guard let point = state.resumePoint else { return nil }
            guard fileManager.fileExists(atPath: point.file) else {
                state.resumePoint = nil
                return nil
            }
            return point
        }
        guard let point, point.bytes > 0 else { return request }
        var request = request
        request.setValue("bytes=\(point.bytes)-", forHTTPHeaderField: "Range")
        if let validator = point.etag ?? point.lastModified { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        return request
    }

    /// The partial file a resumed download writes to: its kept bytes followed by a 206's body, or
    /// emptied for a whole body (the server did not resume); nil without one.
    static func openResumed(_ point: ResumePoint?, status: Int?, using fileManager: FileManager) throws -> (url: URL, handle: FileHandle, kept: Int64)? {
        guard let point, fileManager.fileExists(atPath: point.file) else { return nil }
        let url = URL(fileURLWithPath: point.file)
        let handle = try FileHandle(forWritingTo: url)
        let kept = status == 206 ? point.bytes : 0
        try handle.truncate(atOffset: UInt64(kept))
        try handle.seekToEnd()
        return (url, handle, kept)
    }

    /// A retry of a resumed download goes on from what its file holds now: the file is kept.
    func keepPartialForRetry() -> Bool {
        downloadState.write { state in
            guard let point = state.resumePoint, let partial = state.partial else { return state.resumePoint != nil }
            try? partial.handle.close()
            state.resumePoint = ResumePoint(url: point.url, file: partial.url.path, bytes: state.written, etag: point.etag,
                                            lastModified: point.lastModified, method: point.method, headers: point.headers)
            state.partial = nil
            return true
        }
    }

    /// An attempt that ended without its body keeps the partial file and records where to go on
    /// from, when the transfer can resume (a GET whose response had an `ETag` or `Last-Modified`)
    /// and it failed, or was cancelled by a cancel that asked for resume data; a retry goes on
    /// from there too. False when there is nothing to keep.
    func keepPartialForResume() -> Bool {
        let urlRequest = request, response = response, cancelled = isCancelled
        return downloadState.write { state in
            guard let partial = state.partial, state.written > 0, let url = state.resumePoint?.url ?? urlRequest?.url else { return false }
            let etag = response?.value(forHTTPHeaderField: "ETag") ?? state.resumePoint?.etag
            let lastModified = response?.value(forHTTPHeaderField: "Last-Modified") ?? state.resumePoint?.lastModified
            let method = urlRequest?.httpMethod ?? "GET"
            let resumable = method == "GET" && (etag != nil || lastModified != nil)
                && response?.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased() != "none"
            // As URLSession: no resume data for a transfer that cannot be resumed safely.
            guard resumable, !cancelled || state.producesResumeData else { return false }
            try? partial.handle.close()
            var headers = urlRequest?.allHTTPHeaderFields ?? [:]
            for name in headers.keys where ["range", "if-range"].contains(name.lowercased()) { headers[name] = nil }
            let point = ResumePoint(url: url, file: partial.url.path, bytes: state.written, etag: etag, lastModified: lastModified,
                                    method: method, headers: headers)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]   // the same bytes for the same point
            state.resumeData = try? encoder.encode(point)
            state.resumePoint = point
            state.partial = nil
            return true
        }
    }

    /// Hands the resume data (or nil) to the `cancel(byProducingResumeData:)` handlers, once.
    func deliverResumeData() {
        let (handlers, data) = downloadState.write { state -> ([@Sendable (Data?) -> Void], Data?) in
            defer { state.resumeDataHandlers = [] }
            return (state.resumeDataHandlers, state.resumeData)
        }
        guard !handlers.isEmpty else { return }
        underlyingQueue.async(named: "resumeData") { handlers.forEach { $0(data) } }
    }
}

extension Session {
    /// Goes on with a download cancelled with `cancel(producingResumeData: true)`: asks for the
    /// bytes after those kept (`Range`, with `If-Range` so that a changed file comes whole) and
    /// appends them; a server that answers the whole body starts the file again. Data that is not
    /// such resume data fails the request with ``ResumeDataError`` before any exchange.
    ///
    /// ```swift
    /// session.download(resumingWith: data, to: destination).validate().responseURL { print($0.fileURL ?? "-") }
    /// ```
    @preconcurrency
    public func download(
        resumingWith data: Data, interceptor: (any RequestInterceptor)? = nil, to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        let point = ResumePoint.read(data)
        let request = DownloadRequest(
            id: nextRequestID(), convertible: ResumeConvertible(point: point), destination: destination, underlyingQueue: rootQueue,
            serializationQueue: serializationQueue, eventMonitor: eventMonitor, interceptor: interceptor, delegate: self, resumingFrom: point)
        if requestSetup == .eager { perform(request) }
        return request
    }
}
