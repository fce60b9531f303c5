import Testing
import TapedeckHTTP
@testable import TapedeckNetwork

/// The exchange's lifecycle as a value, without a network: every event in every state.
@Suite("Network: the exchange lifecycle, every event in every state")
struct ExchangeLifecycleTests {
    typealias State = ExchangeLifecycle.State
    typealias Event = ExchangeLifecycle.Event
    typealias Action = ExchangeLifecycle.Action

    static let states: [State] = [
        .idle, .connecting(transaction: 0), .connecting(transaction: 2), .awaitingReply(transaction: 0),
        .awaitingReply(transaction: 1), .awaitingHead(transaction: 0), .redirecting(transaction: 1), .receiving,
        .completing, .stalled, .halted, .finished(failure: nil), .finished(failure: .timedOut), .abandoned,
    ]

    static let events: [Event] = [
        .start, .due(.connect), .due(.routedFailure), .due(.deferredReply(transaction: 0)), .due(.deferredReply(transaction: 1)),
        .due(.head), .due(.redirectDecision), .due(.chunk), .due(.completion), .replyDeferred, .replyStalled, .headScheduled,
        .redirectAsked, .redirectFollowed, .headDelivered, .bodyDelivered,
        .fault(.beforeConnect, .proceed), .fault(.beforeConnect, .fail(.cannotConnectToHost)), .fault(.beforeConnect, .stall),
        .fault(.beforeConnect, .delay(.seconds(1))), .fault(.responseHead, .overrideStatus(503)), .fault(.responseHead, .stall),
        .fault(.bodyChunk(offset: 0, size: 10), .resetAfter(bytes: 5)), .fault(.bodyChunk(offset: 0, size: 10), .fail(.networkConnectionLost)),
        .fault(.completion, .delay(.milliseconds(5))), .fault(.completion, .proceed),
        .clientRefused, .timedOut(.timedOut), .fail(.badServerResponse), .complete, .abandon,
    ]

    /// Every legal transition: (state, event) → (action, next state). Pairs not listed here or in
    /// `ignored` must be reported as illegal and change nothing.
    static func legal(_ state: State, _ event: Event) -> (Action, State)? {
        switch (state, event) {
        case (.idle, .start): return (.proceed, .connecting(transaction: 0))
        case (.idle, .abandon): return (.close, .abandoned)
        case let (.connecting(t), .replyDeferred): return (.proceed, .awaitingReply(transaction: t))
        case (.connecting, .replyStalled): return (.stall, .stalled)
        case let (.connecting(t), .headScheduled): return (.proceed, .awaitingHead(transaction: t))
        case (.connecting, .due(.connect)), (.connecting, .due(.routedFailure)): return (.proceed, state)
        case let (.awaitingReply(t), .due(.deferredReply(arrived))) where arrived == t: return (.proceed, .connecting(transaction: t))
        case (.awaitingHead, .due(.head)), (.redirecting, .due(.redirectDecision)), (.receiving, .due(.chunk)),
             (.completing, .due(.completion)):
            return (.proceed, state)
        case let (.awaitingHead(t), .redirectAsked): return (.proceed, .redirecting(transaction: t))
        case let (.redirecting(t), .redirectFollowed): return (.proceed, .connecting(transaction: t + 1))
        case (.awaitingHead, .headDelivered), (.redirecting, .headDelivered): return (.proceed, .receiving)
        case (.receiving, .bodyDelivered): return (.proceed, .completing)
        case (.completing, .complete): return (.finish(nil), .finished(failure: nil))
        case (.awaitingHead, .clientRefused), (.redirecting, .clientRefused), (.receiving, .clientRefused), (.completing, .clientRefused):
            return (.halt, .halted)
        case let (_, .fail(failure)) where state.isLive:
            return (.finish(failure), .finished(failure: failure))
        case (_, .timedOut) where state.isLive:
            return (.finish(.timedOut), .finished(failure: .timedOut))
        case (_, .abandon) where state.isLive || state == .halted:
            return (.close, .abandoned)
        case let (_, .fault(point, action)) where state.faultPoint(matches: point):
            switch action {
            case let .fail(failure): return (.finish(failure), .finished(failure: failure))
            case .stall: return (.stall, .stalled)
            case let .delay(duration): return (.delay(duration), state)
            default: return (.proceed, state)
            }
        default:
            return nil
        }
    }

