import Foundation

extension Shrinker {
    /// The search's state: the scenario's fault sites (simplified as it goes), the runs made, a
    /// cache of tested candidates, and the steps so far.
    struct Search {
        struct Key: Hashable {
            let sites: [FaultSite]
            let decisions: [Decision]
        }

        let base: Scenario
        let failure: FailureIdentity
        let runner: ScenarioRunner
        let maxRuns: Int
        let progress: (Step) -> Void
        /// The fault sites the written scenario will have.
        var sites: [FaultSite]
        var runs = 0
        var steps: [Step] = []
        var cache: [Key: Bool] = [:]
        var lastIdentity: FailureIdentity?

        init(base: Scenario, failure: FailureIdentity, runner: ScenarioRunner, maxRuns: Int, progress: @escaping (Step) -> Void) {
            self.base = base
            self.failure = failure
            self.runner = runner
            self.maxRuns = maxRuns
            self.progress = progress
            sites = base.faults.map { site in
                var explicit = site
                explicit.probabilityPerMille = 1_000
                explicit.enabledPerMille = 1_000
                return explicit
            }
        }

        mutating func note(_ phase: String, _ detail: String, _ decisions: Int) {
            let step = Step(phase: phase, detail: detail, decisions: decisions, runs: runs)
            steps.append(step)
            progress(step)
        }

        /// True once a candidate could not be tried for want of runs.
        var exhausted = false

        /// Whether another candidate may run: one run is kept for the final verification.
        var budgetLeft: Bool { runs < maxRuns - 1 }

        /// Whether `decisions` with `sites` fail the same way (nil: out of runs).
        mutating func reproduces(_ sites: [FaultSite], _ decisions: [Decision]) -> Bool? {
            let key = Key(sites: sites, decisions: decisions)
            if let known = cache[key] { return known }
            guard budgetLeft else {
                exhausted = true
                return nil
            }
            var scenario = base
            scenario.faults = sites
            scenario.schedule = Schedule(exactly: decisions)
            runs += 1
            let identity = (try? runner.run(scenario, seed: base.seed)).map(FailureIdentity.init)
            lastIdentity = identity
            let same = identity == failure
            cache[key] = same
            return same
        }

        /// Tries without all scheduling choices, all jitter draws, all metrics orders, all faults.
        mutating func dropKinds(_ decisions: [Decision]) -> [Decision] {
            var current = decisions
            let kinds: [(String, (Decision) -> Bool)] = [
                ("scheduling choices", { if case .order = $0 { return true }; return false }),
                ("jitter draws", { if case .jitter = $0 { return true }; return false }),
                ("metrics orders", { if case .metrics = $0 { return true }; return false }),
                ("fault firings", { if case .fault = $0 { return true }; return false }),
            ]
            for (name, isKind) in kinds {
                let without = current.filter { !isKind($0) }
                guard without.count < current.count else { continue }
                if reproduces(sites, without) == true {
                    note("drop", "every one of the \(current.count - without.count) \(name) can go", without.count)
                    current = without
                }
            }
            return current
        }

        /// ddmin over the decisions.
        mutating func ddmin(_ decisions: [Decision]) -> [Decision] {
            let before = decisions.count
            var search = DeltaDebugging(decisions)
            let start = runs
            while let candidate = search.candidate {
                guard let failing = reproduces(sites, candidate) else { break }
                search.record(failing: failing)
            }
            note("ddmin", "\(before) → \(search.current.count) decisions in \(runs - start) runs"
                 + (search.isDone ? "" : " (stopped: out of runs)"), search.current.count)
            return search.current
        }

        /// Simpler values, one at a time, until none is accepted: decisions first, then the fault
        /// sites the decisions use; sites nothing uses are dropped.
        mutating func simplify(_ decisions: [Decision]) -> [Decision] {
            var current = decisions
            let used = Set(current.compactMap { if case let .fault(fault) = $0 { return fault.site }; return nil })
            let kept = sites.filter { used.contains($0.name) || $0.kind.isTokenExpiry }
            if kept.count < sites.count, reproduces(kept, current) == true {
                note("simplify", "faults cut to the sites still firing: \(kept.isEmpty ? "none" : kept.map(\.name).joined(separator: ", "))", current.count)
                sites = kept
            }
            var changed = true
            // Simpler decisions that lost the failure: not offered again (a jitter draw's 1 ns
            // would be, at every halving).
            var refused = Set<Decision>()
            while changed && budgetLeft {
                changed = false
                for index in current.indices {
                    for simpler in current[index].simpler where !current.contains(simpler) && !refused.contains(simpler) {
                        var candidate = current
                        candidate[index] = simpler
                        if reproduces(sites, candidate) == true {
                            note("simplify", "\(current[index]) → \(simpler)", candidate.count)
                            current = candidate
                            changed = true
                            break
                        }
                        refused.insert(simpler)
                    }
                }
                for index in sites.indices {
                    for simpler in sites[index].simpler {
                        var candidate = sites
                        candidate[index] = simpler
                        if reproduces(candidate, current) == true {
                            note("simplify", "site \(sites[index].name): \(sites[index].kind.valueText) → \(simpler.kind.valueText)", current.count)
                            sites = candidate
                            changed = true
                            break
                        }
                    }
                }
            }
            return current
        }
    }
}

