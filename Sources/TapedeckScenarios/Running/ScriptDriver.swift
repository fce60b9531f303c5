import Foundation
import Synchronization
import TapedeckBridge
import TapedeckClient
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plays the script on the app's queue: each request at its instant (a data request with the
/// tag, the validation and the headers it asks for, finished with a plain `response` handler) or,
/// for a step with `after`, that long after what it waits for has finished; each cancel at its
/// instant or on its event, `cancelAll` at its instant.
struct ScriptDriver {
    let run: Run

    /// The requests sent so far, by name (what cancels look up): session requests, and provider
    /// requests by their cancel tokens.
    final class Sent: Sendable {
        private struct Entry {
            let name: String
            let step: String
            let request: Request?
            /// For a provider caller: the name of the request whose flight it waits for (its
            /// own, or the one whose flight it joined).
            var flight: String?
            let cancel: @Sendable () -> Void
        }

        private let requests = Mutex<[Entry]>([])

        /// A chained step's sends, waiting for the requests its `after` names to finish.
        private struct Waiter {
            var pending: Set<String>
            let fire: @Sendable () -> Void
        }

        /// The waiters, and by each name they wait for, which (a finish looks at its own only).
        private let waiters = Mutex<(all: [Waiter], byName: [String: [Int]])>(([], [:]))

        /// Calls `fire` once every request in `names` has finished (in the handler of the last).
        func whenFinished(_ names: Set<String>, _ fire: @escaping @Sendable () -> Void) {
            waiters.withLock { waiters in
                for name in names { waiters.byName[name, default: []].append(waiters.all.count) }
                waiters.all.append(Waiter(pending: names, fire: fire))
            }
        }

        /// The request named `name` has finished (its handler ran): the steps waiting for it and
        /// nothing else are sent, in file order. A second call (a duplicated handler) fires nothing.
        func finished(_ name: String) {
            let ready = waiters.withLock { waiters -> [@Sendable () -> Void] in
                var ready: [@Sendable () -> Void] = []
                for index in waiters.byName.removeValue(forKey: name) ?? []
                where waiters.all[index].pending.remove(name) != nil && waiters.all[index].pending.isEmpty {
                    ready.append(waiters.all[index].fire)
                }
                return ready
            }
            for fire in ready { fire() }
        }

        func add(_ name: String, step: String, _ request: Request) {
            requests.withLock { $0.append(Entry(name: name, step: step, request: request, cancel: { request.cancel() })) }
        }

        func add(_ name: String, step: String, flight: String, cancel: @escaping @Sendable () -> Void) {
            requests.withLock { $0.append(Entry(name: name, step: step, request: nil, flight: flight, cancel: cancel)) }
        }

        /// The provider callers waiting for the flight of the request named `name` (that
        /// request's own caller and those that joined it), or `name` itself for any other request.
        func callers(waitingFor name: String) -> [String] {
            let joined = requests.withLock { $0.filter { $0.flight == name && $0.name != name }.map(\.name) }
            return [name] + joined
        }

        /// Cancels every request `target` names.
        func cancel(_ target: String) {
            let cancels = requests.withLock { $0.filter { $0.name == target || $0.step == target }.map(\.cancel) }
            for cancel in cancels { cancel() }
        }

        /// Cancels the request named `name` (its caller only, for a provider request).
        func cancel(named name: String) {
            let cancels = requests.withLock { $0.filter { $0.name == name }.map(\.cancel) }
            for cancel in cancels { cancel() }
        }

        /// The script's name of a session request: its own, or for a provider's request the tag its
        /// attempts carry.
        func name(of request: Request) -> String? {
            requests.withLock { $0.first { $0.request === request }?.name } ?? request.request?.value(forHTTPHeaderField: Harness.tagHeader)
        }
    }

