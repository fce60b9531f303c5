/// The fault decisions a run made that a seed chose: which site fired on which request, attempt
/// and occurrence, and what it drew (a latency fault's jitter). Replaying a schedule makes exactly
/// these fault decisions: a fault not in it does not fire. (Scheduling order and a stub's own
/// jitter still come from the seed.) Written in a file's `schedule:` section.
public struct Schedule: Hashable, Sendable {
    /// The fault decisions: a site fired on an exchange at a point.
    public var faults: [FaultDecision]

    /// A schedule of these decisions.
    public init(faults: [FaultDecision] = []) {
        self.faults = faults
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
