import TapedeckHTTP

/// Every state one exchange on the simulated network can be in, and every transition, as a value.
///
/// The ``Exchange`` that owns it does the work: it routes requests, schedules steps on virtual time,
/// asks the fault hook and talks to the sink. Each time something happens it calls ``handle(_:)``
/// with the event and does what the returned ``Action`` says. The lifecycle does no I/O, so the whole
/// table is tested without a network (`ExchangeLifecycleTests`: every event in every state).
///
/// ```
///          start                 routed to a response         head due, not a redirect
///  idle ───────────▶ connecting ─────────────────▶ awaitingHead ─────────────────────▶ receiving
///                     │    ▲  └─ deferred ─▶ awaitingReply ─┘  │ redirect                │ every byte sent
///                     │    └──────── follow ─── redirecting ◀──┘    (declined: receiving) ▼
///                     │                                                                completing
///                     └─ any live state: fault stall ─▶ stalled     timeout, failure ─▶ finished
///   any live state: the client refused a callback ─▶ halted;   halted or live: abandon ─▶ abandoned
/// ```
struct ExchangeLifecycle: Hashable, Sendable {
    enum State: Hashable, Sendable {
        /// Created, not started.
        case idle
        /// Transaction `n` (0: the request; n: the n-th followed redirect) is connecting: the
        /// before-connect fault point, then routing.
        case connecting(transaction: Int)
        /// A deferred (live) answer for transaction `n` is awaited from another thread.
        case awaitingReply(transaction: Int)
        /// Transaction `n` has its answer; the response head is scheduled (or a routed failure is).
        case awaitingHead(transaction: Int)
        /// The head of a redirect went to the client's redirect policy, or a `401`'s Basic
        /// challenge to its task delegate; its decision is awaited (following, or sending the
        /// request again with a credential, is the next transaction).
        case redirecting(transaction: Int)
        /// The final response's head was delivered; body chunks follow.
        case receiving
        /// Every body byte was delivered; the completion fault point comes last.
        case completing
        /// A fault stalled the exchange: only a timeout or the client ends it.
        case stalled
        /// The client can no longer take callbacks (it cancelled or suspended its task); nothing
        /// more is scheduled until the bridge abandons the exchange.
        case halted
        /// Ended with a response (nil) or a transport failure; the sink was told.
        case finished(failure: TransportFailure?)
        /// The bridge abandoned the exchange for its client.
        case abandoned
    }

    /// A step the exchange scheduled for later (or runs now), checked again when it is due.
    enum Step: Hashable, Sendable {
        /// Connecting after a delayed before-connect fault point.
        case connect
        /// A routed failure, due after its delay.
        case routedFailure
        /// A deferred answer arrived (for this transaction).
        case deferredReply(transaction: Int)
        /// The response head.
        case head
        /// The client's redirect (or challenge) decision, and the request sent again with a
        /// credential once the 401's body has been read.
        case redirectDecision
        /// The next body chunk.
        case chunk
        /// Completing after a delayed completion fault point.
        case completion
    }

    /// Something that happened to the exchange.
    enum Event: Hashable, Sendable {
        /// The network started it.
        case start
        /// A scheduled step is due.
        case due(Step)
        /// The route answers later, from another thread.
        case replyDeferred
        /// The route never answers (only a timeout or the client ends the exchange).
        case replyStalled
        /// The route's answer is a response; its head is scheduled.
        case headScheduled
        /// The head is a redirect (or a `401` offering Basic authentication); the client is asked.
        case redirectAsked
        /// The client follows the redirect (or answers the challenge): a new transaction connects.
        case redirectFollowed
        /// The final head went to the client (a declined redirect's head included).
        case headDelivered
        /// The last body byte went to the client.
        case bodyDelivered
        /// The fault hook decided `action` at `point`.
        case fault(FaultPoint, FaultAction)
        /// The client would not take a callback (head or data).
        case clientRefused
        /// The idle or resource timer fired: the exchange fails with this (`URLError.timedOut`
        /// saying which timer ran out).
        case timedOut(TransportFailure)
        /// The exchange cannot go on (a routed or decoding failure, a reset, too many redirects,
        /// no route): it fails with this.
        case fail(TransportFailure)
        /// The completion fault point passed: the exchange ends with its response.
        case complete
        /// The bridge gives the exchange up (the client cancelled or suspended).
        case abandon
    }

    /// What the exchange does next.
    enum Action: Hashable, Sendable {
        /// Carry on with the step (for a fault: with what the fault adjusts, if anything).
        case proceed
        /// Nothing: the work is stale (the exchange ended, halted or stalled meanwhile).
        case ignore
        /// End now and tell the sink: with the response (nil) or this failure.
        case finish(TransportFailure?)
        /// A fault stalls the exchange: schedule nothing more.
        case stall
        /// A fault delays the step: do it after this long.
        case delay(Duration)
        /// Stop scheduling; keep the exchange until it is abandoned.
        case halt
        /// End without telling the sink (the bridge delivers the cancellation).
        case close
        /// The event cannot happen in this state: a bug, reported by the owner; nothing changes.
        case illegal(String)
    }

    private(set) var state: State

