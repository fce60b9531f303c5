// The Swift snippets of TapedeckScheduling's documentation: its DocC article
// (TapedeckScheduling.docc/TapedeckScheduling.md) and the `///` examples of its public
// declarations. One function per snippet, named after the declaration it documents, as written
// plus the least scaffolding (parameters for what the snippet assumes exists); lines added for a
// test are marked `// (test)`.

import Dispatch
import Testing
import TapedeckScheduling

// MARK: - Snippets

/// TapedeckScheduling.docc/TapedeckScheduling.md, "Overview".
private func schedulingArticle_overview() throws -> SimulatedScheduler {
    let scheduler = SimulatedScheduler(seed: 7)
    let root = scheduler.makeQueue(label: "session.rootQueue", target: nil)
    let request = scheduler.makeQueue(label: "session.requestQueue", target: root)
    request.asyncAfter(delay: .seconds(60)) {
        request.preconditionCurrent()       // and on root too: request targets it
        root.preconditionCurrent()          // (test)
    }
    try scheduler.runUntilIdle()            // returns at once; scheduler.now is 60 s
    print(scheduler.traceHash)              // the same for seed 7, every time
    return scheduler
}

/// `SimulatedScheduler`.
private func simulatedScheduler() throws -> SimulatedScheduler {
    let scheduler = SimulatedScheduler(seed: 7)
    let root = scheduler.makeQueue(label: "session.rootQueue", target: nil)
    let request = scheduler.makeQueue(label: "session.requestQueue", target: root)
    request.asyncAfter(deadline: .zero.advanced(by: .seconds(60))) {
        request.preconditionCurrent()   // also on root
        root.preconditionCurrent()      // (test)
    }
    try scheduler.runUntilIdle()        // a minute of virtual time, microseconds of real time
    print(scheduler.now, scheduler.traceHash)
    return scheduler
}

/// `DeterminismCheck` (`buildWorkload(on:)` is the reader's; one is defined below).
private func determinismCheck() throws -> DeterminismReport {
    let report = try DeterminismCheck.run(seed: 42) { scheduler in
        buildWorkload(on: scheduler)
        try scheduler.runUntilIdle()
    }
    #expect(report.isDeterministic, "\(report)")
    return report
}

/// `LiveScheduler`.
private func liveScheduler() -> (root: LiveQueue, request: LiveQueue) {
    let scheduler = LiveScheduler()
    let root = scheduler.makeQueue(wrapping: DispatchQueue(label: "app.network", attributes: .concurrent))
    let request = scheduler.makeQueue(label: "\(root.label).requestQueue", target: root)
    return (root, request)
}

/// `SimulationRandom`.
private func simulationRandom() -> Int {
    let random = SimulationRandom(seed: 42)
    var jitter = random.stream("network.latency")
    let extra = jitter.next(below: 1_000)
    return extra
}

/// `Scheduler`.
private func makeSessionQueues(on scheduler: any Scheduler) -> (root: any SchedulerQueue, request: any SchedulerQueue) {
    let root = scheduler.makeQueue(label: "org.example.session.rootQueue", target: nil)
    let request = scheduler.makeQueue(label: "org.example.session.requestQueue", target: root)
    return (root, request)
}

/// `SchedulingChoice` (`scheduler`'s workload, set up before the run, is a parameter).
private func schedulingChoice(workload: (SimulatedScheduler) -> Void) throws -> (recorded: SimulatedScheduler, replay: SimulatedScheduler) {
    let scheduler = SimulatedScheduler(seed: 9, choices: .recording)
    workload(scheduler)   // (test)
    try scheduler.runUntilIdle()
    let replay = SimulatedScheduler(choices: .replaying(scheduler.recordedChoices))   // the same order
    return (scheduler, replay)
}

/// `RootChoiceSource`.
private func rootChoiceSource() -> (seeded: SimulatedScheduler, replay: SimulatedScheduler) {
    let seeded = SimulatedScheduler(seed: 4)                                  // .seeded
    let replay = SimulatedScheduler(choices: .replaying([SchedulingChoice(point: 3, rank: 1)]))
    return (seeded, replay)
}

/// `SimulatedScheduler.end()`.
private func end(scheduler: SimulatedScheduler) throws {
    try scheduler.runUntilIdle()
    scheduler.end()          // a callback arriving now is dropped, not parked for ever
}

