public import Foundation
import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A request whose response body is written to a file (Alamofire's `DownloadRequest`): made by
/// ``Session``'s `download` methods; a ``Destination`` says where the file goes.
///
/// The body travels in a data task and is written to a temporary file as it arrives (never held
/// whole in memory), then moved to the destination when the transfer ends — not in a URLSession download task: swift-corelibs-foundation
/// keeps a download task's file in a private property a URLProtocol cannot fill, so a simulated
/// or recorded download task would never get its file (docs/client.md, "Uploads and downloads").
/// What an app sees is the same: a file at the destination, its URL in the response. The request
/// keeps its own resume data (DownloadRequest+Resume.swift).
///
/// ```swift
/// let destination: DownloadRequest.Destination = { _, _ in
///     (documents.appendingPathComponent("report.pdf"), [.removePreviousFile, .createIntermediateDirectories])
/// }
/// session.download("https://example.com/report.pdf", to: destination).validate().responseURL { print($0.fileURL ?? "-") }
/// ```
public final class DownloadRequest: Request, @unchecked Sendable {
    // @unchecked Sendable: as Request; `downloadState` is a lock too.

    /// What to do at the destination before the file is moved there.
    public struct Options: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int

        /// An option set from its bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Create the destination's missing parent directories.
        public static let createIntermediateDirectories = Options(rawValue: 1 << 0)
        /// Remove a file already at the destination (else the move fails).
        public static let removePreviousFile = Options(rawValue: 1 << 1)
    }

    /// Where a finished download's file goes, given its temporary file and the response.
    public typealias Destination = @Sendable (_ temporaryURL: URL, _ response: HTTPURLResponse) -> (destinationURL: URL, options: Options)

    /// A validator of a download: sees the request, the response and the file.
    public typealias Validation = @Sendable (_ request: URLRequest?, _ response: HTTPURLResponse, _ fileURL: URL?) -> ValidationResult

    /// A destination in a system directory (documents by default), named by the response's
    /// suggested file name.
    public static func suggestedDownloadDestination(
        for directory: FileManager.SearchPathDirectory = .documentDirectory, in domain: FileManager.SearchPathDomainMask = .userDomainMask,
        options: Options = []
    ) -> Destination {
        { temporaryURL, response in
            let directoryURL = FileManager.default.urls(for: directory, in: domain).first
            let name = response.suggestedFilename ?? temporaryURL.lastPathComponent
            return (directoryURL?.appendingPathComponent(name) ?? temporaryURL, options)
        }
    }

    /// Without a destination: next to the temporary file, its name prefixed `Alamofire_`.
    public static let defaultDestination: Destination = { url, _ in
        (url.deletingLastPathComponent().appendingPathComponent("Alamofire_\(url.lastPathComponent)"), [])
    }

    struct DownloadState {
        /// The attempt's temporary file and its handle, once a byte arrived.
        var partial: (url: URL, handle: FileHandle)?
        /// The bytes in the partial file (those kept from before a resume included).
        var written: Int64 = 0
        /// The bytes the attempt found kept from before (a resumed transfer's offset).
        var kept: Int64 = 0
        /// Writing the temporary file failed (reported when the transfer ends).
        var writeError: (any Error)?
        var fileURL: URL?
        var validators: [Validation] = []
        /// Where a resumed download goes on from (DownloadRequest+Resume.swift).
        var resumePoint: ResumePoint?
        /// A cancel asked for resume data.
        var producesResumeData = false
        var resumeData: Data?
        /// `cancel(byProducingResumeData:)` handlers waiting for the resume data.
        var resumeDataHandlers: [@Sendable (Data?) -> Void] = []
    }

    /// Where the file goes.
    public let destination: Destination
    let downloadState = Protected(DownloadState())

    init(id: UUID, convertible: any URLRequestConvertible, destination: Destination?, underlyingQueue: any SchedulerQueue,
         serializationQueue: any SchedulerQueue, eventMonitor: CompositeEventMonitor, interceptor: (any RequestInterceptor)?,
         delegate: Session, resumingFrom point: ResumePoint? = nil) {
        downloadState.write { $0.resumePoint = point }
        self.destination = destination ?? Self.defaultDestination
        super.init(id: id, convertible: convertible, underlyingQueue: underlyingQueue, serializationQueue: serializationQueue,
                   eventMonitor: eventMonitor, interceptor: interceptor, delegate: delegate)
    }

    /// The file the last attempt's body was moved to (nil until it finished, or when it failed).
    public var fileURL: URL? { downloadState.read { $0.fileURL } }

    /// What `download(resumingWith:)` continues from: set when a cancel that asked for it
    /// (`cancel(producingResumeData: true)`) or a failure of a resumable transfer (its response
    /// had an `ETag` or `Last-Modified`) ended an attempt with bytes already written; nil
    /// otherwise. DownloadRequest+Resume.swift says what it holds.
    public var resumeData: Data? { downloadState.read { $0.resumeData } }

    override func task(for request: URLRequest, using session: URLSession) -> URLSessionTask {
        session.dataTask(with: resumingRequest(request))
    }

    override func reset() {
        super.reset()
        if !keepPartialForRetry() { discardPartial() }
        downloadState.write { state in
            state.fileURL = nil
            state.writeError = nil
            state.resumeData = nil
        }
    }

    /// Appends the bytes to the attempt's temporary file (made at the first bytes).
    func didReceive(data: Data) {
        // Bytes kept from before a resume count in the progress too, from the first piece on.
        let (fresh, kept) = downloadState.write { state -> (Int64, Int64) in
            guard state.writeError == nil else { return (0, state.kept) }
            var fresh: Int64 = 0
            do {
                if state.partial == nil {
                    let fileManager = delegate?.delegate.fileManager ?? .default
                    if let resumed = try Self.openResumed(state.resumePoint, response: response, using: fileManager) {
                        state.partial = (resumed.url, resumed.handle)
                        state.written = resumed.kept
                        state.kept = resumed.kept
                        fresh = resumed.kept
                    } else {
                        let url = temporaryFile(using: fileManager)
                        try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                        guard fileManager.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
                        state.partial = (url, try FileHandle(forWritingTo: url))
                        state.written = 0
                        state.kept = 0
                    }
                }
                try state.partial?.handle.write(contentsOf: data)
                state.written += Int64(data.count)
            } catch {
                state.writeError = error
            }
            return (fresh, state.kept)
        }
        let expected = response?.expectedContentLength ?? -1
        updateDownloadProgress(bytesReceived: fresh + Int64(data.count), totalBytesExpected: expected >= 0 ? expected + kept : -1)
    }

    /// Closes and deletes the attempt's temporary file, if any (a retry, a failure, the end).
    func discardPartial() {
        let partial = downloadState.write { state -> (url: URL, handle: FileHandle)? in
            defer { state.partial = nil }
            return state.partial
        }
        guard let partial else { return }
        try? partial.handle.close()
        try? (delegate?.delegate.fileManager ?? .default).removeItem(at: partial.url)
    }

    /// A download that ended without its transfer ending (its session released) leaves no file.
    override func releaseResources() {
        discardPartial()
        deliverResumeData()
    }

    /// The transfer ended: after a failure its partial file is deleted; else the destination is
    /// asked where the file goes, the temporary file (empty for an empty body) is moved there, and
    /// the download is said to be finished (with the file's URL, or the failure to write or move
    /// it, which becomes the attempt's error) — the order and events of Alamofire's download tasks.
    override func transferDidEnd(task: URLSessionTask) {
        guard error == nil, let response else {
            if !keepPartialForResume() { discardPartial() }
            deliverResumeData()
            return
        }
        let fileManager = delegate?.delegate.fileManager ?? .default
        let (partial, writeError) = downloadState.write { state in
            defer { state.partial = nil }
            return (state.partial, state.writeError)
        }
        try? partial?.handle.close()
        let temporary = partial?.url ?? temporaryFile(using: fileManager)
        let (destinationURL, options) = destination(temporary, response)
        eventMonitor.request(self, didCreateDestinationURL: destinationURL)
        do {
            if let writeError { throw writeError }
            if partial == nil {
                try fileManager.createDirectory(at: temporary.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data().write(to: temporary)
            }
            if options.contains(.removePreviousFile), fileManager.fileExists(atPath: destinationURL.path) {
                try fileManager.removeItem(at: destinationURL)
            }
            if options.contains(.createIntermediateDirectories) {
                try fileManager.createDirectory(at: destinationURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            try fileManager.moveItem(at: temporary, to: destinationURL)
            downloadState.write { $0.fileURL = destinationURL }
            eventMonitor.request(self, didFinishDownloadingUsing: task, with: .success(destinationURL))
        } catch {
            try? fileManager.removeItem(at: temporary)
            let failure = ClientError.downloadedFileMoveFailed(error: error, source: temporary, destination: destinationURL)
            self.error = failure
            eventMonitor.request(self, didFinishDownloadingUsing: task, with: .failure(failure))
        }
    }

    /// Where the attempt's body is written first: a new name (as CFNetwork's, random, so that
    /// sessions running side by side never collide) in a directory of this process.
    private func temporaryFile(using fileManager: FileManager) -> URL {
        Self.temporaryDirectory(using: fileManager).appendingPathComponent("CFNetworkDownload_\(UUID().uuidString).tmp")
    }

    /// The directory downloads are written to first (the default destination leaves them there).
    static func temporaryDirectory(using fileManager: FileManager) -> URL {
        fileManager.temporaryDirectory
            .appendingPathComponent("tapedeck.downloads-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
    }

    // MARK: validation

    func appendValidator(_ validation: @escaping Validation) {
        downloadState.write { $0.validators.append(validation) }
    }

    /// Runs each validator in order while no error is recorded and a response exists.
    override func runValidators() {
        let fileURL = self.fileURL
        runValidators(downloadState.read { $0.validators }, validate: { $0($1, $2, fileURL) }) { request, response, result in
            eventMonitor.request(self, didValidateRequest: request, response: response, fileURL: fileURL, withResult: result)
        }
    }

    /// Adds a custom validator (run after the file was moved, in the order added).
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

    /// Fails unless the response's MIME type matches one of `acceptableContentTypes`. Skipped for
    /// an empty file.
    @preconcurrency
    @discardableResult
    public func validate<S: Sequence & Sendable>(contentType acceptableContentTypes: @escaping @Sendable @autoclosure () -> S) -> Self
    where S.Iterator.Element == String {
        validate { _, response, fileURL in
            guard let fileURL, Self.fileSize(fileURL) > 0 else { return .success(()) }
            return ContentTypeValidation.validate(acceptable: Array(acceptableContentTypes()), response: response)
        }
    }

    /// A 2xx status, and a content type the request's `Accept` header allows.
    @discardableResult
    public func validate() -> Self {
        validate(statusCode: 200..<300)
        return validate { [weak self] _, response, fileURL in
            guard let fileURL, Self.fileSize(fileURL) > 0 else { return .success(()) }
            return ContentTypeValidation.validate(acceptingAsIn: self?.request, response: response)
        }
    }

    private static func fileSize(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
