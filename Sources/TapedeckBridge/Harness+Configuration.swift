import Foundation
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#else
public import Foundation
#endif

// Clients that build their own URLSession (real Alamofire, Moya, hand-written code) from a
// configuration the harness hands out. Their delegate queue is theirs, so their callbacks run on
// their threads; the simulation takes their requests in only when it is idle, which keeps
// sequential requests reproducible (see `Harness+Serving.swift` and docs/bridge.md).

extension Harness {
    /// A configuration whose requests are answered by this harness's network (stubs, cassettes,
    /// faults, recording), for a client that builds its own URLSession: real Alamofire's
    /// `Session(configuration:)`, Moya, or your own `URLSession(configuration:delegate:delegateQueue:)`.
    ///
    /// ```swift
    /// let session = URLSession(configuration: harness.configuration(), delegate: myDelegate, delegateQueue: myQueue)
    /// try harness.serve {
    ///     try myClient.fetchEverything(with: session)   // callbacks run on myQueue
    /// }
    /// ```
    ///
    /// `base` is copied; the harness's protocol goes first in its `protocolClasses` and its URL
    /// cache is switched off (a cache makes corelibs create protocols asynchronously). The client's
    /// callbacks arrive on its own delegate queue, on its own threads; someone must run the
    /// simulation meanwhile: ``serve(pacing:timeout:_:)``, ``serving(pacing:timeout:isolation:_:)``,
    /// ``startServing(pacing:)`` or ``waitUntilIdle(timeout:)``. Redirects ask the delegate of the
    /// URLSession that owns the task. What is reproducible with such a client: ``determinism``.
    public func configuration(base: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        let copy = base.copy() as! URLSessionConfiguration
        let link = SessionLink(harness: self, delegate: nil, clientQueue: nil, configuration: copy)
        state.withLock { $0.sessions.append(link) }
        return copy
    }

    /// Called inside `task.resume()` on the client's thread, for a session built from a handed-out
    /// configuration. The request waits in the foreign inbox until the simulation is idle.
    func foreignExchangeCreated(_ urlProtocol: BridgeProtocol, session: SessionLink) -> ExchangeLink {
        let (link, admitted) = state.withLock { state -> (ExchangeLink, Bool) in
            let link = ExchangeLink(number: state.nextNumber, session: session, urlProtocol: urlProtocol)
            state.nextNumber += 1
            if state.closed {
                link.rejected = true
                state.lateRequests.append(link.summary)
                return (link, false)
            }
            let inFlight = state.active.values
                .filter { $0.session.isConfiguration && !$0.completionHanded }
                .map(\.number).sorted()
            if !inFlight.isEmpty {
                state.overlaps.append("#\(link.number) \(link.summary) started while "
                    + inFlight.map { "#\($0)" }.joined(separator: ", ") + (inFlight.count == 1 ? " was" : " were") + " in flight")
            }
            state.active[link.number] = link
            state.foreignRequests += 1
            state.foreignInbox.append(link)
            return (link, true)
        }
        if admitted {
            servingDriver?.wake()
            // A run waiting only for live calls (recording) admits it at once (see startServing).
            scheduler.wakeExternalWait()
            if servingDriver == nil { noteIfUnserved(link, after: state.withLock { $0.unservedNoteDelay }) }
        }
        return link
    }

    /// What was said of a client's request left waiting with nobody serving, if anything.
    var unservedNote: String? { state.withLock { $0.unservedNote } }

