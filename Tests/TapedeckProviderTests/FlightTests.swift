import Testing
@testable import TapedeckProvider

/// The flight state machine on its own: every event in every stage, without I/O.
@Suite("Provider: the flight state machine")
struct FlightTests {
    @Test("a request closure that answers starts the flight; one that fails tells every waiting caller, in call order")
    func mapping() {
        var started = Flight(first: 1)
        let joined = started.join(2)
        #expect(joined)
        let first = started.mapped(succeeded: true)
        #expect(first == .start)
        #expect(started.stage == .running)
        let second = started.mapped(succeeded: true)
        #expect(second == .ignore, "a second answer is dropped")

        var failed = Flight(first: 1)
        _ = failed.join(2)
        _ = failed.join(3)
        let cancel = failed.cancel(2)
        #expect(cancel == .deliverCancellation)
        let mapped = failed.mapped(succeeded: false)
        #expect(mapped == .fail(callers: [1, 3]))
        #expect(failed.stage == .finished)
        let late = failed.join(4)
        #expect(!late, "a finished flight cannot be shared")
    }
}
