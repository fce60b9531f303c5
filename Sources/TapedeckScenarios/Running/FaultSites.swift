import Foundation
import Synchronization
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

/// The scenario's fault sites as the network's fault hook.
///
/// BUGGIFY's shape: each site is enabled or not for the whole run (a draw from the site's own
/// stream of the seed), then an enabled site fires at each occurrence with its probability (a
/// draw from another stream of its own). Streams per site keep one site's draws from shifting
/// another's. With a ``Schedule``, no draw happens: a site fires exactly where a decision says.
/// Every firing is logged as a ``FaultDecision``, so a run's decisions can be replayed or shrunk.
final class FaultSites: FaultHook {
    struct Fired: Sendable {
        let site: String
        let decision: FaultDecision
        let exchange: Int
        let point: FaultPoint
        let action: FaultAction
        let time: VirtualInstant
        /// The request it struck.
        let method: String
        let url: URL
        /// False for a firing that changed nothing (a cut past the body): outcomes leave it out.
        var effective = true
    }

    private struct Site: Sendable {
        let definition: FaultSite
        let enabled: Bool
    }

    /// Where each occurrence's draws come from: a stream of its own per site, request, attempt
    /// and occurrence, so whether one site fires (or is tried at all) never shifts another's.
    private let random: SimulationRandom

    private struct State: Sendable {
        var sites: [Site]
        /// How often each site was eligible, per (site, request, attempt): occurrence numbers.
        var occurrences: [String: Int] = [:]
        var fired: [Fired] = []
        /// Decisions of a replayed schedule not used yet.
        var pending: [FaultDecision]?
    }

    private let state: Mutex<State>
    /// Maps virtual time to the wall dates written into `Date`/`Retry-After` headers.
    static let epoch = TransferMetrics.referenceDate   // 2026-01-01T00:00:00Z

    init(_ sites: [FaultSite], random: SimulationRandom, schedule: Schedule?) {
        let built = sites.map { site -> Site in
            var enabling = random.stream("fault.\(site.name).enabled")
            return Site(definition: site, enabled: schedule != nil || enabling.chance(site.enabledPerMille, in: 1_000))
        }
        self.random = random
        state = Mutex(State(sites: built, pending: schedule?.faults))
    }

    /// The sites enabled for this run (every one, under a schedule).
    var enabledSites: [String] {
        state.withLock { $0.sites.filter(\.enabled).map(\.definition.name) }
    }

    /// Every firing so far, in order, with those that changed nothing (`effective` false).
    var fired: [Fired] { state.withLock { $0.fired } }

    /// Every eligible site is tried, in file order, and those that fire combine as `FaultStack`
    /// says: a latency and a status make a slow 503.
    func action(at point: FaultPoint, context: FaultContext, random: inout SeededGenerator) -> FaultAction {
        state.withLock { state in
            var actions: [FaultAction] = []
            var stack = FaultStack()
            for index in state.sites.indices {
                let site = state.sites[index].definition
                guard state.sites[index].enabled, stack.admits(site.kind), Self.strikes(site.kind, at: point), eligible(site, context) else { continue }
                let key = "\(site.name)|\(context.tag ?? "")|\(context.attempt)"
                state.occurrences[key, default: 0] += 1
                let occurrence = state.occurrences[key]!
                var decision = FaultDecision(site: site.name, request: context.tag, attempt: context.attempt, occurrence: occurrence)
                if var pending = state.pending {
                    guard let position = pending.firstIndex(where: {
                        $0.site == decision.site && $0.request == decision.request && $0.attempt == decision.attempt && $0.occurrence == occurrence
                    }) else { continue }
                    // A hand-edited schedule's draw stays within what the site could draw.
                    decision.drawn = Self.clamped(pending.remove(at: position).drawn, for: site.kind)
                    state.pending = pending
                } else {
                    // Keyed draws, not one sequence per site: a site kept from trying (an earlier
                    // one fired a kind that excludes it) or another site changed leaves these as they are.
                    var fire = self.random.stream("fault.\(site.name).fire|\(key)|\(occurrence)")
                    guard fire.chance(site.probabilityPerMille, in: 1_000) else { continue }
                    var draw = self.random.stream("fault.\(site.name).draw|\(key)|\(occurrence)")
                    decision.drawn = Self.draw(site.kind, &draw)
                }
                let action = Self.action(site.kind, drawn: decision.drawn, time: context.time)
                var fired = Fired(site: site.name, decision: decision, exchange: context.exchange, point: point, action: action, time: context.time,
                                  method: context.request.method.rawValue, url: context.request.url)
                if site.kind.cutsNothing(ofBody: context.bodyBytes) {
                    // A cut at or past the body changes nothing: its decision is kept (a replay of
                    // the schedule takes the same steps), and a later site may still decide.
                    fired.effective = false
                    state.fired.append(fired)
                    continue
                }
                state.fired.append(fired)
                actions.append(action)
                stack.fired(site.kind)
            }
            return .combining(actions)
        }
    }