    /// A lifecycle in `state` (`idle` for a new exchange; others for tests).
    init(state: State = .idle) {
        self.state = state
    }

    /// True once the exchange ended (finished or abandoned).
    var isOver: Bool {
        switch state {
        case .finished, .abandoned: return true
        default: return false
        }
    }

    /// Applies `event`: the one place where the exchange changes state.
    mutating func handle(_ event: Event) -> Action {
        switch (state, event) {
        // Starting, and the stale or late work of an exchange that is over, halted or stalled.
        case (.idle, .start):
            state = .connecting(transaction: 0)
            return .proceed
        case (.finished, .due), (.abandoned, .due), (.halted, .due), (.stalled, .due),
             (.finished, .timedOut), (.abandoned, .timedOut), (.halted, .timedOut),
             (.finished, .clientRefused), (.abandoned, .clientRefused), (.halted, .clientRefused):
            return .ignore
        case (.finished, .abandon), (.abandoned, .abandon):
            return .ignore   // ended first: nothing left to give up
        case (.idle, .abandon):
            state = .abandoned
            return .close
        case (.halted, .abandon), (.stalled, .abandon), (.connecting, .abandon), (.awaitingReply, .abandon),
             (.awaitingHead, .abandon), (.redirecting, .abandon), (.receiving, .abandon), (.completing, .abandon):
            state = .abandoned
            return .close

        // Faults: the same decision at every point; a delay keeps the state, the step runs later.
        case let (.connecting, .fault(point, action)) where point == .beforeConnect,
             let (.awaitingHead, .fault(point, action)) where point == .responseHead,
             let (.receiving, .fault(point, action)) where point.isBodyChunk,
             let (.completing, .fault(point, action)) where point == .completion:
            return decide(action)

        // Connecting: the route answers now, later, or fails.
        case let (.connecting(transaction), .replyDeferred):
            state = .awaitingReply(transaction: transaction)
            return .proceed
        case let (.awaitingReply(transaction), .due(.deferredReply(arrived))):
            guard arrived == transaction else { return .ignore }   // an answer for an earlier hop
            state = .connecting(transaction: transaction)
            return .proceed
        case (.connecting, .replyStalled):
            state = .stalled
            return .stall
        case let (.connecting(transaction), .headScheduled):
            state = .awaitingHead(transaction: transaction)
            return .proceed
        case (.connecting, .due(.connect)), (.connecting, .due(.routedFailure)):
            return .proceed

        // The head: a redirect asks the client, anything else goes to it.
        case (.awaitingHead, .due(.head)):
            return .proceed
        case let (.awaitingHead(transaction), .redirectAsked):
            state = .redirecting(transaction: transaction)
            return .proceed
        case (.redirecting, .due(.redirectDecision)):
            return .proceed
        case let (.redirecting(transaction), .redirectFollowed):
            state = .connecting(transaction: transaction + 1)
            return .proceed
        case (.awaitingHead, .headDelivered), (.redirecting, .headDelivered):
            state = .receiving
            return .proceed

        // The body, then completion.
        case (.receiving, .due(.chunk)):
            return .proceed
        case (.receiving, .bodyDelivered):
            state = .completing
            return .proceed
        case (.completing, .due(.completion)):
            return .proceed
        case (.completing, .complete):
            state = .finished(failure: nil)
            return .finish(nil)

        // The client stops taking callbacks; failures and timeouts end a live exchange.
        case (.awaitingHead, .clientRefused), (.redirecting, .clientRefused), (.receiving, .clientRefused),
             (.completing, .clientRefused):
            state = .halted
            return .halt
        case let (.connecting, .fail(failure)), let (.awaitingReply, .fail(failure)), let (.awaitingHead, .fail(failure)),
             let (.redirecting, .fail(failure)), let (.receiving, .fail(failure)), let (.completing, .fail(failure)),
             let (.stalled, .fail(failure)):
            state = .finished(failure: failure)
            return .finish(failure)
        case let (.connecting, .timedOut(failure)), let (.awaitingReply, .timedOut(failure)), let (.awaitingHead, .timedOut(failure)),
             let (.redirecting, .timedOut(failure)), let (.receiving, .timedOut(failure)), let (.completing, .timedOut(failure)),
             let (.stalled, .timedOut(failure)):
            state = .finished(failure: failure)
            return .finish(failure)

        default:
            return .illegal("\(event) in state \(state)")
        }
    }

    /// What a fault's action means for the step at its point.
    private mutating func decide(_ action: FaultAction) -> Action {
        switch action {
        case let .fail(failure):
            state = .finished(failure: failure)
            return .finish(failure)
        case .stall:
            state = .stalled
            return .stall
        case let .delay(duration):
            return .delay(duration)
        case .combined:
            // The delays first; what comes after them is decided when they are over.
            if let delay = action.totalDelay { return .delay(delay) }
            let ending = action.parts.first {
                switch $0 {
                case .fail, .stall: return true
                default: return false
                }
            }
            return ending.map { decide($0) } ?? .proceed
        default:
            return .proceed
        }
    }
}

extension FaultPoint {
    var isBodyChunk: Bool {
        if case .bodyChunk = self { return true }
        return false
    }
}
