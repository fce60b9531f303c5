import Foundation
import Testing
import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: session queues (§1)")
struct QueueTests {
    @Test("default queues: a rootQueue, requestQueue and serializationQueue targeting it")
    func defaultQueues() {
        let fixture = ClientFixture()
        let session = fixture.session
        #expect(session.rootQueue.label == "org.tapedeck.session.rootQueue")
        #expect(session.requestQueue.label == "org.tapedeck.session.rootQueue.requestQueue")
        #expect(session.requestQueue.target === session.rootQueue)
        #expect(session.serializationQueue.label == "org.tapedeck.session.rootQueue.serializationQueue")
        #expect(session.serializationQueue.target === session.rootQueue)
    }

    @Test("a supplied root queue is wrapped in a new serial queue with its label")
    func suppliedRootIsWrapped() throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let supplied = scheduler.makeQueue(label: "app.network", target: nil)
        let fixture = ClientFixture(rootQueue: supplied, scheduler: scheduler)
        fixture.serveTestAPI()
        #expect(fixture.session.rootQueue !== supplied)
        #expect(fixture.session.rootQueue.label == "app.network")
        #expect(fixture.session.rootQueue.target === supplied)
        let done = Box(false)
        fixture.session.request("http://api.test/get").validate().response { done.value = $0.error == nil }
        try fixture.run()
        #expect(done.value)
    }

    @Test("work runs where §1.2 says: setup on requestQueue, serializers on serializationQueue, the rest on rootQueue")
    func whereWorkRuns() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let places = Box<[String]>([])
        let session = fixture.session
        @Sendable func place() -> String {
            if session.requestQueue.isCurrent { return "request" }
            if session.serializationQueue.isCurrent { return "serialization" }
            if session.rootQueue.isCurrent { return "root" }
            return "elsewhere"
        }
        struct Probe: ResponseSerializer {
            let record: @Sendable () -> Void
            func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> Int {
                record()
                throw TestError(id: 7)  // a failing serializer consults the retrier once more (§2.6)
            }
        }
        let adapter = Adapter { request, _, completion in places.mutate { $0.append("adapt " + place()) }; completion(.success(request)) }
        let retrier = Retrier { _, _, _, completion in places.mutate { $0.append("retry " + place()) }; completion(.doNotRetry) }
        session.request("http://api.test/status/500", interceptor: Interceptor(adapter: adapter, retrier: retrier))
            .validate { _, _, _ in places.mutate { $0.append("validate " + place()) }; return .success(()) }
            .validate(statusCode: [200])
            .response(responseSerializer: Probe { places.mutate { $0.append("serialize " + place()) } }) { _ in
                places.mutate { $0.append("completion " + place()) }
            }
        try fixture.run()
        #expect(places.value == ["adapt request", "validate root", "retry root", "serialize serialization", "retry root", "completion root"])
        #expect(fixture.scheduler.violations.isEmpty, "\(fixture.scheduler.violations)")
    }

    @Test("requests work with request and serialization queues of their own (not targeting the root)")
    func ownQueues() throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let network = SimulatedNetwork(scheduler: scheduler)
        network.stub(host: "api.test", path: "/get", .json(200, "{}"))
        let harness = Harness(network: network)
        defer { harness.endSimulation() }
        let session = Session(provider: harness, scheduler: scheduler,
                              requestQueue: scheduler.makeQueue(label: "own.request", target: nil),
                              serializationQueue: scheduler.makeQueue(label: "own.serialization", target: nil))
        let done = Box(0)
        for _ in 0..<10 { session.request("http://api.test/get").responseData { if $0.value != nil { done.mutate { $0 += 1 } } } }
        try scheduler.runUntilIdle()
        #expect(done.value == 10)
        #expect(scheduler.violations.isEmpty)
    }

    @Test("cancelAllRequests cancels every running request, then calls back")
    func cancelAll() throws {
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/slow", options: RouteOptions(latency: .fixed(.seconds(10))), .json(200, "{}"))
        let cancelled = Box(0)
        for _ in 0..<5 {
            fixture.session.request("http://api.test/slow").response { if $0.error?.isExplicitlyCancelledError == true { cancelled.mutate { $0 += 1 } } }
        }
        let called = Box(false)
        fixture.session.rootQueue.asyncAfter(delay: .seconds(1)) {
            fixture.session.cancelAllRequests { called.value = true }
        }
        try fixture.run()
        #expect(cancelled.value == 5)
        #expect(called.value)
        #expect(fixture.scheduler.now == seconds(1))
    }

    /// A simulated network answering `GET http://api.test/get`, and its harness.
    private func getWorld() -> (SimulatedScheduler, Harness) {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let network = SimulatedNetwork(scheduler: scheduler)
        network.stub(host: "api.test", path: "/get", .json(200, "{}"))
        return (scheduler, Harness(network: network))
    }

    @Test("releasing a session finishes its pending requests with sessionDeinitialized")
    func sessionDeinit() throws {
        let (scheduler, harness) = getWorld()
        defer { harness.endSimulation() }
        let result = Box<ClientError?>(nil)
        var session: Session? = Session(provider: harness, scheduler: scheduler, startRequestsImmediately: false, requestSetup: .eager)
        session!.request("http://api.test/get").response { result.value = $0.error }
        try scheduler.runReady()
        session = nil
        try scheduler.runUntilIdle()
        #expect(result.value?.isSessionDeinitializedError == true)
    }

    @Test("a request of a session nothing holds (lazy setup) finishes with sessionDeinitialized instead of never")
    func requestOfAReleasedSession() throws {
        let (scheduler, harness) = getWorld()
        defer { harness.endSimulation() }
        let result = Box<ClientError?>(nil)
        let finished = Box(false)
        // The session is released as soon as the request is made; the handler resumes it later.
        Session(provider: harness, scheduler: scheduler).request("http://api.test/get").response {
            result.value = $0.error
            finished.value = true
        }
        try scheduler.runUntilIdle()
        #expect(finished.value)
        #expect(result.value?.isSessionDeinitializedError == true)

        // Resumed by hand after its session went: the same.
        let manual = Box<ClientError?>(nil)
        let request = Session(provider: harness, scheduler: scheduler, startRequestsImmediately: false).request("http://api.test/get")
        request.response { manual.value = $0.error }
        try scheduler.runUntilIdle()
        request.resume()
        try scheduler.runUntilIdle()
        #expect(manual.value?.isSessionDeinitializedError == true)
    }
}