    /// Stale work, late timers and late refusals: nothing happens, and it is not a bug.
    static func ignored(_ state: State, _ event: Event) -> Bool {
        switch (state, event) {
        case (.finished, .due), (.abandoned, .due), (.halted, .due), (.stalled, .due),
             (.finished, .timedOut), (.abandoned, .timedOut), (.halted, .timedOut),
             (.finished, .clientRefused), (.abandoned, .clientRefused), (.halted, .clientRefused),
             (.finished, .abandon), (.abandoned, .abandon):
            return true
        case let (.awaitingReply(t), .due(.deferredReply(arrived))):
            return arrived != t   // the answer of an earlier hop
        default:
            return false
        }
    }

    @Test("every (state, event) pair is legal with its listed result, ignored without change, or reported illegal without change")
    func everyEventInEveryState() {
        var counts = (legal: 0, ignored: 0, illegal: 0)
        for state in Self.states {
            for event in Self.events {
                var lifecycle = ExchangeLifecycle(state: state)
                let action = lifecycle.handle(event)
                if let (expected, next) = Self.legal(state, event) {
                    #expect(action == expected, "\(state) + \(event)")
                    #expect(lifecycle.state == next, "\(state) + \(event)")
                    counts.legal += 1
                } else if Self.ignored(state, event) {
                    #expect(action == .ignore, "\(state) + \(event)")
                    #expect(lifecycle.state == state, "\(state) + \(event)")
                    counts.ignored += 1
                } else {
                    guard case .illegal = action else {
                        Issue.record("\(state) + \(event) should be illegal, got \(action)")
                        continue
                    }
                    #expect(lifecycle.state == state, "an illegal event changes nothing: \(state) + \(event)")
                    counts.illegal += 1
                }
            }
        }
        #expect(counts.legal > 60 && counts.ignored > 40 && counts.illegal > 150, "\(counts)")
    }

    @Test("once over (finished or abandoned), an exchange never moves again, whatever happens")
    func terminalStatesAreFinal() {
        for state in [State.finished(failure: nil), .finished(failure: .cannotConnectToHost), .abandoned] {
            for event in Self.events {
                var lifecycle = ExchangeLifecycle(state: state)
                _ = lifecycle.handle(event)
                #expect(lifecycle.state == state && lifecycle.isOver, "\(state) + \(event)")
            }
        }
    }

    @Test("a whole exchange: connect, head, a followed redirect, the body, completion")
    func happyPathWithARedirect() {
        var lifecycle = ExchangeLifecycle()
        let steps: [(Event, Action)] = [
            (.start, .proceed), (.fault(.beforeConnect, .proceed), .proceed), (.headScheduled, .proceed),
            (.due(.head), .proceed), (.fault(.responseHead, .proceed), .proceed), (.redirectAsked, .proceed),
            (.due(.redirectDecision), .proceed), (.redirectFollowed, .proceed), (.replyDeferred, .proceed),
            (.due(.deferredReply(transaction: 1)), .proceed), (.headScheduled, .proceed), (.headDelivered, .proceed),
            (.due(.chunk), .proceed), (.fault(.bodyChunk(offset: 0, size: 4), .delay(.seconds(2))), .delay(.seconds(2))),
            (.due(.chunk), .proceed), (.bodyDelivered, .proceed), (.fault(.completion, .proceed), .proceed), (.complete, .finish(nil)),
        ]
        for (event, expected) in steps {
            #expect(lifecycle.handle(event) == expected, "\(event) in \(lifecycle.state)")
        }
        #expect(lifecycle.state == .finished(failure: nil))
    }
}

extension ExchangeLifecycle.State {
    /// Started and not over, halted or stalled: where failures and timeouts end the exchange.
    var isLive: Bool {
        switch self {
        case .connecting, .awaitingReply, .awaitingHead, .redirecting, .receiving, .completing, .stalled: return true
        default: return false
        }
    }

    func faultPoint(matches point: FaultPoint) -> Bool {
        switch (self, point) {
        case (.connecting, .beforeConnect), (.awaitingHead, .responseHead), (.completing, .completion): return true
        case (.receiving, .bodyChunk): return true
        default: return false
        }
    }
}