    /// Schedules the script. Steps at the same instant run in file order (a request, then a
    /// cancel of it written after it at that instant: the cancel finds it sent), because each
    /// timed step is put on the app's queue in file order and the scheduler keeps that order
    /// among jobs due at one instant.
    func schedule() {
        let app = run.world.appQueue
        let sent = Sent()
        var backoffCancels: [(target: String, retry: Int)] = []
        var attemptCancels: [(target: String, attempt: Int)] = []
        for case let .cancel(cancel) in run.scenario.script {
            switch cancel.trigger {
            case .at:
                break
            case let .duringBackoff(retry):
                backoffCancels.append((cancel.target, retry))
            case let .atAttempt(attempt):
                attemptCancels.append((cancel.target, attempt))
            }
        }
        // In the middle of the wait: the retry is armed, its attempt not started. The session
        // reports every retry that waits, whichever retrier (the file's, the user's) decided it;
        // the recorder keeps when each began, so the timeline tells backoffs from other waits.
        let recorder = run.recorder
        // What each cancel's target names: that request, or every repeat of that step.
        let scripted = run.scenario.requests
        let covers = Dictionary(backoffCancels.map { ($0.target, scripted.names(coveredBy: $0.target)) }, uniquingKeysWith: { first, _ in first })
        run.session.observeBackoffs { [backoffCancels] request, delay in
            // Its lane's name is the tag its attempts carry (looked up without a scan of the sent requests).
            if let tag = request.request?.value(forHTTPHeaderField: Harness.tagHeader) { recorder.backedOff(tag) }
            guard !backoffCancels.isEmpty else { return }
            let retry = request.retryCount + 1   // counted once its attempt starts
            guard let name = sent.name(of: request) else { return }
            // A provider caller that joined this request's flight waits through its backoffs too.
            for caller in sent.callers(waitingFor: name)
            where backoffCancels.contains(where: { $0.retry == retry && covers[$0.target]?.contains(caller) == true }) {
                request.underlyingQueue.asyncAfter(delay: delay / 2, named: "scenario.cancel-in-backoff") { sent.cancel(named: caller) }
            }
        }
        // Each chained step's awaited requests, found in one pass over the script's requests.
        var awaitedByStep: [String: Set<String>] = [:]
        let chained = Dictionary(run.scenario.script.compactMap { step -> (String, String)? in
            guard case let .request(request) = step, let after = request.after else { return nil }
            return (request.name, after)
        }, uniquingKeysWith: { first, _ in first })
        if !chained.isEmpty {
            var byName: [String: [String]] = [:]   // a request's or a step's name → the requests it names
            for request in run.scenario.requests {
                byName[request.name, default: []].append(request.name)
                if request.step.name != request.name { byName[request.step.name, default: []].append(request.name) }
            }
            for (step, after) in chained { awaitedByStep[step] = Set(byName[after] ?? []) }
        }
        for step in run.scenario.script {
            switch step {
            case let .request(request):
                let sends = request.expanded().map { scripted in
                    let cancelAttempts = attemptCancels.filter { scripted.isNamed($0.target) }.map(\.attempt)
                    return { @Sendable [run] () -> Void in
                        _ = app.asyncAfter(delay: scripted.start, named: "scenario.send") {
                            send(scripted, run: run, sent: sent, cancelAttempts: cancelAttempts)
                        }
                    }
                }
                if request.after != nil {
                    // Counted from the moment the last of what it waits for finishes.
                    sent.whenFinished(awaitedByStep[request.name] ?? []) { for send in sends { send() } }
                } else {
                    for send in sends { send() }
                }
            case let .cancel(cancel):
                if case let .at(instant) = cancel.trigger {
                    app.asyncAfter(delay: instant, named: "scenario.cancel") {
                        sent.cancel(cancel.target)
                    }
                }
            case let .cancelAll(instant):
                let session = run.session
                app.asyncAfter(delay: instant, named: "scenario.cancel-all") { session.cancelAllRequests() }
            }
        }
    }

