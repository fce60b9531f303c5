public import Foundation

/// Whether a target goes to the network or is answered by its endpoint's sample response.
///
/// Stubs run on the session's scheduler: under a `SimulatedScheduler` a `.delayed(seconds: 5)` stub
/// costs no wall time and completes at exactly five virtual seconds after the request.
public enum StubBehavior: Hashable, Sendable {
    /// Send the request through the session (in tests: Tapedeck's simulated network or a cassette).
    case never
    /// Answer with the sample response at the current instant, on the callback queue.
    case immediate
    /// Answer with the sample response after this many seconds of the scheduler's clock.
    case delayed(seconds: TimeInterval)
}
