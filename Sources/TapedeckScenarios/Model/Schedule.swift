public import TapedeckScheduling

/// The decisions a run made that a seed chose. Replaying a schedule makes exactly these fault
/// decisions: a fault not in it does not fire. An ``exact`` schedule also fixes every other choice
/// — the order of ready work (``order``), latency jitter (``jitter``) and metrics order
/// (``metrics``); what it does not list takes the default (FIFO order, no jitter, metrics before
/// the completion), so the seed decides nothing. Without `exact`, scheduling order and a stub's
/// jitter still come from the seed. Written in a file's `schedule:` section.
///
/// ```swift
/// var scenario = try Scenario.load(url)
/// scenario.schedule = Schedule(faults: [FaultDecision(site: "flaky", request: "items#2", attempt: 1)], exact: true)
/// ```
public struct Schedule: Hashable, Sendable {
    /// The fault decisions: a site fired on an exchange at a point.
    public var faults: [FaultDecision]
    /// Whether everything else is fixed too (the defaults where no decision is listed).
    public var exact: Bool
    /// Choices between ready roots other than FIFO's (exact schedules only).
    public var order: [SchedulingChoice]
    /// Latency jitter draws other than zero (exact schedules only).
    public var jitter: [JitterDecision]
    /// Tasks whose metrics come after the completion (exact schedules only).
    public var metrics: [MetricsDecision]
    /// Where the schedule came from (a shrunk seed), if stated; informational.
    public var origin: Origin?

    /// The scenario file and seed a schedule was taken from.
    public struct Origin: Hashable, Sendable {
        /// The original scenario file (as given to the tool).
        public var file: String
        /// The seed whose decisions these are.
        public var seed: UInt64
        /// What made the schedule (`tapedeck shrink`).
        public var tool: String

        /// An origin.
        public init(file: String, seed: UInt64, tool: String) {
            self.file = file
            self.seed = seed
            self.tool = tool
        }
    }

    /// A schedule of these decisions.
    public init(faults: [FaultDecision] = [], exact: Bool = false, order: [SchedulingChoice] = [], jitter: [JitterDecision] = [],
                metrics: [MetricsDecision] = []) {
        self.faults = faults
        self.exact = exact
        self.order = order
        self.jitter = jitter
        self.metrics = metrics
    }
}

/// One fault that fired: which site, on which exchange (its request's name and attempt), at which
/// point, and the value it drew (a latency's jitter), if any.
public struct FaultDecision: Hashable, Sendable, CustomStringConvertible {
    /// The fault site's name.
    public var site: String
    /// The request's name (its tag), or nil for an untagged request.
    public var request: String?
    /// The attempt of that request (1: the first).
    public var attempt: Int
    /// Which occurrence of the site on that attempt (body chunks may see a site several times).
    public var occurrence: Int
    /// A drawn value the action depends on (nanoseconds of jitter); 0 when none.
    public var drawn: Int64

    /// A decision.
    public init(site: String, request: String?, attempt: Int, occurrence: Int = 1, drawn: Int64 = 0) {
        self.site = site
        self.request = request
        self.attempt = attempt
        self.occurrence = occurrence
        self.drawn = drawn
    }

    /// `flaky on items#2 attempt 1`.
    public var description: String {
        "\(site) on \(request ?? "?") attempt \(attempt)" + (occurrence > 1 ? " (occurrence \(occurrence))" : "")
            + (drawn != 0 ? " drew \(drawn)ns" : "")
    }
}