    private func send(_ scripted: ScriptRequest, run: Run, sent: Sent, cancelAttempts: [Int]) {
        let step = scripted.step
        if step.target != nil, let provider = run.provider {
            let recorder = run.recorder
            let index = recorder.sentThroughProvider(scripted.name)
            let caller = provider.send(scripted) { result in
                let (status, error, body) = ScenarioProvider.recorded(result)
                recorder.completed(index, status: status, error: error, body: body, attempts: 1)
                sent.finished(scripted.name)
            }
            // Every cancel of the caller — at an instant, in a backoff, at an attempt — is recorded
            // (the outcome and the timeline show it) and ends only its own wait.
            let token = caller.token
            let cancel: @Sendable () -> Void = {
                recorder.cancelled(index)
                token.cancel()
            }
            sent.add(scripted.name, step: step.name, flight: caller.flight, cancel: cancel)
            if !cancelAttempts.isEmpty { provider.cancel(atAttempts: cancelAttempts, of: caller.flight, cancel) }
            return
        }
        var urlRequest = URLRequest(url: step.url)
        urlRequest.httpMethod = step.method
        for header in run.scenario.client.headers + step.headers {
            urlRequest.setValue(header.value, forHTTPHeaderField: header.name)
        }
        urlRequest.httpBody = step.body
        let validation = step.validation ?? run.scenario.client.validation
        let statusCheck = validation.map { Self.statusCheck($0.statuses) }
        let contentTypes = validation.flatMap { Self.contentTypes($0, accept: urlRequest.value(forHTTPHeaderField: "Accept")) }
        let recorder = run.recorder
        if step.stream {
            var stream = run.session.streamRequest(urlRequest, interceptor: Tagger(name: scripted.name)).eventMonitor(run.recorder)
            if let statusCheck { stream = stream.validate { _, response in statusCheck(response) } }
            if let contentTypes { stream = stream.validate(contentType: contentTypes) }
            let index = recorder.sent(scripted.name, request: stream)
            sent.add(scripted.name, step: step.name, stream)
            if !cancelAttempts.isEmpty { stream = stream.eventMonitor(AttemptCanceller(attempts: cancelAttempts)) }
            let sentStream = stream
            sentStream.responseStream { piece in
                switch piece.event {
                case let .stream(.success(data)): recorder.receivedPiece(index, data)
                case let .complete(completion):
                    recorder.completedStream(index, completion, attempts: sentStream.tasks.count)
                    sent.finished(scripted.name)
                }
            }
            return
        }
        var request: DataRequest
        if let parts = step.multipart {
            request = run.session.upload(multipartFormData: { form in
                for part in parts { form.append(part.content, withName: part.name, fileName: part.fileName, mimeType: part.mimeType) }
            }, with: urlRequest, interceptor: Tagger(name: scripted.name)).eventMonitor(run.recorder)
        } else {
            request = run.session.request(urlRequest, interceptor: Tagger(name: scripted.name)).eventMonitor(run.recorder)
        }
        if let statusCheck { request = request.validate { _, response, _ in statusCheck(response) } }
        if let contentTypes { request = request.validate(contentType: contentTypes) }
        let index = recorder.sent(scripted.name, request: request)
        sent.add(scripted.name, step: step.name, request)
        if !cancelAttempts.isEmpty {
            request = request.eventMonitor(AttemptCanceller(attempts: cancelAttempts))
        }
        let sentRequest = request
        sentRequest.response { response in
            // The tasks the client created: none when it was cancelled before it had one (a
            // cancelAll that won the race against lazy setup).
            recorder.completed(index, response, attempts: sentRequest.tasks.count)
            sent.finished(scripted.name)
        }
    }

    /// The validation of a status outside `statuses`.
    private static func statusCheck(_ statuses: IntegerSet) -> @Sendable (HTTPURLResponse) -> ValidationResult {
        { response in
            statuses.contains(response.statusCode)
                ? .success(()) : .failure(ClientError.responseValidationFailed(reason: .unacceptableStatusCode(code: response.statusCode)))
        }
    }

    /// The content types a validation accepts (from the request's `Accept` header, or listed; nil: any).
    private static func contentTypes(_ validation: ValidationSetup, accept: String?) -> [String]? {
        switch validation.contentTypes {
        case .fromAccept?:
            return accept.map { $0.split(separator: ",").map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces) } }
        case let .list(types)?:
            return types
        case nil:
            return nil
        }
    }
}

/// Cancels its request when the attempt of a listed number creates its task.
private struct AttemptCanceller: EventMonitor {
    let attempts: [Int]
    var queue: (any SchedulerQueue)? { nil }

    func request(_ request: Request, didCreateTask task: URLSessionTask) {
        if attempts.contains(request.tasks.count) { request.cancel() }
    }
}
