import Foundation
import Synchronization
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

/// A scenario stub: requests its pattern matches get its responses in order, the last repeating.
final class SequenceResponder: Responder {
    let stub: Stub
    private let served = Mutex(0)
    private let plans: [Reply]

    init(_ stub: Stub) {
        self.stub = stub
        plans = stub.responses.map { response in
            if let code = response.failure {
                // After the stub's latency, as a response would start: a timeout or a lost
                // connection takes time on the wire too (jitter applies to responses only).
                return .failure(.urlError(urlErrorCode(code)), after: stub.latency)
            }
            var headers = response.headers.map { ($0.name, $0.value) }
            var body = response.body
            if response.gzip, let packed = try? Zlib.compress(body, format: .gzip) {
                body = packed
                headers.removeAll { $0.0.lowercased() == "content-encoding" }
                headers.append(("Content-Encoding", "gzip"))
            }
            if !headers.contains(where: { $0.0.lowercased() == "content-length" }) {
                headers.append(("Content-Length", String(body.count)))
            }
            return .response(ResponsePlan(status: response.status, headers: headers, body: body))
        }
    }

    func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        guard stub.pattern.matches(method: request.method.rawValue, url: request.url) else {
            return .noMatch(reason: "stub \(stub.pattern) does not match")
        }
        let index = served.withLock { count -> Int in
            defer { count += 1 }
            return min(count, plans.count - 1)
        }
        return plans[index]
    }
}

/// The token server: issues tokens at its token endpoint, answers 401 to a protected request
/// without a valid token, and lets every other request through to the next routes.
final class TokenServer: Responder {
    let definition: AuthServer
    /// Instants at which every token issued before stops being valid (tokenExpiry faults).
    let expiries: [Duration]
    private struct State {
        var issued: [String: Duration]
        var count = 0
        var rejections: [(exchange: Int, time: VirtualInstant)] = []
    }
    private let state: Mutex<State>

    init(_ definition: AuthServer, expiries: [Duration]) {
        self.definition = definition
        self.expiries = expiries.sorted()
        state = Mutex(State(issued: [definition.initialToken: .zero]))
    }

    /// Exchanges answered 401 because their token was invalid, with when.
    var rejections: [(exchange: Int, time: VirtualInstant)] { state.withLock { $0.rejections } }

    /// Tokens issued so far (the initial one included).
    var issuedCount: Int { state.withLock { $0.count } }

    func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        let now = VirtualInstant.zero.duration(to: context.time)
        let method = request.method.rawValue
        if definition.token.matches(method: method, url: request.url) {
            let (token, lifetime) = state.withLock { state -> (String, Duration) in
                state.count += 1
                let token = "token-\(state.count)"
                state.issued[token] = now
                return (token, definition.lifetime)
            }
            // Whole seconds as OAuth writes them; a lifetime with a fraction of a second (400ms)
            // keeps it (0.4), or the client would take the token for expired from the start
            // (0 s) and refresh in a loop.
            let nanoseconds = lifetime.components.seconds * 1_000_000_000 + lifetime.components.attoseconds / 1_000_000_000
            let seconds = nanoseconds % 1_000_000_000 == 0 ? "\(nanoseconds / 1_000_000_000)" : "\(Double(nanoseconds) / 1e9)"
            return .response(.json(200, #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":\#(seconds)}"#))
        }
        guard definition.protect.contains(where: { $0.matches(method: method, url: request.url) }) else {
            return .noMatch(reason: "not a token server route")
        }
        let presented = request.headerFields[.authorization].flatMap { value -> String? in
            value.hasPrefix("Bearer ") ? String(value.dropFirst("Bearer ".count)) : nil
        }
        let valid = state.withLock { state -> Bool in
            guard let presented, let issued = state.issued[presented] else { return false }
            if now >= issued + definition.lifetime { return false }
            // Revoked when an expiry came after it was issued and is already past. The initial
            // token counts as issued before time zero, so an expiry at 0s revokes it.
            let initial = presented == definition.initialToken
            return !expiries.contains { ($0 > issued || initial && $0 == .zero) && $0 <= now }
        }
        if valid { return .noMatch(reason: "authorized") }
        state.withLock { $0.rejections.append((context.exchange, context.time)) }
        return .response(.json(401, #"{"error":"invalid_token"}"#, headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)]))
    }
}

/// Test-only: a fault hook that delays every response head by an amount taken from a counter
/// shared by every run in the process, so a second run of the same seed differs from the first
/// (what `check-determinism` must catch). Wraps the scenario's own sites.
final class NondeterministicHook: FaultHook {
    private static let counter = Atomic<Int>(0)
    let inner: FaultSites

    init(_ inner: FaultSites) {
        self.inner = inner
    }

    func action(at point: FaultPoint, context: FaultContext, random: inout SeededGenerator) -> FaultAction {
        let decided = inner.action(at: point, context: context, random: &random)
        guard decided == .proceed, point == .responseHead else { return decided }
        // Never periodic: every run of the process sees larger delays than the one before.
        return .delay(.microseconds(Self.counter.add(1, ordering: .relaxed).newValue))
    }
}