/// `ExternalExpectation`. `task` and `network` stand for the bridge's (a URLSession task whose
/// resume causes a callback on another thread, and the network whose work the callback starts):
/// here a stand-in task calls back on a GCD thread, and a stand-in network records the start.
private func externalExpectation(
    scheduler: SimulatedScheduler, task: CallbackOnAnotherThread, networkQueue: SimulatedQueue, network: NetworkStandIn
) {
    let ticket = scheduler.expectExternal("startLoading #3")
    task.callback = {   // (test)
        ticket.arrive(on: networkQueue) { network.start(exchange: 3) }
    }   // (test)
    task.resume()                          // causes the callback on a URLSession thread, which calls:
}

/// `SimulatedClock`.
private func simulatedClock(scheduler: SimulatedScheduler) async throws -> Task<Void, any Error> {
    let clock = SimulatedClock(scheduler: scheduler)
    let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
    // ... once the task has started sleeping:
    try await waitForTimer(on: scheduler)   // (test)
    try scheduler.advance(by: .seconds(60))   // the sleep ends; no real minute passes
    return sleeper
}

/// `VirtualInstant`.
private func virtualInstant() -> VirtualInstant {
    let t = VirtualInstant.zero.advanced(by: .milliseconds(1500))
    print(t)                 // 1.5s
    print(t.nanoseconds)     // 1500000000
    return t
}

// MARK: - Tests

@Suite("TapedeckScheduling's DocC and /// snippets compile and do what they say")
struct TapedeckSchedulingSnippetTests {
    @Test("The article's and SimulatedScheduler's examples: a minute of backoff ends with the clock at 60 s, same hash every time")
    func overview() throws {
        // When the article's example runs twice, Then the clock reads 60 s and the hash is the same
        let article = try schedulingArticle_overview()
        let again = try schedulingArticle_overview()
        #expect(article.now == VirtualInstant.zero.advanced(by: .seconds(60)))
        #expect(article.traceHash == again.traceHash)

        // And SimulatedScheduler's example (a deadline rather than a delay) ends at 60 s too
        let scheduler = try simulatedScheduler()
        #expect(scheduler.now == VirtualInstant.zero.advanced(by: .seconds(60)))
    }

    @Test("DeterminismCheck: a workload with tied roots is deterministic from its seed")
    func determinism() throws {
        // When DeterminismCheck's example runs a workload with ties between roots, Then both runs took the same steps
        let report = try determinismCheck()
        #expect(report.isDeterministic)
        #expect(report.hashes.count == 2)
    }

    @Test("LiveScheduler: the request queue wraps into the supplied root's tree")
    func live() {
        // When LiveScheduler's example wraps a concurrent DispatchQueue, Then work on request is also on root
        let (root, request) = liveScheduler()
        #expect(root.label == "app.network")
        #expect(request.targetChain == ["app.network.requestQueue", "app.network"])
        let onRoot = request.dispatchQueue.sync { root.isCurrent }
        #expect(onRoot)
    }

    @Test("SimulationRandom: a stream depends only on the seed and its name")
    func random() {
        #expect(simulationRandom() == simulationRandom())
        #expect(simulationRandom() < 1_000)
    }

    @Test("Scheduler: the queue tree puts request on root")
    func sessionQueues() throws {
        // When Scheduler's example makes the queues, Then request drains through root
        let scheduler = SimulatedScheduler(seed: 1)
        let (root, request) = makeSessionQueues(on: scheduler)
        #expect(request.targetChain == ["org.example.session.requestQueue", "org.example.session.rootQueue"])
        #expect(root.target == nil)
    }

    @Test("SchedulingChoice: replaying the recorded choices gives the recorded order")
    func choices() throws {
        // Given four roots ready at once, each recording its name
        func workload(_ scheduler: SimulatedScheduler) {
            for name in ["a", "b", "c", "d"] {
                scheduler.makeQueue(label: name, target: nil).async { scheduler.record("ran", name) }
            }
        }
        // When the recorded run's choices are replayed
        let (recorded, replay) = try schedulingChoice(workload: workload)
        workload(replay)
        try replay.runUntilIdle()
        // Then the same roots ran in the same order
        let order = { (scheduler: SimulatedScheduler) in scheduler.trace.filter { $0.event == "ran" }.map(\.payload) }
        #expect(order(replay) == order(recorded))
        #expect(!recorded.recordedChoices.isEmpty, "seed 9 should not pick FIFO's order here")
    }

