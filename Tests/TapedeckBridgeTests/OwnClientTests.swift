import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scheduler, a network and a harness for a client that builds its own URLSession.
private func world(seed: UInt64 = 1) -> (SimulatedNetwork, Harness) {
    let network = SimulatedNetwork(scheduler: SimulatedScheduler(seed: seed))
    return (network, Harness(network: network))
}

private func url(_ path: String) -> URL {
    URL(string: "http://api.test\(path)")!
}

/// A delegate that logs upload progress, the response and the end of each task, and says when a task ended.
private final class UploadWatcher: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log and the waiter are in a Mutex; callbacks come on one serial queue.
    private let state = Mutex<(lines: [String], done: (@Sendable () -> Void)?)>(([], nil))
    var lines: [String] { state.withLock { $0.lines } }

    func whenDone(_ done: @escaping @Sendable () -> Void) { state.withLock { $0.done = done } }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        state.withLock { $0.lines.append("sent \(totalBytesSent)/\(totalBytesExpectedToSend)") }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        state.withLock { $0.lines.append("response \((response as? HTTPURLResponse)?.statusCode ?? 0)") }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let done = state.withLock { state -> (@Sendable () -> Void)? in
            state.lines.append(error == nil ? "complete ok" : "complete error")
            return state.done
        }
        done?()
    }
}

