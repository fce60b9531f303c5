public import Foundation
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// `onHTTPResponse`: a handler that sees each attempt's response head before any of its body, and
// may cancel the request there. URLSession holds the body back until a data delegate answers the
// head; swift-corelibs-foundation does not when the task is served by a URLProtocol, so the
// request holds what arrives meanwhile (body pieces, the task's completion) and releases it once
// the handler answered — or drops the body pieces when it answered `.cancel`.

extension Request {
    /// What an `onHTTPResponse` handler answers: go on with the response, or cancel the request.
    public enum ResponseDisposition: Sendable, Hashable {
        /// Receive the body.
        case allow
        /// Cancel the request (it finishes with `explicitlyCancelled`; no body piece is delivered).
        case cancel
    }

    /// An `onHTTPResponse` handler and its queue.
    struct HTTPResponseHandler: Sendable {
        let queue: any SchedulerQueue
        let body: @Sendable (HTTPURLResponse, @escaping @Sendable (ResponseDisposition) -> Void) -> Void
    }

    /// Whether an answer to the response head is awaited, and what arrived meanwhile, in order.
    struct ResponseGate {
        /// Something that arrived while the answer was awaited.
        struct Held {
            /// A body piece (dropped when the answer is `.cancel`), or the task's completion.
            let isBody: Bool
            let work: @Sendable () -> Void
        }

        /// What becomes of something that arrives for the attempt.
        enum Passage: Equatable {
            /// Run it now.
            case run
            /// Held until the answer comes.
            case held
            /// Dropped: a body piece after the answer was `.cancel` (a cancelled task may still
            /// deliver what was on its way).
            case dropped
        }

        var handler: HTTPResponseHandler?
        private(set) var awaitingAnswer = false
        /// The attempt's head was answered `.cancel`: its body goes nowhere.
        private(set) var refused = false
        private(set) var held: [Held] = []

        /// A response head arrived: with a handler, the answer is awaited from now on.
        mutating func headArrived() -> HTTPResponseHandler? {
            refused = false
            guard let handler else { return nil }
            awaitingAnswer = true
            return handler
        }

        /// Holds `work` while an answer is awaited, drops a body piece of a refused response.
        mutating func hold(isBody: Bool, _ work: @escaping @Sendable () -> Void) -> Passage {
            if isBody && refused { return .dropped }
            guard awaitingAnswer else { return .run }
            held.append(Held(isBody: isBody, work: work))
            return .held
        }

        /// The answer came: what was held, to run in order (none when it came already).
        mutating func answered(_ disposition: ResponseDisposition) -> [Held]? {
            guard awaitingAnswer else { return nil }
            awaitingAnswer = false
            refused = disposition == .cancel
            defer { held = [] }
            return held
        }
    }

    /// Sets the request's one `onHTTPResponse` handler (a later call replaces it, as in Alamofire).
    func setHTTPResponseHandler(queue: (any SchedulerQueue)?,
                                _ body: @escaping @Sendable (HTTPURLResponse, @escaping @Sendable (ResponseDisposition) -> Void) -> Void) {
        let queue = queue ?? delegate?.defaultResponseQueue ?? underlyingQueue
        mutableState.write { $0.responseGate.handler = HTTPResponseHandler(queue: queue, body: body) }
    }

    /// The attempt's response head arrived (on the rootQueue): without a handler URLSession is told
    /// to go on after a hop onto the rootQueue, as Alamofire always does; with one, the handler
    /// decides on its queue, and what arrives meanwhile waits for its answer.
    func answerResponseHead(_ response: HTTPURLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let handler = mutableState.write({ $0.responseGate.headArrived() }) else {
            underlyingQueue.async(named: "responseDisposition") { completionHandler(.allow) }
            return
        }
        handler.queue.async(named: "onHTTPResponse") {
            handler.body(response) { disposition in
                self.underlyingQueue.async(named: "responseDisposition") {
                    self.didAnswerResponse(disposition, completionHandler: completionHandler)
                }
            }
        }
    }

    private func didAnswerResponse(_ disposition: ResponseDisposition,
                                   completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let held = mutableState.write({ $0.responseGate.answered(disposition) }) else { return }   // answered twice
        if disposition == .cancel {
            // Recorded before the held completion (if the task already ended) can finish the request.
            mutableState.write { $0.error = $0.error ?? .explicitlyCancelled }
            cancel()
        }
        completionHandler(disposition == .cancel ? .cancel : .allow)
        for item in held where !(item.isBody && disposition == .cancel) { item.work() }
    }

    /// Runs `work` now, or once the awaited answer to the response head came (in arrival order).
    func afterResponseAnswered(isBody: Bool, _ work: @escaping @Sendable () -> Void) {
        if mutableState.write({ $0.responseGate.hold(isBody: isBody, work) }) == .run { work() }
    }
}

