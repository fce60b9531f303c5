import Foundation
import TapedeckScheduling

/// How a serving harness moves virtual time for clients on their own threads.
///
/// Virtual time cannot reach a client's own GCD timers (`DispatchQueue.asyncAfter`, Alamofire's
/// retry delays, a URLSession's own timers): they run on the wall clock whatever the harness does.
/// `.instant` answers as soon as the simulation can (recorded and injected delays cost nothing);
/// `.wallClock(scale:)` lets a virtual duration `d` take `d × scale` of real time, so the network's
/// delays compare with the client's timers as they would live.
///
/// ```swift
/// try harness.serve(pacing: .wallClock(scale: 0.1)) { try client.run() }   // 10× faster than recorded
/// ```
public enum Pacing: Hashable, Sendable {
    /// Run the simulation to idle whenever work arrives: every delay takes no real time.
    case instant
    /// Virtual time follows the wall clock: a virtual second lasts `scale` real seconds.
    case wallClock(scale: Double)
}

/// The thread that runs a harness's simulation whenever a client on its own threads gives it work
/// (see ``Harness/startServing(pacing:)``). It sleeps otherwise.
///
/// This is outside the simulated path: it waits on a condition (and, with wall-clock pacing,
/// until a wall-clock instant) for work to arrive. What it runs is the ordinary simulation.
final class ServingDriver: @unchecked Sendable {
    // @unchecked Sendable: the mutable fields are guarded by `condition`; `harness` and `pacing`
    // are immutable.
    private let condition = NSCondition()
    private var wakeRequested = false
    private var stopRequested = false
    private var running = false
    private var exited = false
    /// With wall-clock pacing, when the earliest timer is due in real time.
    private var dueAt: ContinuousClock.Instant?
    private let harness: Harness
    let pacing: Pacing
    private let anchor: (wall: ContinuousClock.Instant, virtual: VirtualInstant)

    init(harness: Harness, pacing: Pacing) {
        self.harness = harness
        self.pacing = pacing
        anchor = (ContinuousClock.now, harness.scheduler.now)
    }

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "tapedeck.serving"
        thread.start()
        wake()   // take in whatever arrived before serving began
    }

    /// Asks for a run (work arrived). Any thread.
    func wake() {
        condition.lock()
        wakeRequested = true
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the thread after the run in progress, if any.
    func stop() {
        condition.lock()
        stopRequested = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }

    /// Waits until no run is in progress or asked for and `isDone` holds, or until `deadline`.
    /// `isDone` is evaluated with the driver's lock held; it must not wait for the driver.
    func wait(until deadline: ContinuousClock.Instant, isDone: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if !running && !wakeRequested && isDone() { return true }
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return false }
            // Woken by every run's end; a short cap covers a state change that wakes nobody
            // (a link finishing inside a run is covered by the run's end).
            _ = condition.wait(until: Date(timeIntervalSinceNow: min(left.timeInterval, 0.05)))
        }
    }

    private func loop() {
        condition.lock()
        while true {
            while !wakeRequested && !stopRequested {
                if let dueAt {
                    let left = ContinuousClock.now.duration(to: dueAt)
                    if left <= .zero { break }
                    _ = condition.wait(until: Date(timeIntervalSinceNow: left.timeInterval))
                } else {
                    condition.wait()
                }
            }
            if stopRequested { break }
            wakeRequested = false
            running = true
            condition.unlock()
            let next = harness.serveRound(pacing: pacing, target: virtualTarget())
            condition.lock()
            dueAt = next.map(wallInstant(for:))
            running = false
            condition.broadcast()
        }
        exited = true
        condition.broadcast()
        condition.unlock()
    }

    /// With wall-clock pacing, the virtual instant matching the wall clock now.
    private func virtualTarget() -> VirtualInstant? {
        guard case let .wallClock(scale) = pacing, scale > 0 else { return nil }
        let elapsed = anchor.wall.duration(to: .now)
        return anchor.virtual.advanced(by: elapsed / scale)
    }

    private func wallInstant(for instant: VirtualInstant) -> ContinuousClock.Instant {
        guard case let .wallClock(scale) = pacing, scale > 0 else { return .now }
        let virtual = Duration.nanoseconds(instant.nanoseconds - anchor.virtual.nanoseconds)
        return anchor.wall.advanced(by: virtual * scale)
    }
}