extension Decision {
    /// Simpler versions of this decision, most simplified first.
    var simpler: [Decision] {
        switch self {
        case let .fault(fault):
            var options: [Decision] = []
            if fault.drawn > 0 {
                options.append(.fault(FaultDecision(site: fault.site, request: fault.request, attempt: fault.attempt, occurrence: fault.occurrence)))
                if fault.drawn > 1_000_000 {
                    options.append(.fault(FaultDecision(site: fault.site, request: fault.request, attempt: fault.attempt,
                                                        occurrence: fault.occurrence, drawn: fault.drawn / 2)))
                }
            }
            if fault.attempt > 1 {
                options.append(.fault(FaultDecision(site: fault.site, request: fault.request, attempt: fault.attempt - 1,
                                                    occurrence: fault.occurrence, drawn: fault.drawn)))
            }
            if fault.occurrence > 1 {
                options.append(.fault(FaultDecision(site: fault.site, request: fault.request, attempt: fault.attempt,
                                                    occurrence: fault.occurrence - 1, drawn: fault.drawn)))
            }
            return options
        case let .order(choice):
            return choice.rank > 1 ? [.order(.init(point: choice.point, rank: 1)), .order(.init(point: choice.point, rank: choice.rank - 1))] : []
        case let .jitter(draw):
            // The least jitter there is (a draw of 0 is the decision left out, which ddmin has
            // tried: a tie at one instant can fail differently), else half, down to a microsecond.
            guard draw.nanoseconds > 1 else { return [] }
            let least = Decision.jitter(JitterDecision(request: draw.request, attempt: draw.attempt, occurrence: draw.occurrence, nanoseconds: 1))
            return draw.nanoseconds > 2_000
                ? [least, .jitter(JitterDecision(request: draw.request, attempt: draw.attempt, occurrence: draw.occurrence, nanoseconds: draw.nanoseconds / 2))]
                : [least]
        case .metrics:
            return []
        }
    }
}

extension FaultSite {
    /// Versions of this site with smaller values (fewer bytes, shorter delays), smallest first.
    var simpler: [FaultSite] {
        kind.simpler.map { kind in
            var site = self
            site.kind = kind
            return site
        }
    }
}

extension FaultKind {
    var isTokenExpiry: Bool {
        if case .tokenExpiry = self { return true }
        return false
    }

    /// Smaller values: 0 then half for byte counts; half for delays of a millisecond or more; for
    /// a `retryAfter`, none, then 0, then half.
    var simpler: [FaultKind] {
        switch self {
        case let .reset(bytes): return bytes > 0 ? [.reset(afterBytes: 0)] + (bytes > 1 ? [.reset(afterBytes: bytes / 2)] : []) : []
        case let .truncate(bytes): return bytes > 0 ? [.truncate(afterBytes: 0)] + (bytes > 1 ? [.truncate(afterBytes: bytes / 2)] : []) : []
        case let .latency(delay, jitter):
            return delay >= .milliseconds(1) ? [.latency(delay: .zero, jitter: jitter), .latency(delay: delay / 2, jitter: jitter)] : []
        case let .status(status, headers, retryAfter, retryAfterDate):
            // No Retry-After at all first (the key leaves the file), then `Retry-After: 0`, then half.
            guard let retryAfter else { return [] }
            return [.status(status, headers: headers, retryAfter: nil, retryAfterDate: retryAfterDate)]
                + (retryAfter > .zero ? [.status(status, headers: headers, retryAfter: .zero, retryAfterDate: retryAfterDate)] : [])
                + (retryAfter >= .seconds(2) ? [.status(status, headers: headers, retryAfter: .seconds(Int64(retryAfter.timeInterval / 2)), retryAfterDate: retryAfterDate)] : [])
        default: return []
        }
    }

    /// The values a simplification changes, for the step log (`afterBytes 1000`).
    var valueText: String {
        switch self {
        case let .reset(bytes), let .truncate(bytes): return "afterBytes \(bytes)"
        case let .latency(delay, _): return "delay \(delay.compactText)"
        case let .status(_, _, retryAfter, _): return retryAfter.map { "retryAfter \($0.compactText)" } ?? "no retryAfter"
        default: return "\(self)"
        }
    }
}