    @Test("RootChoiceSource: the seeded scheduler has its seed, the replaying one takes its choices")
    func rootChoices() throws {
        // Given RootChoiceSource's example schedulers
        let (seeded, replay) = rootChoiceSource()
        #expect(seeded.seed == 4)
        // When four roots are ready at once on the replaying one, Then it made exactly the choice given
        for name in ["a", "b", "c", "d"] {
            replay.makeQueue(label: name, target: nil).async { replay.record("ran", name) }
        }
        try replay.runUntilIdle()
        #expect(replay.recordedChoices == [SchedulingChoice(point: 3, rank: 1)])
    }

    @Test("end(): work submitted after the end is dropped")
    func ending() throws {
        // Given a scheduler ended by end()'s example, When work is submitted, Then it never runs
        let scheduler = SimulatedScheduler(seed: 1)
        let queue = scheduler.makeQueue(label: "q", target: nil)
        try end(scheduler: scheduler)
        queue.async { scheduler.record("late") }
        try scheduler.runUntilIdle()
        #expect(scheduler.hasEnded)
        #expect(!scheduler.trace.contains { $0.event == "late" })
    }

    @Test("ExternalExpectation: the callback from another thread runs on the queue given, as a traced arrival")
    func external() throws {
        // Given ExternalExpectation's example, whose callback comes from a GCD thread
        let scheduler = SimulatedScheduler(seed: 1)
        let networkQueue = scheduler.makeSimulatedQueue(label: "tapedeck.network", target: nil)
        let network = NetworkStandIn(scheduler: scheduler)
        externalExpectation(scheduler: scheduler, task: CallbackOnAnotherThread(), networkQueue: networkQueue, network: network)
        // When the simulation runs, Then it waited for the arrival and ran its work on the queue named
        try scheduler.runUntilIdle()
        let steps = scheduler.trace.filter { $0.event == "arrive" || $0.event == "start" }
        #expect(steps.map(\.event) == ["arrive", "start"], "\(scheduler.trace)")
        #expect(steps.last?.queue == "tapedeck.network")
        #expect(scheduler.outstandingExpectationCount == 0)
    }

    @Test("SimulatedClock: advancing the scheduler by a minute ends a minute's sleep")
    func clock() async throws {
        // When SimulatedClock's example sleeps a minute and advances the scheduler a minute, Then the sleep ends at 60 s
        let scheduler = SimulatedScheduler(seed: 1)
        let sleeper = try await simulatedClock(scheduler: scheduler)
        try await sleeper.value
        #expect(scheduler.now == VirtualInstant.zero.advanced(by: .seconds(60)))
    }

    @Test("VirtualInstant: 1500 ms prints as 1.5s and is 1,500,000,000 ns")
    func instant() {
        let t = virtualInstant()
        #expect(t.description == "1.5s")
        #expect(t.nanoseconds == 1_500_000_000)
    }
}

// MARK: - What the examples leave to the reader

/// `buildWorkload(on:)`: a Session-shaped tree with work on two roots tied at the same instants.
private func buildWorkload(on scheduler: SimulatedScheduler) {
    let root = scheduler.makeQueue(label: "session.rootQueue", target: nil)
    let other = scheduler.makeQueue(label: "other.rootQueue", target: nil)
    for index in 0..<5 {
        root.asyncAfter(delay: .milliseconds(10 * index)) { scheduler.record("root", "\(index)") }
        other.asyncAfter(delay: .milliseconds(10 * index)) { scheduler.record("other", "\(index)") }
    }
}

/// A task whose `resume()` calls `callback` on a GCD thread, as URLSession calls its protocol.
final class CallbackOnAnotherThread: @unchecked Sendable {
    // @unchecked Sendable: `callback` is set before `resume()` and only read after it.
    var callback: (@Sendable () -> Void)?

    func resume() {
        guard let callback else { return }
        DispatchQueue.global().async { callback() }
    }
}

/// Stands for the bridge's network: starting an exchange is recorded in the trace.
struct NetworkStandIn: Sendable {
    let scheduler: SimulatedScheduler

    func start(exchange: Int) {
        scheduler.record("start", "exchange \(exchange)")
    }
}

/// Waits (bounded) until the sleeping task has put its timer on the scheduler: the condition, not
/// the time waited, decides what the test sees.
private func waitForTimer(on scheduler: SimulatedScheduler) async throws {
    for _ in 0..<10_000 where scheduler.scheduledTimerCount == 0 {
        await Task.yield()
        try await Task.sleep(for: .milliseconds(1))
    }
    try #require(scheduler.scheduledTimerCount == 1)
}
