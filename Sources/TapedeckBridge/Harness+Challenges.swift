import Foundation
import HTTPTypes
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A `401` offering HTTP Basic authentication, answered as URLSession answers it: its task delegate
// is asked, and given a credential the request goes again with it, on the simulated network.
// (corelibs' own answer would send it again through its own loader, off the network: the bridge
// asks the delegate itself, before the head reaches corelibs.)

extension HarnessSink {
    func answersChallenges(_ id: Int) -> Bool {
        harness?.answersChallenges(id) ?? false
    }

    func exchange(
        _ id: Int, challenged head: ResponseHead, url: URL, resend: RequestSnapshot, previousFailures: Int,
        decide: @escaping @Sendable (RedirectDecision) -> Void
    ) {
        guard let harness else { return decide(.stop) }
        harness.askChallenge(id, head: head, url: url, resend: resend, previousFailures: previousFailures, decide: decide)
    }
}

extension Harness {
    /// Whether exchange `id`'s task has a delegate URLSession would ask about a challenge.
    func answersChallenges(_ id: Int) -> Bool {
        guard let link = state.withLock({ $0.byNetworkID[id] }) else { return false }
        if let foreign = link.foreign { return foreign.delegate != nil && foreign.session != nil }
        return link.session.delegate is any URLSessionTaskDelegate
    }

    /// Asks the task delegate of exchange `id` about the 401's Basic challenge on its queue, as
    /// URLSession does; `.useCredential` with a user sends `resend` again with that credential's
    /// `Authorization: Basic …`, any other answer makes the 401 the response.
    func askChallenge(
        _ id: Int, head: ResponseHead, url: URL, resend: RequestSnapshot, previousFailures: Int,
        decide: @escaping @Sendable (RedirectDecision) -> Void
    ) {
        guard let (link, _, task) = deliverable(id) else { return }   // the client went: the exchange is abandoned
        defer { link.deliveries.leave() }
        let challenge = Self.basicChallenge(head, url: url, previousFailures: previousFailures)
        let answer: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> RedirectDecision = { disposition, credential in
            guard disposition == .useCredential, let user = credential?.user else { return .stop }
            var again = resend
            again.headerFields[.authorization] = "Basic " + Data("\(user):\(credential?.password ?? "")".utf8).base64EncodedString()
            return .follow(again)
        }
        let once = OnceFlag()
        if let foreign = link.foreign {
            guard let session = foreign.session, let delegate = foreign.delegate else { return decide(.stop) }
            // The answer comes on the client's own queue: the simulation waits for it.
            let expectation = scheduler.expectExternal("challenge answer #\(link.number) \(link.summary)")
            link.redirectExpectation = expectation
            let context = UncheckedSendable((delegate: delegate, session: session, task: task, challenge: challenge))
            let queue = network.queue
            session.delegateQueue.addOperation {
                let (delegate, session, task, challenge) = context.value
                delegate.urlSession(session, task: task, didReceive: challenge) { disposition, credential in
                    guard once.claim() else { return }   // a second answer is ignored
                    let decision = answer(disposition, credential)
                    expectation.arrive(on: queue, named: "bridge.challenge-answer") { decide(decision) }
                }
            }
            return
        }
        guard let delegate = link.session.delegate as? any URLSessionTaskDelegate, let session = link.session.session else { return decide(.stop) }
        let context = UncheckedSendable((delegate: delegate, session: session, task: task, challenge: challenge))
        link.session.deliverToClient(named: "urlsession.challenge") {
            let (delegate, session, task, challenge) = context.value
            delegate.urlSession(session, task: task, didReceive: challenge) { disposition, credential in
                guard once.claim() else { return }
                decide(answer(disposition, credential))
            }
        }
    }

    /// The challenge URLSession would hand its delegate for a 401 offering Basic: the protection
    /// space of the URL's host, port and scheme with the realm the header names, the 401 as the
    /// failure response.
    static func basicChallenge(_ head: ResponseHead, url: URL, previousFailures: Int) -> URLAuthenticationChallenge {
        let offer = head.headerFields[fields: .wwwAuthenticate].map(\.value).first { $0.lowercased().contains("basic") } ?? ""
        var realm: String?
        if let range = offer.range(of: #"realm\s*=\s*"([^"]*)""#, options: [.regularExpression, .caseInsensitive]) {
            let match = offer[range]
            realm = match.firstIndex(of: "\"").map { String(match[match.index(after: $0)...].dropLast()) }
        }
        let scheme = url.scheme?.lowercased() ?? "http"
        let space = URLProtectionSpace(host: url.host ?? "", port: url.port ?? (scheme == "https" ? 443 : 80), protocol: scheme,
                                       realm: realm, authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        return URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil, previousFailureCount: previousFailures,
                                          failureResponse: head.httpURLResponse(url: url), error: nil, sender: ChallengeSender())
    }
}

/// The sender of a challenge the bridge asks about: the delegate answers through its completion
/// handler, so the sender's calls are not used.
final class ChallengeSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