@Suite("Bridge: clients with their own URLSession, delegate and queues (Alamofire's shape)")
struct OwnClientTests {
    @Test("a client's own URLSession hears its upload was sent (didSendBodyData, the whole body) before the response, as a live session would")
    func ownSessionUploadProgress() async throws {
        let (network, harness) = world()
        network.route(.post, path: "/upload") { request, _ in .response(.text(201, "got \(request.body?.count ?? -1)")) }
        let watcher = UploadWatcher()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: harness.configuration(), delegate: watcher, delegateQueue: queue)
        var request = URLRequest(url: url("/upload"))
        request.httpMethod = "POST"
        try await harness.serving {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                watcher.whenDone { continuation.resume() }
                session.uploadTask(with: request, from: Data(repeating: 1, count: 2_048)).resume()
            }
        }
        #expect(watcher.lines == ["sent 2048/2048", "response 201", "complete ok"], "\(watcher.lines)")
        session.invalidateAndCancel()
    }

    @Test("a client's request still in flight when the simulation ends is ended cancelled, naming it, instead of waiting for ever")
    func inFlightAtTheEndIsCancelled() async throws {
        let (network, harness) = world()
        network.route(.get, path: "/slow") { _, _ in .response(.text(200, "late")) }
        let session = URLSession(configuration: harness.configuration())
        let ended = Mutex<(any Error)??>(nil)
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: url("/slow")) { _, _, error in
            ended.withLock { $0 = .some(error) }
            done.signal()
        }.resume()
        // Given its startLoading has come (corelibs calls it on the session's work queue, which
        // runs getAllTasks's block after it) and nothing serves it
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.getAllTasks { _ in continuation.resume() }
        }
        // When the simulation ends
        harness.endSimulation()
        // Then the request ends cancelled with the reason (a bounded wait: a regression fails, it does not hang the suite)
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async { continuation.resume(returning: done.wait(timeout: .now() + 30) == .success) }
        }
        #expect(finished, "the request never completed")
        let error = ended.withLock { $0 } ?? nil
        #expect((error as? URLError)?.code == .cancelled, "\(String(describing: error))")
        #expect((error as? URLError)?.localizedDescription.contains("GET http://api.test/slow was still in flight when the simulation ended") == true,
                "\(String(describing: error))")
        // And one started afterwards fails at once, naming it (no serving, no waiting)
        let late = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            session.dataTask(with: url("/slow")) { _, _, error in continuation.resume(returning: error) }.resume()
        }
        #expect((late as? URLError)?.code == .resourceUnavailable, "\(String(describing: late))")
        #expect(late?.localizedDescription.contains("was started after the tape finished or its simulation ended") == true)
        session.invalidateAndCancel()
    }

    /// Main-actor state a serving body reads and writes (not Sendable: only the main actor may touch it).
    @MainActor private final class Screen {
        var lines: [String] = []
    }

    @MainActor
    @Test("a @MainActor test serves with a plain closure that uses main-actor state (the body runs in the caller's isolation)")
    func servingFromTheMainActor() async throws {
        let (network, harness) = world()
        network.route(.get, path: "/me") { _, _ in .response(.text(200, "ada")) }
        let session = URLSession(configuration: harness.configuration())
        let screen = Screen()
        // Compiles only while `serving` takes the caller's isolation: the closure captures `screen`.
        let status = try await harness.serving {
            let (data, response) = try await session.data(from: url("/me"))
            screen.lines.append(String(decoding: data, as: UTF8.self))
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        #expect(status == 200 && screen.lines == ["ada"])
        session.invalidateAndCancel()
    }

    @Test("the harness serves the client while it awaits its own result: no polling, callbacks on its queue")
    func servesWithoutPolling() async throws {
        // Given a client that builds its own URLSession from the harness's configuration
        let (network, harness) = world()
        network.stub(.get, path: "/items", options: RouteOptions(latency: .fixed(.milliseconds(80))), .json(200, #"{"items":[1,2]}"#))
        let client = OwnClient(configuration: harness.configuration())

        // When it makes three requests one after another while the harness serves
        let results = try await harness.serving {
            var results: [OwnClient.Result] = []
            for _ in 0..<3 { results.append(await client.get(url("/items"))) }
            return results
        }

        // Then each was answered from the network, on the client's own root queue
        #expect(results.map(\.status) == [200, 200, 200])
        #expect(results.allSatisfy { String(decoding: $0.body, as: UTF8.self) == #"{"items":[1,2]}"# })
        #expect(results.allSatisfy { $0.onRootQueue })
        #expect(network.records.count == 3)
        #expect(harness.scheduler.now >= .zero.advanced(by: .milliseconds(240)))
        #expect(harness.determinism.isReproducible, "\(harness.determinism)")
    }

    @Test("a task the client cancels on its own thread right after resume(), 200 times: each ends once, no trap in corelibs' task registry")
    func cancelRightAfterResume() async throws {
        // A stress test of a race that is closed, not of timing: the bridge looked at the task
        // before waiting for the session's queue, and a cancel in between made corelibs trap on
        // a task gone from its registry (4 runs of 4 crashed). Whatever the threads do, every
        // task must end exactly once, cancelled or answered.
        for _ in 0..<200 {
            let (network, harness) = world()
            network.stub(.get, path: "/items/1", options: RouteOptions(latency: .fixed(.seconds(5))), .json(200, #"{"id":1}"#))
            let session = URLSession(configuration: harness.configuration())
            let ended = Mutex(0)
            let outcome = try await harness.serving { () async -> Int in
                await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                    let task = session.dataTask(with: url("/items/1")) { _, response, error in
                        ended.withLock { $0 += 1 }
                        continuation.resume(returning: (error as? URLError)?.errorCode ?? (response as? HTTPURLResponse)?.statusCode ?? 0)
                    }
                    task.resume()
                    task.cancel()
                }
            }
            #expect(outcome == URLError.cancelled.rawValue || outcome == 200, "\(outcome)")
            #expect(ended.withLock { $0 } == 1)
            session.invalidateAndCancel()
        }
    }

    @Test("retries on the client's own GCD timer are served too, and stay reproducible")
    func retriesOnItsOwnTimer() async throws {
        // Given a route whose first two answers are 503 and a client that retries after a delay
        let (network, harness) = world()
        network.stub(.get, path: "/flaky", .text(200, "finally"))
        network.faults = FaultRules([.init(.responseHead, .overrideStatus(503), limit: 2)])
        let client = OwnClient(configuration: harness.configuration(), retryLimit: 3)

        // When it asks once
        let result = try await harness.serving { await client.get(url("/flaky")) }

        // Then it got its answer on the third attempt
        #expect(result.attempts == 3)
        #expect(result.status == 200)
        #expect(String(decoding: result.body, as: UTF8.self) == "finally")
        #expect(harness.determinism.isReproducible)
        #expect(harness.determinism.foreignRequests == 3)
    }

    @Test("waitUntilIdle serves requests the client already started, without anyone driving")
    func waitUntilIdleServes() throws {
        let (network, harness) = world()
        network.stub(.get, path: "/a", .text(200, "a"))
        let client = OwnClient(configuration: harness.configuration())
        let answers = Answers(expected: 1)
        client.getConcurrently([url("/a")]) { url, result in answers.add(url, result) }

        try harness.waitUntilIdle()

        #expect(answers.wait().values.map(\.status) == [200])
    }

    @Test("a request nothing will answer fails with URLError.timedOut naming it, and serving throws naming it")
    func neverAnswered() async throws {
        // Given a route that stalls and a configuration with no request timeout to end the stall
        let (network, harness) = world()
        network.stub(.get, path: "/void", .text(200, "never"))
        network.faults = FaultRules([.init(.responseHead, .stall)])
        let base = URLSessionConfiguration.ephemeral
        base.timeoutIntervalForRequest = 0
        base.timeoutIntervalForResource = 0
        let client = OwnClient(configuration: harness.configuration(base: base))

        // When the client asks while the harness serves
        let outcome = Mutex<OwnClient.Result?>(nil)
        let error = await #expect(throws: ServeError.self) {
            try await harness.serving {
                let result = await client.get(url("/void"))
                outcome.withLock { $0 = result }
            }
        }

        // Then the client was not left hanging, and both it and the harness name the request
        let result = try #require(outcome.withLock { $0 })
        #expect(result.error?.code == .timedOut)
        #expect(result.error?.localizedDescription.contains("GET http://api.test/void") == true)
        guard case let .unanswered(requests, detail)? = error else {
            Issue.record("expected .unanswered, got \(String(describing: error))")
            return
        }
        #expect(requests == ["#1 GET http://api.test/void"])
        #expect(detail.contains("stalled"))
        #expect(error?.description.contains("GET http://api.test/void") == true)
    }

    @Test("a request started after the harness closed fails at once with an error naming it")
    func startedAfterClose() async throws {
        let (network, harness) = world()
        network.stub(.get, path: "/late", .text(200, "too late"))
        let client = OwnClient(configuration: harness.configuration())
        harness.close()

        // No one serves: the failure needs no simulation.
        let result = await client.get(url("/late"))

        #expect(result.error?.code == .resourceUnavailable)
        #expect(result.error?.localizedDescription.contains("GET http://api.test/late was started after the tape finished") == true)
        #expect(harness.lateRequests == ["GET http://api.test/late"])
        #expect(network.records.isEmpty)
    }

    @Test("redirects ask the delegate of the session that owns the task: .doNotFollow hands the client the 302")
    func redirectsAskTheOwningDelegate() async throws {
        let (network, harness) = world()
        network.stub(.get, path: "/old", ResponsePlan(status: 302, headers: [("Location", "/new")], body: Data("moved".utf8)))
        network.stub(.get, path: "/new", .text(200, "new"))
        let refusing = OwnClient(configuration: harness.configuration(), redirectPolicy: .doNotFollow)
        let following = OwnClient(configuration: harness.configuration(), redirectPolicy: .follow)

        let (refused, followed) = try await harness.serving {
            (await refusing.get(url("/old")), await following.get(url("/old")))
        }

        #expect(refused.redirects == [302])
        #expect(refused.status == 302)
        #expect(String(decoding: refused.body, as: UTF8.self) == "moved")
        #expect(followed.redirects == [302])
        #expect(followed.status == 200)
        #expect(String(decoding: followed.body, as: UTF8.self) == "new")
        #expect(followed.onRootQueue && refused.onRootQueue)
    }

    @Test("a session without a redirect callback follows, as URLSession does")
    func followsWithoutADelegate() async throws {
        let (network, harness) = world()
        network.stub(.get, path: "/old", ResponsePlan(status: 301, headers: [("Location", "/new")]))
        network.stub(.get, path: "/new", .text(200, "new"))
        let session = URLSession(configuration: harness.configuration())

        let (data, response) = try await harness.serving { try await session.data(from: url("/old")) }

        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "new")
    }

    @Test("the bytes before a connection reset reach the client's data delegate, then the error")
    func partialBodyBeforeReset() async throws {
        let (network, harness) = world()
        let body = Data((0..<1_000).map { UInt8($0 % 251) })
        network.stub(.get, path: "/big", options: RouteOptions(bandwidth: 100_000, chunkSize: 250), ResponsePlan(status: 200, body: body))
        network.faults = FaultRules([.init(.bodyChunk, .resetAfter(bytes: 300))])
        let client = OwnClient(configuration: harness.configuration())

        let result = try await harness.serving { await client.get(url("/big")) }

        #expect(result.status == 200)
        #expect(result.body == body.prefix(300))
        #expect(result.error?.code == .networkConnectionLost)
    }

    @Test("one chunk, a reset after 300 bytes: the client still gets those 300 bytes")
    func partialSingleChunk() async throws {
        let (network, harness) = world()
        let body = Data(repeating: 7, count: 1_000)
        network.stub(.get, path: "/big", ResponsePlan(status: 200, body: body))
        network.faults = FaultRules([.init(.bodyChunk, .resetAfter(bytes: 300))])
        let client = OwnClient(configuration: harness.configuration())

        let result = try await harness.serving { await client.get(url("/big")) }

        #expect(result.body.count == 300)
        #expect(result.error?.code == .networkConnectionLost)
    }

    @Test("sequential requests reproduce from the seed; the report says so")
    func sequentialIsReproducible() async throws {
        func run(seed: UInt64) async throws -> (TraceHash, [Int?], ReproducibilityReport) {
            let (network, harness) = world(seed: seed)
            network.stub(.get, path: "/j", options: RouteOptions(latency: .jittered(base: .milliseconds(10), jitter: .milliseconds(90))),
                         .text(200, "j"))
            network.faults = FaultRules([.init(.responseHead, .overrideStatus(503), probability: (1, 3))])
            let client = OwnClient(configuration: harness.configuration(), retryLimit: 2, retryDelay: 0.001)
            let statuses = try await harness.serving {
                var statuses: [Int?] = []
                for index in 0..<6 { statuses.append(await client.get(url("/j?i=\(index)")).status) }
                return statuses
            }
            return (harness.scheduler.traceHash, statuses, harness.determinism)
        }
        let first = try await run(seed: 11)
        let again = try await run(seed: 11)
        let other = try await run(seed: 12)
        #expect(first.0 == again.0)
        #expect(first.1 == again.1)
        #expect(first.0 != other.0)
        #expect(first.2.isReproducible && again.2.isReproducible, "\(first.2)")
    }

    @Test("concurrent requests are served, and the report says a rerun may differ, naming them")
    func concurrentRequestsAreReported() throws {
        let (network, harness) = world()
        network.stub(.get, path: "/c", options: RouteOptions(latency: .fixed(.milliseconds(5))), .text(200, "c"))
        let client = OwnClient(configuration: harness.configuration())
        let answers = Answers(expected: 4)

        // Four requests in one block of the client's queue: all in flight together.
        let urls = (0..<4).map { url("/c?n=\($0)") }
        client.getConcurrently(urls) { url, result in answers.add(url, result) }
        try harness.waitUntilIdle()

        #expect(answers.wait().values.map(\.status) == [200, 200, 200, 200])
        let report = harness.determinism
        #expect(!report.isReproducible)
        #expect(report.reasons.count == 3)
        #expect(report.reasons.first == "#2 GET http://api.test/c?n=1 started while #1 was in flight")
        #expect(report.description.hasPrefix("may vary between runs with the same seed:"))
    }

    @Test("wall-clock pacing: virtual time follows the wall clock, scaled; the report says time was paced")
    func wallClockPacing() async throws {
        let (network, harness) = world()
        network.stub(.get, path: "/slow", options: RouteOptions(latency: .fixed(.seconds(3))), .text(200, "slow"))
        let client = OwnClient(configuration: harness.configuration())

        // A virtual second lasts a millisecond.
        let result = try await harness.serving(pacing: .wallClock(scale: 0.001)) { await client.get(url("/slow")) }

        #expect(result.status == 200)
        #expect(harness.scheduler.now >= .zero.advanced(by: .seconds(3)))
        #expect(harness.determinism.reasons == ["virtual time followed the wall clock (pacing .wallClock)"])
    }

    @Test("a task the client cancels before the simulation took it in ends cancelled, and nothing is left in flight")
    func cancelBeforeServing() throws {
        let (network, harness) = world()
        network.stub(.get, path: "/x", .text(200, "x"))
        let session = URLSession(configuration: harness.configuration())
        let ended = DispatchSemaphore(value: 0)
        let error = Mutex<URLError?>(nil)
        let task = session.dataTask(with: url("/x")) { _, _, failure in
            error.withLock { $0 = failure as? URLError }
            ended.signal()
        }
        task.resume()
        task.cancel()

        try harness.waitUntilIdle()

        _ = ended.wait(timeout: .now() + 10)
        #expect(error.withLock { $0?.code } == .cancelled)
        #expect(network.records.allSatisfy { $0.outcome == .cancelled })
        #expect(harness.retainedProtocolCount == 0)
    }

    @Test("a client cancelling on its own thread is served, and reported")
    func cancelOnItsOwnThread() async throws {
        // Given an answer due in 30 virtual seconds, paced on the wall clock
        let (network, harness) = world()
        network.stub(.get, path: "/slow", options: RouteOptions(latency: .fixed(.seconds(30))), .text(200, "late"))
        let session = URLSession(configuration: harness.configuration())
        let ended = Mutex<URLError?>(nil)

        // When the client cancels from its own thread long before that
        try await harness.serving(pacing: .wallClock(scale: 1)) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let task = session.dataTask(with: url("/slow")) { _, _, error in
                    ended.withLock { $0 = error as? URLError }
                    continuation.resume()
                }
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { task.cancel() }
            }
        }

        // Then its task ends cancelled, and the report names it
        #expect(ended.withLock { $0?.code } == .cancelled)
        #expect(harness.determinism.reasons.contains("#1 GET http://api.test/slow was cancelled or suspended on the client's own thread"))
    }
}

/// Collects a client's answers by URL; `wait()` returns them once all came (bounded).
private final class Answers: Sendable {
    private let group = DispatchGroup()
    private let results = Mutex<[URL: OwnClient.Result]>([:])

    init(expected: Int) {
        for _ in 0..<expected { group.enter() }
    }

    func add(_ url: URL, _ result: OwnClient.Result) {
        results.withLock { $0[url] = result }
        group.leave()
    }

    func wait() -> [URL: OwnClient.Result] {
        _ = group.wait(timeout: .now() + 10)
        return results.withLock { $0 }
    }
}