@Suite("Ending a simulation frees its sessions")
struct EndSimulationTests {
    @Test("after endSimulation() a Session's URLSession, scheduler and queues are freed once the test lets go")
    func endSimulationFreesTheWorld() throws {
        // Given a client that ran a request and was released while its simulation was still
        // around: its URLSession's invalidation callback is parked on the simulated rootQueue.
        weak var weakURLSession: URLSession?
        weak var weakScheduler: SimulatedScheduler?
        do {
            let scheduler = SimulatedScheduler(violationPolicy: .record)
            let network = SimulatedNetwork(scheduler: scheduler)
            network.stub(host: "api.test", path: "/get", .json(200, "{}"))
            let harness = Harness(network: network)
            let log = EventLog()
            var session: Session? = Session(provider: harness, scheduler: scheduler, eventMonitors: [log.monitor()])
            let status = Box<Int?>(nil)
            session!.request("http://api.test/get").response { status.value = $0.response?.statusCode }
            try scheduler.runUntilIdle()
            #expect(status.value == 200)
            weakURLSession = session!.session
            weakScheduler = scheduler
            session = nil
            // When the test ends the simulation.
            harness.endSimulation()
            #expect(scheduler.hasEnded)
        }
        // Then the URLSession (and its sockets) and the whole simulation go away. Its
        // invalidation completes on URLSession's own threads, so this waits for it (bounded).
        let deadline = Date().addingTimeInterval(10)
        while (weakURLSession != nil || weakScheduler != nil) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(weakURLSession == nil)
        #expect(weakScheduler == nil)
    }
}
