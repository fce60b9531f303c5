import Foundation
public import TapedeckBridge
public import TapedeckNetwork
public import TapedeckScheduling

/// What a run hands to code that builds its own client: the simulated scheduler, the network
/// (answering from the scenario's traffic, with its faults), the harness that makes URLSessions on
/// it, and the queue the scenario's script runs on.
///
/// ```swift
/// let outcome = try ScenarioRunner().run(scenario, seed: 3) { world in
///     Session(provider: world.harness, scheduler: world.scheduler, interceptor: MyTokenInterceptor())
/// }
/// ```
public struct ScenarioWorld: Sendable {
    /// The run's scheduler (seeded).
    public let scheduler: SimulatedScheduler
    /// The simulated network.
    public let network: SimulatedNetwork
    /// Makes URLSessions whose traffic goes to the network.
    public let harness: Harness
    /// The app's queue: where the script sends and cancels requests.
    public let appQueue: SimulatedQueue
    /// The scenario being run.
    public let scenario: Scenario
}
