// The Swift snippet of docs/scheduling.md ("Work from other threads"). It is partial on purpose
// (`// ... on that thread:` separates what runs where); its nearest compilable form puts the last
// line in the callback a stand-in task makes on a GCD thread, and `network` is a stand-in whose
// `start(exchange:)` records a trace step (see TapedeckSchedulingSnippets.swift). Lines added for
// the test are marked `// (test)`.

import Testing
import TapedeckScheduling

/// docs/scheduling.md, "Work from other threads", in a job of the simulation (as its comment says).
private func scheduling_workFromOtherThreads(
    scheduler: SimulatedScheduler, task: CallbackOnAnotherThread, networkRoot: SimulatedQueue, network: NetworkStandIn
) {
    let ticket = scheduler.expectExternal("startLoading #3")   // from simulated code: numbered deterministically
    task.callback = {   // (test)
        // ... on that thread:
        ticket.arrive(on: networkRoot) { network.start(exchange: 3) }
    }   // (test)
    task.resume()                                               // causes a callback on a URLSession thread
}

@Suite("docs/scheduling.md: the snippet compiles and does what the page says")
struct SchedulingDocSnippetTests {
    @Test("An expected callback from another thread is taken in as a traced arrival, its work run on the queue named")
    func workFromOtherThreads() throws {
        // Given a job that registers the expectation, then causes a callback on a GCD thread
        let scheduler = SimulatedScheduler(seed: 5)
        let client = scheduler.makeSimulatedQueue(label: "client", target: nil)
        let networkRoot = scheduler.makeSimulatedQueue(label: "networkRoot", target: nil)
        let network = NetworkStandIn(scheduler: scheduler)
        client.async {
            scheduling_workFromOtherThreads(scheduler: scheduler, task: CallbackOnAnotherThread(), networkRoot: networkRoot, network: network)
        }

        // When the simulation runs (it waits for the arrival)
        try scheduler.runUntilIdle()

        // Then the expectation, its arrival and the work appear in that order, the work on networkRoot
        let steps = scheduler.trace.filter { ["expect", "arrive", "start"].contains($0.event) }
        #expect(steps.map(\.event) == ["expect", "arrive", "start"], "\(scheduler.trace)")
        #expect(steps.first?.payload.hasSuffix("startLoading #3") == true)
        #expect(steps.last?.queue == "networkRoot")
        #expect(scheduler.untrackedSubmissionCount == 0)
    }
}
