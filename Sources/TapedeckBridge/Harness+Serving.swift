import Foundation
import TapedeckNetwork
public import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Serving clients on their own threads: a driver thread runs the simulation whenever such a client
// gives it work, so nobody writes a polling loop. Where the driver waits for the client (its
// requests, its redirect answers) it uses real time, bounded; that is outside the simulated path.

extension Harness {
    /// Starts a thread that runs the simulation whenever a client using a handed-out
    /// ``configuration(base:)`` starts, cancels or answers something. Stop it with
    /// ``stopServing(timeout:)``; ``serve(pacing:timeout:_:)`` does both around a body.
    ///
    /// ```swift
    /// harness.startServing()
    /// client.start()                      // on its own queues
    /// try harness.waitUntilIdle()         // every request it started was answered
    /// try harness.stopServing()
    /// ```
    ///
    /// While serving, do not drive the scheduler yourself (`runUntilIdle`, `Tape.perform`).
    public func startServing(pacing: Pacing = .instant) {
        let driver = ServingDriver(harness: self, pacing: pacing)
        serving.withLock { current in
            precondition(current == nil, "tapedeck: this harness is already serving")
            current = driver
        }
        if case .wallClock = pacing { state.withLock { $0.pacedOnWallClock = true } }
        // While a run waits only for live calls (a recording's), requests the client starts
        // meanwhile are admitted then, not after: their live calls overlap, as the client's
        // requests do. A run with no live call never asks.
        scheduler.whileAwaitingLiveCalls { [weak self] in self?.admitForeignRequests() ?? false }
        driver.start()
    }

    /// Waits until every request the harness knows of is answered (``waitUntilIdle(timeout:)``),
    /// then stops the serving thread. Throws what went wrong while serving (``ServeError``).
    public func stopServing(timeout: Duration = .seconds(10)) throws {
        defer {
            let driver = serving.withLock { current -> ServingDriver? in
                defer { current = nil }
                return current
            }
            driver?.stop()
            scheduler.whileAwaitingLiveCalls(nil)
        }
        try waitUntilIdle(timeout: timeout)
    }

    /// Runs `body` (which starts requests from a client on its own threads, and usually waits for
    /// its results) while the harness serves, then waits until every request is answered.
    ///
    /// ```swift
    /// let user = try harness.serve { try myClient.loadUser() }   // blocks on the client's own queue
    /// ```
    ///
    /// Throws ``ServeError`` for a request never answered (naming its URL) or still running after
    /// `timeout` of real time, or the error `body` threw.
    public func serve<R>(pacing: Pacing = .instant, timeout: Duration = .seconds(10), _ body: () throws -> R) throws -> R {
        startServing(pacing: pacing)
        let result: R
        do {
            result = try body()
        } catch {
            try? stopServing(timeout: timeout)
            throw error
        }
        try stopServing(timeout: timeout)
        return result
    }