extension Request {
    /// Calls `handler` with each attempt's response head, before any of its body reaches the
    /// request, on `queue` (nil: the session's default response queue); it answers `.allow` or
    /// `.cancel` (then no piece of that body is delivered and the request finishes cancelled). One
    /// handler per request: a later call replaces it. (Alamofire has it on data and stream
    /// requests; here downloads have it too, since their bodies ride data tasks.)
    ///
    /// ```swift
    /// session.streamRequest("http://api.test/events").onHTTPResponse { response, decide in
    ///     decide(response.statusCode == 200 ? .allow : .cancel)
    /// }.responseStreamString { stream in print(stream.event) }
    /// ```
    @_disfavoredOverload
    @preconcurrency
    @discardableResult
    public func onHTTPResponse(
        on queue: (any SchedulerQueue)? = nil,
        perform handler: @escaping @Sendable (_ response: HTTPURLResponse, _ completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) -> Void
    ) -> Self {
        setHTTPResponseHandler(queue: queue, handler)
        return self
    }

    /// Calls `handler` with each attempt's response head, before any of its body (the request goes on).
    @preconcurrency
    @discardableResult
    public func onHTTPResponse(on queue: (any SchedulerQueue)? = nil, perform handler: @escaping @Sendable (HTTPURLResponse) -> Void) -> Self {
        setHTTPResponseHandler(queue: queue) { response, completionHandler in
            handler(response)
            completionHandler(.allow)
        }
        return self
    }

    /// `onHTTPResponse(on:perform:)` deciding, with the handler on the queue standing for a `DispatchQueue`.
    @_disfavoredOverload
    @preconcurrency
    @discardableResult
    public func onHTTPResponse(
        on queue: DispatchQueue,
        perform handler: @escaping @Sendable (_ response: HTTPURLResponse, _ completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) -> Void
    ) -> Self {
        onHTTPResponse(on: self.queue(standingFor: queue), perform: handler)
    }

    /// `onHTTPResponse(on:perform:)` with the handler on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func onHTTPResponse(on queue: DispatchQueue, perform handler: @escaping @Sendable (HTTPURLResponse) -> Void) -> Self {
        onHTTPResponse(on: self.queue(standingFor: queue), perform: handler)
    }
}

extension Request {
    /// Calls the async `handler` with each attempt's response head, before any of its body; its
    /// answer, `.allow` or `.cancel`, decides as the synchronous form's does. Alamofire runs it in
    /// a `Task`; so does this, and on a simulated session the answer is an external arrival the
    /// simulation waits for and takes in order (`SimulatedScheduler.expectExternal(_:patience:)`),
    /// so a seed still replays the same — as long as the handler does not itself wait for the
    /// simulation to move on (for example for another simulated request), which would stall it
    /// until the scheduler's external wait limit.
    ///
    /// ```swift
    /// session.request("http://api.test/report").onHTTPResponse { response async in
    ///     await auditLog.note(response.statusCode)
    ///     return response.statusCode == 200 ? .allow : .cancel
    /// }.responseData { print($0.result) }
    /// ```
    @_disfavoredOverload
    @discardableResult
    public func onHTTPResponse(perform handler: @escaping @Sendable (_ response: HTTPURLResponse) async -> ResponseDisposition) -> Self {
        setHTTPResponseHandler(queue: underlyingQueue) { [underlyingQueue] response, completionHandler in
            guard let simulated = underlyingQueue as? SimulatedQueue else {
                Task { completionHandler(await handler(response)) }
                return
            }
            // Registered in the simulated job, before the task starts: its number, and so the
            // order the answer is taken in, does not depend on thread timing. The task prefers
            // threads of its own: the simulation is often driven from a thread of the cooperative
            // pool, which blocks while it waits for the answer (on 2 cores, two such tests would
            // leave the task no thread to run on).
            let ticket = simulated.scheduler.expectExternal("onHTTPResponse (async) answer")
            Task(executorPreference: HandlerExecutor.shared) {
                let disposition = await handler(response)
                ticket.arrive(on: simulated, named: "onHTTPResponse (async) answer") { completionHandler(disposition) }
            }
        }
        return self
    }

    /// Calls the async `handler` with each attempt's response head, before any of its body (the
    /// request goes on), as the form whose handler answers with a ``ResponseDisposition`` does.
    @discardableResult
    public func onHTTPResponse(perform handler: @escaping @Sendable (_ response: HTTPURLResponse) async -> Void) -> Self {
        onHTTPResponse { (response: HTTPURLResponse) async -> ResponseDisposition in
            await handler(response)
            return .allow
        }
    }
}

/// Runs the tasks of async handlers a simulation waits for on threads outside the cooperative
/// pool (a concurrent dispatch queue, which gets a thread whenever it has work).
final class HandlerExecutor: TaskExecutor {
    static let shared = HandlerExecutor()
    private let queue = DispatchQueue(label: "org.tapedeck.client.async-handlers", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
