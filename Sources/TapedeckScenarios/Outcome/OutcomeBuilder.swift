import Foundation
import TapedeckClient
import TapedeckNetwork
import TapedeckScheduling

/// Turns what a run left behind (the recorder's entries, the network's records, the fault log)
/// into an ``Outcome``: classifies each request's end, checks the invariants and expectations,
/// and draws the timeline.
struct OutcomeBuilder {
    let run: Run
    /// Why the simulation stopped early (a stall, a step limit), if it did.
    let stop: String?

    func build() -> Outcome {
        let scheduler = run.world.scheduler
        let records = run.world.network.records
        let fired = run.sites.fired.filter(\.effective)
        let entries = run.recorder.entries
        let scripted = run.scenario.requests
        // Indexed once: a run of n requests must not scan every record per request (n² for 10,000).
        var entryByName: [String: RunRecorder.Entry] = [:]
        for entry in entries where entryByName[entry.name] == nil { entryByName[entry.name] = entry }
        let recordsByTag = Dictionary(grouping: records.filter { $0.tag != nil }, by: { $0.tag! })
        let firedByRequest = Dictionary(grouping: fired.filter { $0.decision.request != nil }, by: { $0.decision.request! })
        var tagByExchange: [Int: String] = [:]
        for record in records { if let tag = record.tag { tagByExchange[record.id] = tag } }
        var rejectionsByRequest: [String: [VirtualInstant]] = [:]
        for rejection in run.tokenServer?.rejections ?? [] {
            if let tag = tagByExchange[rejection.exchange] { rejectionsByRequest[tag, default: []].append(rejection.time) }
        }
        let notRetried = run.recorder.notRetried
        var requests: [RequestOutcome] = []
        requests.reserveCapacity(scripted.count)
        for request in scripted {
            let entry = entryByName[request.name]
            let own = recordsByTag[request.name] ?? []
            var outcome = RequestOutcome(
                name: request.name, method: request.step.method, url: request.step.url.absoluteString,
                status: entry?.status, error: entry.map { Self.kind(of: $0.error) } ?? .none, errorDetail: entry?.error.map(Self.detail),
                attempts: entry.map { $0.viaProvider ? max(1, own.count) : $0.attempts } ?? 0, startNanoseconds: entry?.start.nanoseconds
                    // Never sent: a chained step whose `after` never finished has no start but the end.
                    ?? (request.step.after == nil ? Int64(request.start.wholeNanoseconds) : run.world.scheduler.now.nanoseconds),
                endNanoseconds: entry?.end.map { $0.nanoseconds }, handlerCalls: entry?.handlerCalls ?? 0,
                faults: (firedByRequest[request.name] ?? []).map { "\($0.site): \($0.action)" },
                bodyBytes: entry?.body?.count ?? 0, bodyPreview: Self.preview(entry?.body), body: entry?.body,
                pieces: request.step.stream ? entry?.pieces ?? 0 : nil)
            if outcome.error != .none { outcome.whyNotRetried = notRetried[request.name] }
            for time in rejectionsByRequest[request.name] ?? [] { outcome.faults.append("token rejected (401) at \(TextTimeline.format(time.nanoseconds))") }
            requests.append(outcome)
        }
        var failures = invariants(requests: requests)
        // Every request the network served counts: each attempt's first request and each
        // redirect it followed (its metrics keep one transaction per hop).
        failures += ExpectationChecker(
            expectations: run.scenario.expectations, requests: requests, scripted: scripted,
            exchanges: records.flatMap { record in
                record.metrics.transactions.isEmpty ? [(record.request.method.rawValue, record.request.url)]
                    : record.metrics.transactions.map { ($0.method.rawValue, $0.url) }
            }).failures()
        let duration = scheduler.now.nanoseconds
        // In time order (token expiries and the rest, each in the order it fired), each at the
        // instant it was decided; a head's fault says when the head came, when a delay put it later.
        var recordByID: [Int: ExchangeRecord] = [:]
        for record in records where recordByID[record.id] == nil { recordByID[record.id] = record }
        let faults = (fired.map { firing in
            FiredFaultRecord(site: firing.site, request: firing.decision.request, attempt: firing.decision.attempt, exchange: firing.exchange,
                             what: "\(firing.point): \(firing.action)" + Self.headArrival(after: firing.time, at: firing.point, in: recordByID[firing.exchange]),
                             timeNanoseconds: firing.time.nanoseconds)
        } + tokenExpiries()).enumerated().sorted { lhs, rhs in
            lhs.element.timeNanoseconds != rhs.element.timeNanoseconds ? lhs.element.timeNanoseconds < rhs.element.timeNanoseconds : lhs.offset < rhs.offset
        }.map(\.element)
        let timeline = TimelineBuilder(requests: requests, records: records, faults: faults, failures: failures,
                                       cancels: entries.map { ($0.name, $0.cancelledAt) }, duration: duration,
                                       backoffs: run.recorder.backoffs).build()
        let file = Self.displayPath(run.scenario.source?.path ?? "")
        return Outcome(
            scenario: run.scenario.name, file: file, seed: run.seed, requests: requests, failures: failures,
            traceHash: scheduler.traceHash.description, virtualNanoseconds: duration, jobs: scheduler.jobsExecuted,
            faults: faults, enabledSites: run.sites.enabledSites,
            reproduction: "\(run.options.commandName) run \(file.isEmpty ? "SCENARIO" : Outcome.shellQuoted(file)) --seed \(run.seed)",
            determinismNote: Self.threadTimingNote(scheduler.threadTimingDiagnostics), timeline: timeline)
    }

