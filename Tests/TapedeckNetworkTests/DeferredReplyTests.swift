import Foundation
import Synchronization
import Testing
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

/// A responder whose answers come from another thread later (what a recorder does with the live
/// network): after a real-time delay per path, never, or at once inside `start`.
private final class LaterResponder: Responder, Sendable {
    private let cancelled = Mutex<[Int]>([])
    let delays: [String: Duration]
    let deliverAtOnce: Reply?

    init(delays: [String: Duration] = [:], deliverAtOnce: Reply? = nil) {
        self.delays = delays
        self.deliverAtOnce = deliverAtOnce
    }

    func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        .deferred(DeferredReply(label: "later \(request.path)", patience: .seconds(30)) { [self] deliver in
            if let reply = deliverAtOnce {
                deliver(reply)   // synchronously, inside start
            } else if let delay = delays[request.path] {
                let path = request.path
                Thread {
                    Thread.sleep(forTimeInterval: delay.timeInterval)   // a slow live server, on purpose
                    deliver(.response(.text(200, path)))
                }.start()
            }
            return { [self] in cancelled.withLock { $0.append(context.exchange) } }
        })
    }

    var cancelledExchanges: [Int] { cancelled.withLock { $0 } }
}

@Suite("Network: deferred replies (answers that come later, from another thread)")
struct DeferredReplyTests {
    @Test("arrivals are taken in the order the exchanges asked, whatever order the threads answer in")
    func orderFollowsTheSimulation() throws {
        var logs: Set<[String]> = []
        for round in 0..<4 {
            let fixture = NetworkFixture(seed: 3)
            // Exchange 2 is answered first in real time in even rounds, last in odd ones.
            let fast = Duration.milliseconds(5), slow = Duration.milliseconds(40)
            let responder = LaterResponder(delays: ["/a": .milliseconds(20), "/b": round.isMultiple(of: 2) ? fast : slow])
            fixture.network.add(Route(.any, responder: responder))
            fixture.start(1, "GET", "http://live.test/a")
            fixture.start(2, "GET", "http://live.test/b")
            try fixture.scheduler.runUntilIdle()
            #expect(fixture.sink.body(1) == Data("/a".utf8) && fixture.sink.body(2) == Data("/b".utf8))
            logs.insert(fixture.sink.events)
        }
        #expect(logs.count == 1, "\(logs)")
    }

    @Test("an exchange that ends while its answer is awaited withdraws the wait and cancels the work")
    func abandonWithdraws() throws {
        let fixture = NetworkFixture()
        let responder = LaterResponder()   // never answers
        fixture.network.add(Route(.any, responder: responder))
        fixture.start(1, "GET", "http://live.test/slow")
        let network = fixture.network
        network.queue.async { network.abandon(1) }   // same instant, right after the start
        // Without the withdrawal this would wait 30 s for an answer that never comes, then fail.
        try fixture.scheduler.runUntilIdle()
        #expect(responder.cancelledExchanges == [1])
        #expect(fixture.scheduler.outstandingExpectationCount == 0)
        #expect(network.records.first?.outcome == .cancelled)
    }

    @Test("a reply delivered inside start, a deferred 'no match' and a deferred deferral each end the exchange")
    func edgeDeliveries() throws {
        let cases: [(Reply, String)] = [
            (.response(.text(200, "now")), "finish ok"),
            (.noMatch(reason: "nothing recorded"), "finish \(URLError.unsupportedURL.rawValue)"),
            (.deferred(DeferredReply(label: "again", patience: .seconds(1)) { _ in {} }), "finish \(URLError.badServerResponse.rawValue)"),
        ]
        for (reply, expected) in cases {
            let fixture = NetworkFixture()
            fixture.network.add(Route(.any, responder: LaterResponder(deliverAtOnce: reply)))
            fixture.start(1, "GET", "http://live.test/x")
            try fixture.scheduler.runUntilIdle()
            #expect(fixture.sink.events.last?.hasSuffix(expected) == true, "\(fixture.sink.events)")
        }
    }
}
