import Foundation
import Testing
@testable import TapedeckServer

/// The lifecycle of a streamed answer: what it holds for the client's going must not outlive the
/// answer (`record` registers the upstream exchange's cancel there, and the exchange holds the
/// stream: every request, uploads' bodies too, was kept for the life of the process).
@Suite("Server: a streamed answer lets go of its client-gone action when it ends")
struct AnswerStreamTests {
    /// Something an action captures, as an upstream exchange would.
    private final class Held: Sendable {}

    @Test("ending the answer releases the action and what it captured; one registered after the end is never held; a client gone first runs it once")
    func releasesItsAction() {
        weak var captured: Held?
        let stream = AnswerStream { _ in }
        do {
            let held = Held()
            captured = held
            stream.whenClientGone { _ = held }
        }
        #expect(captured != nil && stream.stopsWhenClientGone)
        #expect(stream.finishOnce())
        #expect(captured == nil, "the action and the exchange it captures are let go")
        #expect(!stream.clientGone(), "done: nothing to count or run")

        let ended = AnswerStream { _ in }
        #expect(ended.finishOnce())
        weak var late: Held?
        do {
            let held = Held()
            late = held
            ended.whenClientGone { _ = held }
        }
        #expect(late == nil && !ended.stopsWhenClientGone, "an action registered after the end is not kept")

        let gone = AnswerStream { _ in }
        let runs = Counter()
        gone.whenClientGone { runs.add() }
        #expect(gone.clientGone() && !gone.clientGone())
        #expect(runs.value == 1 && !gone.finishOnce())
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
