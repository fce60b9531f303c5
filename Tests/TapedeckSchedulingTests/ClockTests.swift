import Testing
import TapedeckScheduling

@Suite("SimulatedClock")
struct ClockTests {
    @Test("sleep ends when the simulation reaches the deadline, at exactly that instant")
    func sleepEndsAtDeadline() async throws {
        let scheduler = SimulatedScheduler()
        let clock = SimulatedClock(scheduler: scheduler)
        let sleeper = Task { () -> VirtualInstant in
            try await clock.sleep(for: .seconds(90))
            return clock.now
        }
        try await waitForTimer(on: scheduler)
        try scheduler.advance(by: .seconds(89))
        #expect(scheduler.scheduledTimerCount == 1, "not due yet")
        try scheduler.advance(by: .seconds(1))
        #expect(try await sleeper.value == .zero.advanced(by: .seconds(90)))
    }

    @Test("cancelling the sleeping task ends the sleep with CancellationError and drops its timer")
    func sleepHonoursCancellation() async throws {
        let scheduler = SimulatedScheduler()
        let clock = SimulatedClock(scheduler: scheduler)
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        try await waitForTimer(on: scheduler)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        try scheduler.runUntilIdle()
        #expect(scheduler.now == .zero, "a cancelled sleep must not move the clock")
    }

    @Test("a task cancelled before sleeping never sleeps")
    func cancelledBeforeSleep() async {
        let scheduler = SimulatedScheduler()
        let clock = SimulatedClock(scheduler: scheduler)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(scheduler.scheduledTimerCount == 0)
    }

    @Test("the clock works where any Clock<Duration> is accepted")
    func genericClockUse() async throws {
        func measure<C: Clock<Duration>>(_ clock: C, _ body: () async throws -> Void) async rethrows -> Duration {
            let start = clock.now
            try await body()
            return start.duration(to: clock.now)
        }
        let scheduler = SimulatedScheduler()
        let clock = SimulatedClock(scheduler: scheduler)
        let root = scheduler.makeQueue(label: "root", target: nil)
        let elapsed = try await measure(clock) {
            root.asyncAfter(delay: .milliseconds(1500)) {}
            try scheduler.runUntilIdle()
        }
        #expect(elapsed == .milliseconds(1500))
    }

    /// Waits (by the test's own polling, not the scheduler's) until a task has registered its sleep.
    private func waitForTimer(on scheduler: SimulatedScheduler) async throws {
        for _ in 0..<10_000 where scheduler.scheduledTimerCount == 0 {
            try await Task.sleep(for: .milliseconds(1))
        }
        try #require(scheduler.scheduledTimerCount == 1)
    }

    @Test("durations print as traces, timelines and reports print them, never as raw seconds")
    func compactText() {
        #expect(Duration.nanoseconds(79_886_010).compactText == "79.886ms")
        #expect(Duration.milliseconds(1_250).compactText == "1.25s")
        #expect(Duration.microseconds(12).compactText == "12µs")
        #expect(Duration.seconds(123).compactText == "2m3s")
        #expect(Duration.seconds(5_459.5).compactText == "1h30m59.5s")
        #expect(Duration.zero.compactText == "0s")
        #expect(Duration.milliseconds(-1_500).compactText == "-1.5s")
    }
}