    /// ` (the head arrived at 2s)` for a fault decided at the response head (`decided`) of an
    /// exchange whose head came later (a latency fault's delay, or another's at that point);
    /// empty when it came at once or never.
    static func headArrival(after decided: VirtualInstant, at point: FaultPoint, in record: ExchangeRecord?) -> String {
        guard point == .responseHead, let record,
              let head = record.metrics.transactions.lazy.compactMap(\.responseStart).first(where: { $0 >= decided }), head > decided else { return "" }
        return " (the head arrived at \(TextTimeline.format(head.nanoseconds)))"
    }

    /// Token expiries, as faults that fired at their instant (those the run got to: each wrote its
    /// trace step then).
    private func tokenExpiries() -> [FiredFaultRecord] {
        (run.tokenExpiries?.written ?? []).map { expiry in
            FiredFaultRecord(site: expiry.site, request: nil, attempt: 0, exchange: 0, what: "token server: every token expires",
                             timeNanoseconds: Int64(expiry.at.wholeNanoseconds))
        }
    }

    // MARK: invariants

    private func invariants(requests: [RequestOutcome]) -> [Failure] {
        var failures: [Failure] = []
        func fail(_ check: String, _ request: String?, _ message: String) {
            failures.append(Failure(kind: .invariant, request: request, check: check, message: message))
        }
        if let stop { fail("noStall", nil, stop) }
        // A file's durations stay within 10⁹ s, but waits composed at run time (a chain of long
        // `after` offsets, honoured Retry-After waits) can pass it: timings there are not to be trusted
        // (the clock stops at its end, 2⁶³ − 1 ns), so the run fails rather than pass with them.
        let longest = Int64(Field.longestDuration.components.seconds) * 1_000_000_000
        if run.world.scheduler.now.nanoseconds > longest {
            fail("clockRange", nil, "the virtual clock ran to \(TextTimeline.format(run.world.scheduler.now.nanoseconds)), past the 10⁹ s (about 31 years) "
                 + "a run may span: shorten the long waits ('after' steps' 'at', Retry-After waits under retryAfterLimit)")
        }
        let scripted = run.scenario.requests
        let unsent = Set(scripted.filter { $0.step.after != nil }.map(\.name)).subtracting(run.recorder.entries.map(\.name))
        for request in requests where request.handlerCalls != 1 {
            if unsent.contains(request.name), let script = scripted.first(where: { $0.name == request.name }), let after = script.step.after {
                let awaited = scripted.filter { $0.isNamed(after) }.map(\.name)
                let finished = Set(run.recorder.entries.filter { $0.handlerCalls > 0 }.map(\.name))
                fail("completesOnce", request.name, awaited.allSatisfy(finished.contains)
                     ? "never sent: due \(TextTimeline.format(Int64(script.start.wholeNanoseconds))) after '\(after)' finished, past the end of the run"
                     : "never sent: it waits for '\(after)' to finish, which had not happened when the run ended")
                continue
            }
            fail("completesOnce", request.name, request.handlerCalls == 0
                 ? "its completion handler never ran (still pending at t=\(run.world.scheduler.now))"
                 : "its completion handler ran \(request.handlerCalls) times")
        }
        for violation in run.world.scheduler.violations {
            fail("queueRules", nil, "\(violation)")
        }
        let retained = run.world.harness.retainedProtocolCount
        if retained > 0 && stop == nil {
            fail("noLeakedProtocol", nil, "\(retained) URLProtocol instance(s) still held after every request ended")
        }
        for illegal in run.world.network.illegalTransitions + run.world.harness.illegalTransitions {
            fail("legalTransitions", nil, illegal)
        }
        for (request, anomaly) in run.recorder.anomalies where !run.scenario.expectations.allowedAnomalies.contains(anomaly) {
            fail("noLedgerAnomaly", request, "\(anomaly) (allow it with expect.allowAnomalies if the scenario provokes it)")
        }
        return failures
    }

