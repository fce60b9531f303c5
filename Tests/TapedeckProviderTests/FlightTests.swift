import Testing
import TapedeckScheduling
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

    @Test("while mapping: a caller's cancel is delivered at once; the last one abandons the flight and its answer is ignored")
    func cancelWhileMapping() {
        var flight = Flight(first: 1)
        _ = flight.join(2)
        let r1 = flight.cancel(1)
        #expect(r1 == .deliverCancellation)
        let r2 = flight.cancel(1)
        #expect(r2 == .none, "a second cancel of the same caller does nothing")
        let r3 = flight.cancel(9)
        #expect(r3 == .none, "an unknown caller does nothing")
        #expect(flight.isJoinable, "caller 2 still waits, others may join")
        let r4 = flight.cancel(2)
        #expect(r4 == .deliverCancellationAndAbandon)
        #expect(flight.stage == .finished && !flight.isJoinable)
        let r5 = flight.mapped(succeeded: true)
        #expect(r5 == .ignore)
        let r6 = flight.finish()
        #expect(r6 == nil)
    }

    @Test("while running: others keep the request; the last waiting caller cancels the operation and is told when it ends")
    func cancelWhileRunning() {
        var flight = Flight(first: 1)
        _ = flight.join(2)
        _ = flight.join(3)
        _ = flight.mapped(succeeded: true)
        let r7 = flight.cancel(2)
        #expect(r7 == .deliverCancellation)
        let r8 = flight.cancel(1)
        #expect(r8 == .deliverCancellation)
        let r9 = flight.cancel(3)
        #expect(r9 == .cancelOperation)
        #expect(flight.cancelRequested && !flight.isJoinable, "a request being cancelled is not shared with newcomers")
        let r10 = flight.join(4)
        #expect(r10 == false)
        let r11 = flight.cancel(3)
        #expect(r11 == .none)
        let r12 = flight.finish()
        #expect(r12 == [Flight.Delivery(caller: 3, cancelled: true)])
        let r13 = flight.finish()
        #expect(r13 == nil, "a late or duplicate end is ignored")
    }

    @Test("the end tells every waiting caller in call order, and nobody twice")
    func finishOrder() {
        var flight = Flight(first: 5)
        for caller in [6, 7, 8] { _ = flight.join(caller) }
        _ = flight.mapped(succeeded: true)
        _ = flight.cancel(7)
        let r14 = flight.finish()
        #expect(r14 == [5, 6, 8].map { Flight.Delivery(caller: $0, cancelled: false) })
        let r15 = flight.cancel(5)
        #expect(r15 == .none, "after the end, a cancel changes nothing")
        #expect(flight.callers.allSatisfy { $0.status == .done })
    }

    @Test("random event sequences (500 seeds): every caller is told exactly once, in call order among those the end tells")
    func randomSequences() {
        for seed in UInt64(1)...500 {
            var random = SeededGenerator(seed: seed)
            var flight = Flight(first: 1)
            var nextCaller = 2
            var told: [Int: Int] = [1: 0]
            var ended = false
            var endOrder: [Int] = []
            for _ in 0..<20 where !ended {
                switch random.next(below: 5) {
                case 0:
                    if flight.join(nextCaller) { told[nextCaller] = 0 }
                    nextCaller += 1
                case 1:
                    let caller = 1 + random.next(below: nextCaller)
                    switch flight.cancel(caller) {
                    case .deliverCancellation, .deliverCancellationAndAbandon: told[caller, default: 0] += 1
                    case .none, .cancelOperation: break
                    }
                    if flight.stage == .finished { ended = true }
                case 2:
                    if case let .fail(callers) = flight.mapped(succeeded: random.chance(1, in: 4) == false) {
                        callers.forEach { told[$0, default: 0] += 1 }
                        ended = true
                    }
                default:
                    if let deliveries = flight.finish() {
                        deliveries.forEach { told[$0.caller, default: 0] += 1 }
                        endOrder = deliveries.map(\.caller)
                        ended = true
                    }
                }
            }
            if !ended {
                if flight.stage == .mapping { _ = flight.mapped(succeeded: true) }
                flight.finish()?.forEach { told[$0.caller, default: 0] += 1; endOrder.append($0.caller) }
            }
            #expect(told.values.allSatisfy { $0 == 1 }, "seed \(seed): \(told)")
            #expect(endOrder == endOrder.sorted(), "seed \(seed)")
        }
    }
}