    /// After `delay` of real time, says on standard error (once per harness) that `link` still
    /// waits for a simulation nobody runs: an `await` outside `serving { … }` otherwise waits for
    /// ever without a word. A diagnostic off the simulated path; it changes nothing.
    func noteIfUnserved(_ link: ExchangeLink, after delay: Duration) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.timeInterval) { [weak self] in
            guard let self, servingDriver == nil else { return }
            let note = state.withLock { state -> String? in
                guard state.unservedNote == nil, !state.closed, state.foreignInbox.contains(where: { $0 === link }) else { return nil }
                // The URL without its query (a token in it stays out of logs).
                let shown = link.summary.split(separator: "?", maxSplits: 1).first.map(String.init) ?? link.summary
                state.unservedNote = "tapedeck: \(shown)\(shown == link.summary ? "" : "?…") has waited \(delay) for the simulation to answer it: a client on its own "
                    + "threads is answered only while tape.serving { … } (or harness.serve { … }) runs — make the call inside it"
                return state.unservedNote
            }
            if let note { try? FileHandle.standardError.write(contentsOf: Data((note + "\n").utf8)) }
        }
    }

    /// Takes in the requests foreign clients started since the last look: expects each one's
    /// `startLoading`, in the order they were resumed. Call on the owner thread while the
    /// simulation is idle (between runs), so that where a request enters the order does not depend
    /// on when its thread got there. Returns whether there was any.
    @discardableResult
    func admitForeignRequests() -> Bool {
        let links = state.withLock { state -> [ExchangeLink] in
            defer { state.foreignInbox.removeAll() }
            return state.foreignInbox
        }
        guard mode == .lockstep else { return !links.isEmpty }   // arrivals went straight in
        for link in links {
            let expectation = scheduler.expectExternal("startLoading #\(link.number) \(link.summary)")
            // One look under the lock: the start may be here already (parked), or the client may
            // have cancelled before we looked (its stop then stands in for the start).
            enum Next { case wait, take(@Sendable () -> Void), stop }
            let next = state.withLock { _ -> Next in
                if link.stoppedBeforeAdmission { return .stop }
                if let work = link.parked[.start]?.popFirst() { return .take(work) }
                link.expectations[.start, default: []].append(expectation)
                return .wait
            }
            switch next {
            case .wait: break
            case let .take(work): expectation.arrive(on: network.queue, named: "bridge.start", work)
            case .stop: deliverStop(of: link, task: link.urlProtocol?.task, to: expectation)
            }
        }
        return !links.isEmpty
    }

    /// From a URLSession thread: a foreign client cancelled or suspended a task (noticed by the
    /// simulation at its next quiescent point: wake it).
    func foreignTaskStopped(_ link: ExchangeLink) {
        state.withLock { $0.foreignStops.append("#\(link.number) \(link.summary)") }
        servingDriver?.wake()
    }

    /// Marks a foreign task's completion as handed over (before the call that hands it over).
    func markCompletionHanded(_ link: ExchangeLink) {
        guard link.foreign != nil else { return }
        state.withLock { _ in link.completionHanded = true }
    }

    /// Asks the delegate of the URLSession that owns a foreign task whether to follow a redirect,
    /// on that session's delegate queue; its answer, from the client's thread, is an expected
    /// arrival, so the simulation waits for it (bounded) and takes it in order.
    func askForeignRedirect(
        _ link: ExchangeLink, foreign: ForeignTask, task: URLSessionTask, response: HTTPURLResponse,
        proposed: RequestSnapshot, decide: @escaping @Sendable (RedirectDecision) -> Void
    ) {
        guard let session = foreign.session, let delegate = foreign.delegate else {
            // Nobody to ask: URLSession follows, with the cookies stored for the new URL.
            decide(.follow(withStoredCookies(proposed, configuration: link.session.configuration)))
            return
        }
        let expectation = scheduler.expectExternal(
            "redirect decision #\(link.number) \(link.summary) → \(proposed.url.absoluteString)")
        link.redirectExpectation = expectation
        let context = UncheckedSendable((delegate: delegate, session: session, task: task, response: response))
        let once = OnceFlag()
        let queue = network.queue
        session.delegateQueue.addOperation {
            let (delegate, session, task, response) = context.value
            delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: proposed.urlRequest()) { next in
                guard once.claim() else { return }   // a second answer is ignored
                let decision = next.map { RedirectDecision.follow(RequestSnapshot($0)) } ?? .stop
                expectation.arrive(on: queue, named: "bridge.redirect-decision") { decide(decision) }
            }
        }
    }

    /// Runs `work` on a foreign task's own delegate queue (metrics, a duplicate completion): after
    /// the blocks corelibs enqueued there so far, as those come from this same thread.
    func deliverToForeignClient(_ foreign: ForeignTask, _ work: @escaping @Sendable () -> Void) {
        foreign.session?.delegateQueue.addOperation(work)
    }
}

/// A task of a URLSession the client built itself from a handed-out configuration: the session
/// that owns it and the delegate URLSession would ask (the task's own, else the session's).
struct ForeignTask: @unchecked Sendable {
    // @unchecked Sendable: read on the simulator's thread only; the session and delegate are handed
    // to the client's delegate queue, which uses them as URLSession would.
    /// nil when corelibs does not let us find it (redirects are then followed, as with no delegate).
    let session: URLSession?
    let delegate: (any URLSessionTaskDelegate)?
    /// The task's completion runs inline in the protocol-client call (`data(for:)` and the other
    /// async methods): it takes the body in one piece.
    let completesInline: Bool
    /// The task was made with a completion handler (`dataTask(with:completionHandler:)`), which
    /// corelibs calls instead of the delegate, with the last chunk a custom protocol handed it.
    let hasCompletionHandler: Bool