    // MARK: values

    /// How a request ended, as expectations name it.
    static func kind(of error: ClientError?) -> ErrorKind {
        guard let error else { return .none }
        switch error {
        case .explicitlyCancelled: return .cancelled
        case .responseValidationFailed: return .validation
        case .responseSerializationFailed: return .serialization
        case .requestAdaptationFailed, .createURLRequestFailed, .invalidURL, .parameterEncodingFailed, .parameterEncoderFailed,
             .urlRequestValidationFailed, .multipartEncodingFailed, .createUploadableFailed:
            return .adaptation
        case .requestRetryFailed:
            // The retrier failed (a token refresh after a 401, a custom retrier's error): the
            // request itself did not fail that way, so its kind is the retrier's failing; the
            // detail line says with what.
            return .retry
        case .sessionDeinitialized, .sessionInvalidated:
            return .session
        case .downloadedFileMoveFailed:
            return .transport
        case let .sessionTaskFailed(underlying):
            guard let code = (underlying as? URLError)?.code else { return .transport }
            switch code {
            case .cancelled: return .cancelled
            case .timedOut: return .timedOut
            case .networkConnectionLost: return .connectionLost
            case .cannotConnectToHost: return .cannotConnect
            case .cannotFindHost, .dnsLookupFailed: return .hostNotFound
            case .notConnectedToInternet: return .notConnected
            default: return .transport
            }
        }
    }

    /// The outcome's note when the client's code handed the simulation work from threads of its
    /// own (an interceptor answering from its own DispatchQueue): thread timing placed it, so the
    /// seed may not reproduce this run. Empty otherwise.
    static func threadTimingNote(_ reasons: [String]) -> String {
        reasons.isEmpty ? "" : "this run may not reproduce from its seed: " + reasons.joined(separator: "; ")
    }

    /// A file's path as a user would type it here: relative to the current directory when the
    /// file is under it (so a reproduction line pastes into the same shell, and into CI logs).
    static func displayPath(_ path: String) -> String {
        let directory = FileManager.default.currentDirectoryPath
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// An error as outcomes show it. An NSError's (or URLError's) own description lists its
    /// userInfo in dictionary order, which differs from run to run; ``StableErrorText`` sorts the
    /// keys (as the client's and the provider's descriptions do), so that a seed gives the same
    /// outcome (and `--format json`) every time.
    static func detail(of error: ClientError) -> String {
        StableErrorText.describe(error)
    }

    static func preview(_ body: Data?) -> String {
        guard let body, !body.isEmpty else { return "" }
        let text = String(decoding: body.prefix(120), as: UTF8.self)
        return text.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0 == "\n" || $0 == "\t" }) ? text : "(\(body.count) binary bytes)"
    }
}

extension VirtualInstant {
    /// Nanoseconds since time zero.
    var nanoseconds: Int64 { Int64(VirtualInstant.zero.duration(to: self).wholeNanoseconds) }
}
