import Testing
@testable import TapedeckClient
import TapedeckScheduling

/// The response gate as a value: what arrives while an `onHTTPResponse` answer is awaited is held
/// in order; after `.cancel`, the attempt's late body pieces are dropped (a cancelled live task
/// may still deliver what was on its way); the next attempt's head starts afresh.
@Suite("Pipeline: the response gate")
struct ResponseGateTests {
    typealias Gate = Request.ResponseGate

    static func gate() -> Gate {
        var gate = Gate()
        gate.handler = Request.HTTPResponseHandler(queue: SimulatedScheduler(seed: 0).makeQueue(label: "handler", target: nil), body: { _, _ in })
        return gate
    }

    @Test("without a handler nothing is held; with one, pieces and the completion wait for the answer, in order")
    func holds() {
        var plain = Gate()
        #expect(plain.headArrived() == nil)
        #expect(plain.hold(isBody: true, {}) == .run)
        var gate = Self.gate()
        #expect(gate.headArrived() != nil)
        #expect(gate.hold(isBody: true, {}) == .held)
        #expect(gate.hold(isBody: false, {}) == .held)
        let held = gate.answered(.allow)
        #expect(held?.map(\.isBody) == [true, false])
        #expect(gate.answered(.allow) == nil, "a second answer is ignored")
        #expect(gate.hold(isBody: true, {}) == .run)
    }

    @Test("after .cancel the attempt's late pieces are dropped but its completion runs; a new head starts afresh")
    func cancelDropsLatePieces() {
        var gate = Self.gate()
        _ = gate.headArrived()
        _ = gate.answered(.cancel)
        #expect(gate.hold(isBody: true, {}) == .dropped)
        #expect(gate.hold(isBody: false, {}) == .run)
        _ = gate.headArrived()
        #expect(gate.hold(isBody: true, {}) == .held)
        _ = gate.answered(.allow)
        #expect(gate.hold(isBody: true, {}) == .run)
    }
}
