public import Foundation
public import TapedeckScenarios

extension Tape {
    /// Strikes `plan`'s faults (a scenario file's `faults:`, or a plan for `tapedeck serve
    /// --faults`) into every exchange on this tape's network, drawn from `seed` (by default the
    /// plan's `seed:`, else the tape's own seed), and returns them so the test can read what fired.
    /// It replaces faults injected before. Works for any client on the tape: a URLSession from
    /// ``configuration(base:)`` (real Alamofire, Moya, your own code) or from ``makeURLSession(configuration:delegate:)``,
    /// and TapedeckClient's `Session`.
    ///
    /// ```swift
    /// let faults = tape.injectFaults(try FaultPlan.load(URL(fileURLWithPath: "flaky.yaml")))
    /// let (data, _) = try await tape.serving { try await session.data(from: url) }
    /// #expect(faults.fired.map(\.site) == ["first-attempt-503"])
    /// ```
    ///
    /// A `tokenExpiry` site needs a scenario's token endpoint: it is listed in
    /// `FaultPlanFaults.unsupported`, said once on standard error, and never fires.
    @discardableResult
    public func injectFaults(_ plan: FaultPlan, seed: UInt64? = nil) -> FaultPlanFaults {
        let faults = FaultPlanFaults(plan: plan, seed: seed ?? plan.seed ?? scheduler.seed)
        if !faults.unsupported.isEmpty {
            try? FileHandle.standardError.write(contentsOf: Data(("tapedeck: \(cassetteURL.lastPathComponent): faults a client's own traffic "
                + "cannot get are left out: \(faults.unsupported.joined(separator: ", ")) (a token expiry needs a scenario's token endpoint)\n").utf8))
        }
        network.faults = faults
        return faults
    }

    /// The faults ``injectFaults(_:seed:)`` struck into this tape's traffic (nil when none were):
    /// read `FaultPlanFaults.fired` to see which fired where.
    public var faults: FaultPlanFaults? {
        network.faults as? FaultPlanFaults
    }

    /// ``injectFaults(_:seed:)`` with the plan in a file (YAML or JSON; a whole scenario file too,
    /// whose faults and seed are used). Errors name the file, line, column and key.
    @discardableResult
    public func injectFaults(from file: URL, seed: UInt64? = nil) throws -> FaultPlanFaults {
        try injectFaults(FaultPlan.load(file), seed: seed)
    }
}