    /// ``serve(pacing:timeout:_:)`` for async code: awaits `body` while the harness serves. `body`
    /// runs in the caller's isolation (a `@MainActor` test's closure needs no `@Sendable`).
    ///
    /// ```swift
    /// let data = try await harness.serving { try await session.data(from: url).0 }
    /// ```
    public func serving<R: Sendable>(
        pacing: Pacing = .instant, timeout: Duration = .seconds(10), isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async throws -> R {
        startServing(pacing: pacing)
        let result: R
        do {
            result = try await body()
        } catch {
            try? await offThePool { try self.stopServing(timeout: timeout) }
            throw error
        }
        try await offThePool { try self.stopServing(timeout: timeout) }
        return result
    }

    /// Blocks until every request that clients on their own threads started has been answered and
    /// the simulation has nothing left to do (serving meanwhile if nobody is), then throws what
    /// went wrong since the last call: a request never answered (``ServeError/unanswered(_:detail:)``),
    /// or requests still in flight after `timeout` of real time (``ServeError/stillRunning(_:waited:)``),
    /// each named with its URL.
    ///
    /// It knows the requests the client has started, not the ones it will start later (a retry
    /// after a delay on the client's own timer): wait for your client's own result for those.
    public func waitUntilIdle(timeout: Duration = .seconds(10)) throws {
        let temporary: ServingDriver? = serving.withLock { current in
            if current != nil { return nil }
            let driver = ServingDriver(harness: self, pacing: .instant)
            current = driver
            return driver
        }
        temporary?.start()
        defer {
            if let temporary {
                serving.withLock { $0 = nil }
                temporary.stop()
            }
        }
        let driver = temporary ?? servingDriver!
        let idle = driver.wait(until: ContinuousClock.now.advanced(by: timeout)) { foreignInFlight.isEmpty }
        let failures = state.withLock { state -> [ServeError] in
            defer { state.serveFailures.removeAll() }
            return state.serveFailures
        }
        if let first = failures.first { throw first }
        if !idle { throw ServeError.stillRunning(foreignInFlight, waited: timeout) }
    }

    /// Runs the simulation until nothing is left, taking in first (and again whenever a run ends)
    /// what clients on their own threads started. Call it from a thread that may block, while the
    /// harness is not serving.
    @discardableResult
    public func runUntilIdle() throws -> RunSummary {
        let start = scheduler.now
        var jobs = 0
        repeat {
            scheduler.withExclusiveAccess { _ = admitForeignRequests() }
            jobs += try scheduler.runUntilIdle().jobs
        } while !state.withLock({ $0.foreignInbox.isEmpty })
        return RunSummary(jobs: jobs, start: start, end: scheduler.now)
    }

    /// After this, a request from a handed-out configuration fails at once with an error naming it
    /// (`Tape.finish()` closes its harness). Sessions made by the harness are not affected.
    public func close() {
        state.withLock { $0.closed = true }
    }

    /// Requests that clients started after ``close()`` (each failed with an error naming it).
    public var lateRequests: [String] {
        state.withLock { $0.lateRequests }
    }

    /// Whether a rerun with the same seed would do the same, for what clients on their own threads
    /// did so far (see ``ReproducibilityReport``).
    public var determinism: ReproducibilityReport {
        let diagnostics = scheduler.threadTimingDiagnostics
        return state.withLock { state in
            var reasons = state.overlaps
            reasons += state.foreignStops.map { "\($0) was cancelled or suspended on the client's own thread" }
            if state.pacedOnWallClock {
                reasons.append("virtual time followed the wall clock (pacing .wallClock)")
            }
            if state.unattributedBlocks > 0 {
                reasons.append("\(state.unattributedBlocks) delegate block(s) came from URLSession's threads unattributed")
            }
            reasons += diagnostics
            return ReproducibilityReport(foreignRequests: state.foreignRequests, reasons: reasons)
        }
    }

    var servingDriver: ServingDriver? {
        serving.withLock { $0 }
    }

    /// Requests from handed-out configurations not answered yet (waiting or in flight).
    var foreignInFlight: [String] {
        state.withLock { state in
            state.active.values.filter { $0.session.isConfiguration }.sorted { $0.number < $1.number }
                .map { "#\($0.number) \($0.summary)" }
        }
    }

    // MARK: the driver's round

    /// One round of the serving driver: takes in foreign requests, runs the simulation (to idle,
    /// or with wall-clock pacing up to `target`), and returns the next timer's deadline when time
    /// is paced. Errors become ``ServeError``s, and requests nothing will answer are failed so
    /// their clients never hang.
    func serveRound(pacing: Pacing, target: VirtualInstant?) -> VirtualInstant? {
        var rounds = 0
        while true {
            rounds += 1
            do {
                scheduler.withExclusiveAccess { _ = admitForeignRequests() }
                if let target {
                    try scheduler.run(until: max(target, scheduler.now))
                    if let next = scheduler.nextTimerDeadline {
                        if state.withLock({ $0.foreignInbox.isEmpty }) { return next }
                        continue
                    }
                }
                try scheduler.runUntilIdle()
                if state.withLock({ $0.foreignInbox.isEmpty }) { return nil }
            } catch {
                // Failing stuck requests needs another run; give up after a few to never spin.
                guard recover(from: error), rounds < 8 else { return nil }
            }
        }
    }

    /// Turns a failed run into a ``ServeError`` and fails the foreign requests it leaves stuck.
    /// Returns whether a run is needed to deliver those failures.
    private func recover(from error: any Error) -> Bool {
        let stuck: [ExchangeLink] = scheduler.withExclusiveAccess {
            state.withLock { state in
                state.active.values.filter { $0.session.isConfiguration && $0.networkID != nil && $0.lifecycle.state != .done }
                    .sorted { $0.number < $1.number }
            }
        }
        let failure: ServeError
        switch error {
        case let SimulationError.stalled(report) where !stuck.isEmpty:
            failure = .unanswered(stuck.map { "#\($0.number) \($0.summary)" }, detail: report.description)
        default:
            failure = .simulation(String(describing: error))
        }
        state.withLock { $0.serveFailures.append(failure) }
        if case SimulationError.externalWorkTimedOut = error { withdrawForeignStarts() }
        guard !stuck.isEmpty else { return false }
        scheduler.withExclusiveAccess {
            for link in stuck {
                link.redirectExpectation?.cancel()
                network.queue.async(named: "bridge.unanswered") { [self] in failUnanswered(link, why: failure) }
            }
        }
        return true
    }

    /// Gives up on foreign requests whose `startLoading` never came (so later runs do not wait for
    /// them again); their clients are told by the ``ServeError``, as corelibs cannot be.
    private func withdrawForeignStarts() {
        let waiting = state.withLock { state -> [ExternalExpectation] in
            var expectations: [ExternalExpectation] = []
            for link in state.active.values where link.session.isConfiguration && !link.startArrived {
                expectations += link.expectations[.start] ?? []
                link.expectations[.start] = nil
                state.active[link.number] = nil
            }
            return expectations
        }
        for expectation in waiting { expectation.cancel() }
    }

    /// Ends a foreign request nothing will answer with `URLError.timedOut` naming it, as a real
    /// URLSession would end it (eventually) — the client must not hang.
    private func failUnanswered(_ link: ExchangeLink, why: ServeError) {
        guard let id = link.networkID, let urlProtocol = link.urlProtocol, let task = link.task,
              Self.seen(task) == .running else { return }
        network.abandon(id)
        handle(.finished, for: link)
        waitForSessionBookkeeping(task)
        markCompletionHanded(link)
        scheduler.record("bridge.unanswered", "#\(link.number)")
        urlProtocol.client?.urlProtocol(urlProtocol, didFailWithError: URLError.bridge(.timedOut,
            "tapedeck: \(link.summary) was never answered (\(why.headline))", url: urlProtocol.request.url))
        finish(link)
    }

    private func offThePool(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// What went wrong while a harness served clients on their own threads.
public enum ServeError: Error, CustomStringConvertible, Sendable {
    /// The simulation ran dry with these requests unanswered (a stall with no timeout to end it);
    /// each was failed with `URLError.timedOut` so its client does not hang. `detail`: the stall report.
    case unanswered([String], detail: String)
    /// These requests were still in flight after `waited` of real time.
    case stillRunning([String], waited: Duration)
    /// The simulation failed otherwise (an expected callback that never came, a step limit).
    case simulation(String)

    /// One line: what happened, naming the requests.
    var headline: String {
        switch self {
        case let .unanswered(requests, _):
            "the simulation stalled with nothing left that could answer " + requests.joined(separator: ", ")
        case let .stillRunning(requests, waited):
            "still in flight after \(waited): " + requests.joined(separator: ", ")
        case let .simulation(detail):
            detail
        }
    }

    /// What happened and what to do about it.
    public var description: String {
        switch self {
        case let .unanswered(_, detail):
            "tapedeck: \(headline); each was failed with URLError.timedOut. Give the route an answer, "
                + "or a timeout (timeoutIntervalForRequest) to end a stall.\n\(detail)"
        case .stillRunning:
            "tapedeck: \(headline). Is the client waiting for something outside the tape, or is the timeout too short?"
        case .simulation:
            "tapedeck: serving failed: \(headline)"
        }
    }
}

/// Whether rerunning with the same seed would do the same, for the requests of clients on their
/// own threads (sessions built from ``Harness/configuration(base:)``).
///
/// Requests such a client makes one after another reproduce from the seed: each is taken in when
/// the simulation is idle, at the same virtual instant and with the same numbers every run.
/// Requests it makes concurrently enter the order as its threads happen to reach the harness, so
/// they may not. The report lists each reason it cannot promise a rerun does the same — from the
/// arrivals it saw: concurrent requests that timing kept apart look sequential to it.
///
/// ```swift
/// let report = tape.determinism
/// if !report.isReproducible { print(report) }   // "may vary between runs with the same seed: …"
/// ```
public struct ReproducibilityReport: Hashable, Sendable, CustomStringConvertible {
    /// Requests from clients on their own threads.
    public let foreignRequests: Int
    /// Why a rerun with the same seed might differ (empty: it will not).
    public let reasons: [String]

    /// A report over `foreignRequests` requests with `reasons` against reproducibility.
    public init(foreignRequests: Int, reasons: [String]) {
        self.foreignRequests = foreignRequests
        self.reasons = reasons
    }

    /// True when nothing thread timing decides entered the simulation.
    public var isReproducible: Bool { reasons.isEmpty }

    /// `reproducible from the seed: …` or `may vary between runs with the same seed:` and the reasons.
    public var description: String {
        if isReproducible {
            return "reproducible from the seed as far as the bridge saw: \(foreignRequests) request(s) from clients on their own threads "
                + "arrived one at a time"
        }
        return (["may vary between runs with the same seed:"] + reasons.map { "  - \($0)" }).joined(separator: "\n")
    }
}
