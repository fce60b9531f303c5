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

    /// Whether `file` is a partial file of a Tapedeck download (in a `tapedeck.downloads-<pid>`
    /// directory of the temporary directory) holding at least `bytes`: resume data names no other.
    func fileIsUsable(using fileManager: FileManager) -> Bool {
        let url = URL(fileURLWithPath: file).standardizedFileURL
        let directory = url.deletingLastPathComponent()
        guard directory.lastPathComponent.hasPrefix("tapedeck.downloads-"),
              directory.deletingLastPathComponent().standardizedFileURL.path == fileManager.temporaryDirectory.standardizedFileURL.path,
              let size = (try? fileManager.attributesOfItem(atPath: url.path)[.size]) as? NSNumber else { return false }
        return size.int64Value >= bytes
    }

    /// The point as resume data (its fields in a stable order: the same bytes for the same point).
    func encoded() -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try? encoder.encode(self)
    }

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
        if shouldProduceResumeData { askForResumeData() }
        return cancel()
    }

    /// Cancels the download keeping what arrived, and calls `completionHandler` with the resume
    /// data (nil when nothing had arrived) once the transfer ended, on the rootQueue.
    @preconcurrency
    @discardableResult
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (_ data: Data?) -> Void) -> Self {
        // No transfer under way (none yet, or it ended and the retrier decides): nothing will end
        // later to hand the data over, so it goes now.
        let transferEnded = mutableState.read { $0.taskStatus != .active }
        downloadState.write { $0.resumeDataHandlers.append(completionHandler) }
        askForResumeData()
        cancel()
        if transferEnded { deliverResumeData() }
        return self
    }

    /// A cancel will ask for resume data: until the transfer ends with newer bytes, a resumed
    /// download's is what it went on from (a cancel before its task, or before a new byte).
    private func askForResumeData() {
        let fileManager = delegate?.delegate.fileManager ?? .default
        downloadState.write { state in
            state.producesResumeData = true
            guard state.partial == nil, let point = state.resumePoint, point.fileIsUsable(using: fileManager) else { return }
            state.resumeData = point.encoded()
        }
    }

    /// The attempt's URLRequest, asking only for the rest when the download resumes — and when
    /// its partial file is still there (else the whole body comes again, into a new file).
    func resumingRequest(_ request: URLRequest) -> URLRequest {
        let fileManager = delegate?.delegate.fileManager ?? .default
        let point = downloadState.write { state -> ResumePoint? in
            guard let point = state.resumePoint else { return nil }
            // A kept file that is gone, shorter than recorded, or not a download's: the whole body again.
            guard point.fileIsUsable(using: fileManager) else {
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
    /// emptied for a whole body (the server did not resume); nil without one. A 206 that does not
    /// start where the kept bytes end, or that comes when the kept bytes are gone, is an error:
    /// its bytes cannot make the file.
    static func openResumed(_ point: ResumePoint?, response: HTTPURLResponse?, using fileManager: FileManager) throws -> (url: URL, handle: FileHandle, kept: Int64)? {
        let status = response?.statusCode
        guard let point, fileManager.fileExists(atPath: point.file) else {
            if status == 206 { throw ResumeDataError(reason: "the server answered a part (206) but no kept bytes are there to go before it") }
            return nil
        }
        if status == 206 {
            let range = response?.value(forHTTPHeaderField: "Content-Range") ?? ""
            let start = range.split(separator: " ").last?.split(separator: "-").first.flatMap { Int64($0) }
            guard start == point.bytes else {
                throw ResumeDataError(reason: "the server resumed at '\(range)', not at byte \(point.bytes)")
            }
        }
        let url = URL(fileURLWithPath: point.file)
        let handle = try FileHandle(forWritingTo: url)
        let kept = status == 206 ? point.bytes : 0
        try handle.truncate(atOffset: UInt64(kept))
        try handle.seekToEnd()
        return (url, handle, kept)
    }

    /// A retry of a download with a resume point (set when its last attempt ended, by
    /// ``keepPartialForResume()``) goes on from there: its file is kept.
    func keepPartialForRetry() -> Bool {
        downloadState.read { $0.resumePoint != nil }
    }

    /// An attempt that ended without its body keeps the partial file and records where to go on
    /// from, when the transfer can resume (a GET whose response had an `ETag` or `Last-Modified`)
    /// and it failed, or was cancelled by a cancel that asked for resume data; a retry goes on
    /// from there too. False when there is nothing to keep.
    func keepPartialForResume() -> Bool {
        let urlRequest = request, response = response, cancelled = isCancelled
        let fileManager = delegate?.delegate.fileManager ?? .default
        return downloadState.write { state in
            guard !cancelled || state.producesResumeData else { return false }
            guard let partial = state.partial, state.written > 0 else {
                // No new byte this attempt: a resumed download still has what it kept.
                guard let point = state.resumePoint, point.fileIsUsable(using: fileManager) else { return false }
                state.resumeData = point.encoded()
                return true
            }
            guard let url = state.resumePoint?.url ?? urlRequest?.url else { return false }
            let status = response?.statusCode ?? 0
            // Validators of this answer; a 206 continues the point's.
            let strong: (String?) -> String? = { tag in tag.flatMap { $0.hasPrefix("W/") ? nil : $0 } }   // If-Range takes no weak tag
            var etag = strong(response?.value(forHTTPHeaderField: "ETag"))
            var lastModified = response?.value(forHTTPHeaderField: "Last-Modified")
            if status == 206 {
                etag = etag ?? state.resumePoint?.etag
                lastModified = lastModified ?? state.resumePoint?.lastModified
            }
            let method = urlRequest?.httpMethod ?? "GET"
            let coding = response?.value(forHTTPHeaderField: "Content-Encoding")?.lowercased()
            // The app's own Range (a piece of a file) is not resumed: its bytes start elsewhere.
            let ownRange = state.resumePoint == nil && urlRequest?.value(forHTTPHeaderField: "Range") != nil
            let resumable = method == "GET" && (etag != nil || lastModified != nil) && !ownRange
                && (status == 200 || status == 206 && state.resumePoint != nil)
                && (coding == nil || coding == "identity")   // counted bytes are decoded ones: a Range counts encoded
                && response?.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased() != "none"
            // As URLSession: no resume data for a transfer that cannot be resumed safely.
            guard resumable else { return false }
            try? partial.handle.close()
            var headers = urlRequest?.allHTTPHeaderFields ?? [:]
            for name in headers.keys where ["range", "if-range"].contains(name.lowercased()) { headers[name] = nil }
            let point = ResumePoint(url: url, file: partial.url.path, bytes: state.written, etag: etag, lastModified: lastModified,
                                    method: method, headers: headers)
            state.resumeData = point.encoded()
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
        resumingWith data: Data, interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        let point = ResumePoint.read(data)
        let request = DownloadRequest(
            id: nextRequestID(), convertible: ResumeConvertible(point: point), destination: destination, underlyingQueue: rootQueue,
            serializationQueue: serializationQueue, eventMonitor: eventMonitor, interceptor: interceptor, delegate: self, resumingFrom: point)
        if let shouldAutomaticallyResume { request.shouldAutomaticallyResume(shouldAutomaticallyResume) }
        if requestSetup == .eager { perform(request) }
        return request
    }
}
