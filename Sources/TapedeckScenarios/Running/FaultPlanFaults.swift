public import Foundation
public import TapedeckNetwork
public import TapedeckScheduling

/// A fault plan struck into any client's traffic on the simulator: the network's fault hook for
/// the `faults:` of a scenario file or of a plan `tapedeck serve --faults` reads, so a test of
/// your own URLSession, Alamofire or Moya code (on a `Tape`, or any `SimulatedNetwork`) gets the
/// same faults, drawn the same way from a seed, as `tapedeck run` and `tapedeck serve` give.
///
/// ```swift
/// let plan = try FaultPlan.load(URL(fileURLWithPath: "fixtures/faults/flaky.yaml"))
/// let faults = FaultPlanFaults(plan: plan, seed: 7)
/// network.faults = faults                     // or: tape.injectFaults(plan) in TapedeckTesting
/// // … run the client …
/// for firing in faults.fired { print(firing) } // fault slow (latency) on GET https://api.test/items attempt 1 at 0.000s
/// ```
///
/// Each site is enabled or not for the whole run, then fires per occurrence with its
/// probability, as in a scenario (BUGGIFY's shape). A request your client sends has no name, so
/// its attempt number counts the exchanges with the same method and URL, and a site's `route`,
/// `attempts`, `exchanges` and `window` select as they do in a scenario. A `tokenExpiry` site needs
/// the scenario's token endpoint: it is listed in ``unsupported`` and never fires.
public final class FaultPlanFaults: FaultHook {
    /// A fault that fired.
    public struct Fired: Hashable, Sendable, CustomStringConvertible {
        /// The site's name.
        public var site: String
        /// The kind's name (`latency`, `reset`, `status`, …).
        public var kind: String
        /// The request it struck: its method and URL.
        public var method: String
        /// The request's URL.
        public var url: URL
        /// Which attempt of that request (the exchanges so far with its method and URL, from 1).
        public var attempt: Int
        /// The network's exchange number.
        public var exchange: Int
        /// When, on the virtual clock.
        public var time: VirtualInstant

        /// `fault NAME (KIND) on METHOD URL attempt N at T`.
        public var description: String { "fault \(site) (\(kind)) on \(method) \(url.absoluteString) attempt \(attempt) at \(time)" }
    }

    /// The plan, as given.
    public let plan: FaultPlan
    /// The seed the draws come from.
    public let seed: UInt64
    /// Sites whose kind a client's own traffic cannot get (`tokenExpiry`), as `name (kind)`: they never fire.
    public let unsupported: [String]
    private let sites: FaultSites

    /// The faults of `plan` drawn from `seed` (by default the plan's own `seed:`, else 1).
    public init(plan: FaultPlan, seed: UInt64? = nil) {
        self.plan = plan
        let seed = seed ?? plan.seed ?? 1
        self.seed = seed
        let supported = plan.faults.filter { if case .tokenExpiry = $0.kind { false } else { true } }
        unsupported = plan.faults.filter { if case .tokenExpiry = $0.kind { true } else { false } }.map { "\($0.name) (\($0.kind.name))" }
        sites = FaultSites(supported, random: SimulationRandom(seed: seed), schedule: nil)
    }

    /// The sites this seed enabled (the others never fire in this run).
    public var enabledSites: [String] { sites.enabledSites }

    /// The faults that fired so far, in order (a cut at or past a body's end changed nothing and is left out).
    public var fired: [Fired] {
        let kinds = Dictionary(plan.faults.map { ($0.name, $0.kind.name) }, uniquingKeysWith: { first, _ in first })
        return sites.fired.filter(\.effective).map { firing in
            Fired(site: firing.site, kind: kinds[firing.site] ?? "", method: firing.method, url: firing.url,
                  attempt: firing.decision.attempt, exchange: firing.exchange, time: firing.time)
        }
    }

    /// What the network does at `point` for this exchange (FaultHook).
    public func action(at point: FaultPoint, context: FaultContext, random: inout SeededGenerator) -> FaultAction {
        sites.action(at: point, context: context, random: &random)
    }

    /// A fired cut that changed nothing is not reported (FaultHook).
    public func actionHadNoEffect(_ action: FaultAction, at point: FaultPoint, exchange: Int) {
        sites.actionHadNoEffect(action, at: point, exchange: exchange)
    }
}