    /// A reset or truncation past the body is no firing: it leaves the outcome's faults (its
    /// decision stays in the schedule, so a replay takes the same steps).
    func actionHadNoEffect(_ action: FaultAction, at point: FaultPoint, exchange: Int) {
        state.withLock { state in
            guard let index = state.fired.lastIndex(where: { $0.exchange == exchange && $0.point == point && $0.action == action }) else { return }
            state.fired[index].effective = false
        }
    }

    private func eligible(_ site: FaultSite, _ context: FaultContext) -> Bool {
        if let pattern = site.pattern, !pattern.matches(method: context.request.method.rawValue, url: context.request.url) { return false }
        if let attempts = site.attempts, !attempts.contains(context.attempt) { return false }
        if let exchanges = site.exchanges, !exchanges.contains(context.exchange) { return false }
        let elapsed = VirtualInstant.zero.duration(to: context.time)
        if let from = site.from, elapsed < from { return false }
        if let until = site.until, elapsed >= until { return false }
        return true
    }

    /// Whether a kind of fault strikes at `point` (a token expiry is not the hook's: the token
    /// server applies it).
    static func strikes(_ kind: FaultKind, at point: FaultPoint) -> Bool {
        switch (kind, point) {
        case (.refused, .beforeConnect), (.hostNotFound, .beforeConnect), (.notConnected, .beforeConnect): return true
        case (.metrics, .metricsDelivery), (.duplicateCompletion, .completion): return true
        case (.latency, .responseHead), (.bandwidth, .responseHead), (.stall, .responseHead), (.connectionLost, .responseHead),
             (.reset, .responseHead), (.truncate, .responseHead), (.corruptGzip, .responseHead), (.status, .responseHead):
            return true
        default: return false
        }
    }

    /// `drawn` within 0...the site's jitter (0 for a kind that draws nothing).
    static func clamped(_ drawn: Int64, for kind: FaultKind) -> Int64 {
        guard case let .latency(_, jitter) = kind else { return 0 }
        return min(max(0, drawn), Int64(jitter.wholeNanoseconds))
    }

    /// The value a kind draws when it fires (a latency's jitter, in nanoseconds).
    private static func draw(_ kind: FaultKind, _ random: inout SeededGenerator) -> Int64 {
        guard case let .latency(_, jitter) = kind, jitter > .zero else { return 0 }
        return Int64(random.next(below: Int(jitter.wholeNanoseconds) + 1))
    }

    /// What the network does for a kind that fired.
    static func action(_ kind: FaultKind, drawn: Int64, time: VirtualInstant) -> FaultAction {
        switch kind {
        case let .latency(delay, _): return .delay(delay + .nanoseconds(drawn))
        case let .bandwidth(rate): return .throttle(bytesPerSecond: rate)
        case .stall: return .stall
        case .refused: return .fail(.cannotConnectToHost)
        case .hostNotFound: return .fail(.cannotFindHost)
        case .notConnected: return .fail(.notConnectedToInternet)
        case .connectionLost: return .fail(.networkConnectionLost)
        case let .reset(bytes): return .resetAfter(bytes: bytes)
        case let .truncate(bytes): return .truncate(bytes: bytes)
        case .corruptGzip: return .corruptGzip
        case let .status(status, headers, retryAfter, retryAfterDate):
            var fields: [String: String] = [:]
            for header in headers { fields[header.name] = header.value }
            if let retryAfter { fields["Retry-After"] = Self.seconds(retryAfter) }
            if let retryAfterDate {
                let now = VirtualInstant.zero.duration(to: time).timeInterval
                let (date, retry) = HTTPDate.retryAfterFields(now: epoch.addingTimeInterval(now), after: retryAfterDate)
                fields["Date"] = date
                fields["Retry-After"] = retry
            }
            return .overrideResponse(status: status, headers: fields)
        case let .metrics(order):
            switch order {
            case .before: return .deliverMetrics(.beforeCompletion)
            case .after: return .deliverMetrics(.afterCompletion)
            case .missing: return .deliverMetrics(.missing)
            case .duplicate: return .deliverMetrics(.duplicate)
            }
        case .duplicateCompletion: return .duplicateCompletion
        case .tokenExpiry: return .proceed
        }
    }

    /// `Retry-After` in whole seconds, as RFC 9110 writes it (`delay-seconds` is digits only): a
    /// fraction rounds up, so a client never retries before the file said it may (as `serve` does).
    private static func seconds(_ duration: Duration) -> String {
        String(Int(duration.timeInterval.rounded(.up)))
    }
}
