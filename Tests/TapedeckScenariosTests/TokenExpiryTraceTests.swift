import Foundation
import Testing
import TapedeckScenarios
import TapedeckScheduling

/// A `tokenExpiry` is a fault like the others in the trace: a `net.fault` step at its instant, so
/// the trace hash tells two expiry instants apart, without keeping the run going past its end.
@Suite("Token expiry in the trace")
struct TokenExpiryTraceTests {
    private func scenario(expiry: String) -> String {
        """
        traffic:
          auth:
            token: POST http://auth.test/token
            protect: http://api.test/*
          stubs:
            - {match: GET http://api.test/me, latency: 20ms, json: {name: ada}}
        client: {auth: true, validate: true}
        script:
          - request: GET http://api.test/me
            at: 2s
        faults:
          - {kind: tokenExpiry, name: revoke, at: \(expiry)}
        """
    }

    @Test("two runs differing only in when the tokens expire have different trace hashes")
    func expiryInstantChangesTheHash() throws {
        // Given the same file with the expiry at 1 s and at 1.5 s (the request at 2 s gets 401 either way)
        let early = try run(scenario(expiry: "1s"))
        let later = try run(scenario(expiry: "1.5s"))
        // Then the runs do the same, but their traces differ
        #expect(early.request("me").attempts == 2 && later.request("me").attempts == 2)
        #expect(early.traceHash != later.traceHash)
    }

    @Test("the expiry is a net.fault step at its instant, and is listed among the faults that fired")
    func expiryIsATraceStep() throws {
        // Given an expiry at 1.5 s
        let parsed = try parse(scenario(expiry: "1.5s"))
        // When it runs keeping its trace
        let (outcome, trace) = try ScenarioRunner().runKeepingTrace(parsed, seed: 1)
        // Then one net.fault step, at 1.5 s, says the tokens expired
        let steps = trace.filter { $0.event == "net.fault" && $0.payload.contains("tokenExpiry 'revoke'") }
        #expect(steps.count == 1)
        #expect(steps.first?.time == VirtualInstant(nanoseconds: 1_500_000_000))
        #expect(outcome.faults.contains { $0.site == "revoke" && $0.timeNanoseconds == 1_500_000_000 })
    }

    @Test("an expiry after everything else finished neither runs the clock on nor is listed")
    func lateExpiryDoesNotExtendTheRun() throws {
        // Given an expiry an hour in, long after the only request (2 s + 20 ms)
        let outcome = try run(scenario(expiry: "1h"))
        // Then the run ends with the request, and the expiry is not among the faults that fired
        #expect(outcome.virtualNanoseconds == 2_020_000_000)
        #expect(!outcome.faults.contains { $0.site == "revoke" })
        #expect(outcome.request("me").attempts == 1)
    }
}