    init(task: URLSessionTask) {
        session = TaskIntrospection.owningSession(of: task)
        delegate = task.delegate
        completesInline = TaskIntrospection.completesInline(task)
        // Not known (another corelibs layout): the body goes whole, which every task reads right.
        hasCompletionHandler = session.flatMap { TaskIntrospection.hasCompletionHandler(task, in: $0) } ?? true
    }

    /// Whether the client receives body chunks as they come: only a data delegate does, for a
    /// data task without a completion handler (one with a handler — also in a session whose
    /// delegate is a data delegate — keeps only the last chunk a custom protocol hands corelibs;
    /// a download task never: `deliverHead` keeps its body whole before asking this).
    var takesChunks: Bool {
        delegate is any URLSessionDataDelegate && !completesInline && !hasCompletionHandler
    }
}

/// What corelibs keeps in a task but does not publish, read by reflection (read-only; nil or
/// false when the layout is not what we expect, which makes us fall back to the safe choice).
/// Reflection reads the stored properties in declaration order up to the one asked for: in
/// corelibs 6.3 those are plain values and references written before the task was resumed
/// (byte-count hints, `earliestBeginDate`, `suspendCount`, `session`, the task delegate), never
/// its protocol storage, which corelibs changes under its own lock.
enum TaskIntrospection {
    /// The URLSession that owns `task` (corelibs: the stored property `session`, set when the task
    /// is made). The delegate methods take it as their first argument.
    static func owningSession(of task: URLSessionTask) -> URLSession? {
        #if canImport(FoundationNetworking)
        return storedProperty("session", of: task) as? URLSession
        #else
        return nil
        #endif
    }

    /// Whether corelibs calls the task's completion handler inline (its async methods do).
    static func completesInline(_ task: URLSessionTask) -> Bool {
        #if canImport(FoundationNetworking)
        return storedProperty("_callCompletionHandlerInline", of: task) as? Bool ?? false
        #else
        return false
        #endif
    }

    /// Whether corelibs calls a completion handler for `task` rather than its delegate: the
    /// behaviour `session` registered for it (its stored `taskRegistry`, read on the session's
    /// own `workQueue`, where corelibs changes the registry, so no other task's registration
    /// races the read — directly when already on it, else by `sync`: corelibs never waits on the
    /// serving thread from that queue). Nil when the layout is not what we expect: the caller
    /// then delivers the body whole, which every kind of task reads right.
    static func hasCompletionHandler(_ task: URLSessionTask, in session: URLSession) -> Bool? {
        #if canImport(FoundationNetworking)
        guard let queue = storedProperty("workQueue", of: session) as? DispatchQueue,
              let registry = storedProperty("taskRegistry", of: session) as AnyObject? else { return nil }
        let identifier = task.taskIdentifier
        func read() -> Bool? {
            guard let behaviours = storedProperty("behaviours", of: registry) else { return nil }
            for entry in Mirror(reflecting: behaviours).children {
                let pair = Mirror(reflecting: entry.value).children.map(\.value)
                guard pair.count == 2, pair[0] as? Int == identifier else { continue }
                // `.dataCompletionHandler(…)`, `.downloadCompletionHandler(…)`: a case with a
                // completion handler; `.callDelegate` and the like have none.
                return Mirror(reflecting: pair[1]).children.contains { $0.label?.hasSuffix("CompletionHandler") == true }
            }
            return nil
        }
        // Marked so that a call already on it reads at once (`sync` there would deadlock).
        let mark = ObjectIdentifier(queue)
        queue.setSpecific(key: workQueueKey, value: mark)
        if DispatchQueue.getSpecific(key: workQueueKey) == mark { return read() }
        return queue.sync(execute: read)
        #else
        return false
        #endif
    }

    /// Marks a session's work queue (see ``hasCompletionHandler(_:in:)``).
    private static let workQueueKey = DispatchSpecificKey<ObjectIdentifier>()

    private static func storedProperty(_ name: String, of object: AnyObject) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == name }) {
                return unwrap(child.value)
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The value inside an optional (an implicitly unwrapped stored property reflects as one).
    private static func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrap($0.value) } ?? nil
    }
}
