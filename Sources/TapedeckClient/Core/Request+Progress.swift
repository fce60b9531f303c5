public import Dispatch
public import Foundation
public import TapedeckScheduling

// Download and upload progress, as Alamofire's `downloadProgress` and `uploadProgress`: how much of
// the response body arrived, how much of the request body went.
// The `Progress` object is made the first time it is read or a handler needs it, so requests
// nobody watches do not pay for one (corelibs' `Progress` takes a lock and looks for a parent).

extension Request {
    /// Called with a request's `Progress` each time it moves (Alamofire's `Request.ProgressHandler`).
    public typealias ProgressHandler = @Sendable (_ progress: Progress) -> Void

    /// Byte counts of one direction of an attempt, and who watches them.
    struct TransferCount {
        var completed: Int64 = 0
        var total: Int64 = 0
        var progress: Progress?
        var handler: (handler: ProgressHandler, queue: any SchedulerQueue)?

        /// The Progress object, made now with the counts so far when there was none.
        mutating func object() -> Progress {
            if let progress { return progress }
            let made = Progress(totalUnitCount: total)
            made.completedUnitCount = completed
            progress = made
            return made
        }

        /// The counts set (the Progress object, if made, follows them); the handler, its queue and
        /// the Progress to call it with, when one watches.
        mutating func update(completed: Int64, total: Int64) -> (handler: ProgressHandler, queue: any SchedulerQueue, progress: Progress)? {
            self.completed = completed
            self.total = total
            if let progress { Self.set(progress, completed: completed, total: total) }
            guard let handler else { return nil }
            return (handler.handler, handler.queue, object())
        }

        /// Back to zero for a new attempt.
        mutating func reset() {
            completed = 0
            total = 0
            if let progress { Self.set(progress, completed: 0, total: 0) }
        }

        /// Sets a Progress's counts in a way corelibs cannot trap on: it traps when a total that
        /// was not 0 becomes 0 (whatever the completed count; Alamofire's reset crashes there on
        /// Linux), so a total going back to 0 is set to -1 ("unknown") instead, and a completed
        /// count going down is lowered before the total changes.
        static func set(_ progress: Progress, completed: Int64, total: Int64) {
            if completed < progress.completedUnitCount { progress.completedUnitCount = completed }
            let newTotal = total == 0 && progress.totalUnitCount != 0 ? -1 : total
            if newTotal != progress.totalUnitCount { progress.totalUnitCount = newTotal }
            if completed != progress.completedUnitCount { progress.completedUnitCount = completed }
        }
    }

    /// How much of the response body arrived in the current attempt: `completedUnitCount` bytes
    /// (decoded, as the client receives them) of `totalUnitCount` (the response's
    /// `Content-Length`, -1 when it has none).
    public var downloadProgress: Progress {
        mutableState.write { $0.download.object() }
    }

    /// Calls `closure` on `queue` (the session's default response queue when nil) each time body
    /// bytes arrive.
    ///
    /// ```swift
    /// session.request(url).downloadProgress { print(Int($0.fractionCompleted * 100), "%") }.responseData { _ in }
    /// ```
    @preconcurrency
    @discardableResult
    public func downloadProgress(queue: (any SchedulerQueue)? = nil, closure: @escaping ProgressHandler) -> Self {
        watch(\.download, queue: queue, closure: closure)
    }

    /// `downloadProgress(queue:closure:)` on the queue standing for a `DispatchQueue` (Alamofire's
    /// `downloadProgress(queue: .main) { … }`).
    @preconcurrency
    @discardableResult
    public func downloadProgress(queue: DispatchQueue, closure: @escaping ProgressHandler) -> Self {
        downloadProgress(queue: self.queue(standingFor: queue), closure: closure)
    }

    /// Adds `bytesReceived` to the attempt's count, then tells the handler.
    func updateDownloadProgress(bytesReceived: Int64, totalBytesExpected: Int64) {
        tell(mutableState.write { $0.download.update(completed: $0.download.completed + bytesReceived, total: totalBytesExpected) },
             named: "downloadProgress")
    }

    /// How much of the request body was sent in the current attempt: `completedUnitCount` bytes
    /// of `totalUnitCount`. On every request with a body, as in Alamofire (not only uploads): a
    /// JSON or form POST made with `request(_:)` reports it too.
    public var uploadProgress: Progress {
        mutableState.write { $0.upload.object() }
    }

    /// Calls `closure` on `queue` (the session's default response queue when nil) each time more
    /// of the body was sent. URLSession reports sending for its own transports; a simulated or
    /// recorded exchange reports the whole body as sent when the response begins.
    ///
    /// ```swift
    /// session.request(url, method: .post, parameters: form)
    ///     .uploadProgress { print("sent", $0.completedUnitCount) }
    ///     .responseData { _ in }
    /// ```
    @preconcurrency
    @discardableResult
    public func uploadProgress(queue: (any SchedulerQueue)? = nil, closure: @escaping ProgressHandler) -> Self {
        watch(\.upload, queue: queue, closure: closure)
    }

    /// `uploadProgress(queue:closure:)` on the queue standing for a `DispatchQueue` (Alamofire's
    /// `uploadProgress(queue: .main) { … }`).
    @preconcurrency
    @discardableResult
    public func uploadProgress(queue: DispatchQueue, closure: @escaping ProgressHandler) -> Self {
        uploadProgress(queue: self.queue(standingFor: queue), closure: closure)
    }

    /// Records bytes sent (URLSession's `didSendBodyData`), then tells the handler (not when
    /// nothing changed).
    func updateUploadProgress(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        tell(mutableState.write { state in
            guard totalBytesSent != state.upload.completed || totalBytesExpectedToSend != state.upload.total else { return nil }
            return state.upload.update(completed: totalBytesSent, total: totalBytesExpectedToSend)
        }, named: "uploadProgress")
    }

    /// Sets the handler of one direction's count, on `queue` (the session's default response
    /// queue when nil).
    private func watch(_ count: WritableKeyPath<MutableState, TransferCount>, queue: (any SchedulerQueue)?, closure: @escaping ProgressHandler) -> Self {
        let queue = queue ?? delegate?.defaultResponseQueue ?? underlyingQueue
        mutableState.write { $0[keyPath: count].handler = (closure, queue) }
        return self
    }

    /// Calls a watching handler on its queue with the Progress (made under the lock, handed over).
    private func tell(_ watched: (handler: ProgressHandler, queue: any SchedulerQueue, progress: Progress)?, named name: String) {
        guard let (handler, queue, progress) = watched else { return }
        let boxed = UncheckedSendable(progress)
        queue.async(named: name) { handler(boxed.value) }
    }
}
