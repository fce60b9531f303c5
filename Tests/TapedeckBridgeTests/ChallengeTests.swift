import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A delegate that answers HTTP Basic challenges as an app's does: with its credential the first
/// time (or every time), rejecting the protection space after a failure, or leaving it to
/// URLSession's default handling.
final class ChallengeDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: mutable state is in Mutexes; callbacks arrive on one serial queue.
    enum Answer { case credentialOnce, credentialAlways, defaultHandling }
    let answer: Answer
    let credential: URLCredential
    private let seen = Mutex<[String]>([])
    private let received = Mutex<(status: Int?, body: Data, header: String?)>((nil, Data(), nil))

    init(_ answer: Answer, user: String = "ada", password: String = "s3cret") {
        self.answer = answer
        credential = URLCredential(user: user, password: password, persistence: .forSession)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let space = challenge.protectionSpace
        seen.withLock { $0.append("\(space.authenticationMethod) \(space.realm ?? "-") \(space.host):\(space.port) #\(challenge.previousFailureCount) \((challenge.failureResponse as? HTTPURLResponse)?.statusCode ?? 0)") }
        switch answer {
        case .credentialOnce where challenge.previousFailureCount > 0: completionHandler(.rejectProtectionSpace, nil)
        case .credentialOnce, .credentialAlways: completionHandler(.useCredential, credential)
        case .defaultHandling: completionHandler(.performDefaultHandling, nil)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        received.withLock { $0.status = http?.statusCode; $0.header = http?.value(forHTTPHeaderField: Harness.challengeFieldName) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.withLock { $0.body.append(data) }
    }

    var challenges: [String] { seen.withLock { $0 } }
    var status: Int? { received.withLock { $0.status } }
    var text: String { received.withLock { String(decoding: $0.body, as: UTF8.self) } }
    var renamedChallenge: String? { received.withLock { $0.header } }
}

@Suite("Bridge: a 401 offering Basic authentication asks the task delegate, as URLSession does")
struct ChallengeTests {
    /// A network whose /vault answers 200 to `ada:s3cret` and 401 with a Basic challenge otherwise.
    private func run(_ delegate: ChallengeDelegate) throws -> [String] {
        let scheduler = SimulatedScheduler(seed: 7, violationPolicy: .record)
        let network = SimulatedNetwork(scheduler: scheduler)
        let sent = Mutex<[String]>([])
        network.route(path: "/vault") { request, _ in
            let authorization = request.headerFields[.authorization]
            sent.withLock { $0.append(authorization ?? "-") }
            return authorization == "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
                ? .response(.text(200, "the vault"))
                : .response(.text(401, "denied", headers: [("WWW-Authenticate", #"Basic realm="vault", charset="UTF-8""#)]))
        }
        let harness = Harness(network: network, decodesContentEncoding: true)
        defer { harness.endSimulation() }
        let root = scheduler.makeSimulatedQueue(label: "client.rootQueue", target: nil)
        let session = harness.makeSession(configuration: .ephemeral, delegate: delegate, delegateQueue: root)
        root.async { session.dataTask(with: URL(string: "http://api.test:8080/vault")!).resume() }
        try scheduler.runUntilIdle()
        return sent.withLock { $0 }
    }

    @Test("a client's own URLSession (built from the harness's configuration) is asked too; async data(for:) gets the 200")
    func ownSession() async throws {
        let network = SimulatedNetwork(scheduler: SimulatedScheduler(seed: 3))
        let harness = Harness(network: network)
        network.route(path: "/vault") { request, _ in
            request.headerFields[.authorization] == "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
                ? .response(.text(200, "the vault"))
                : .response(.text(401, "denied", headers: [("WWW-Authenticate", #"Basic realm="vault""#)]))
        }
        let delegate = ChallengeDelegate(.credentialOnce)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: harness.configuration(), delegate: delegate, delegateQueue: queue)
        defer { session.invalidateAndCancel() }
        let (data, response) = try await harness.serving { try await session.data(from: URL(string: "http://api.test/vault")!) }
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && String(decoding: data, as: UTF8.self) == "the vault")
        #expect(delegate.challenges.count == 1)
    }

    @Test("answered with a credential, the request goes again with Authorization: Basic on the simulated network and the client gets the 200")
    func credentialAnswers() throws {
        let delegate = ChallengeDelegate(.credentialOnce)
        let sent = try run(delegate)
        #expect(sent == ["-", "Basic YWRhOnMzY3JldA=="])
        #expect(delegate.status == 200 && delegate.text == "the vault")
        #expect(delegate.challenges == ["\(NSURLAuthenticationMethodHTTPBasic) vault api.test:8080 #0 401"])
    }

    @Test("a wrong credential is asked about again with the failure counted; rejected then, the 401 is the answer, its challenge renamed")
    func wrongCredential() throws {
        let delegate = ChallengeDelegate(.credentialOnce, password: "wrong")
        let sent = try run(delegate)
        #expect(sent.count == 2 && sent[1] != "-")
        #expect(delegate.challenges.map { $0.split(separator: " ")[3] } == ["#0", "#1"])
        #expect(delegate.status == 401 && delegate.text == "denied")
        #expect(delegate.renamedChallenge?.hasPrefix("Basic realm=") == true)
    }

    @Test("default handling (no credential) makes the 401 the answer after one question; a delegate that always answers wrongly stops at the redirect limit")
    func defaultAndLimit() throws {
        let plain = ChallengeDelegate(.defaultHandling)
        #expect(try run(plain) == ["-"])
        #expect(plain.status == 401 && plain.challenges.count == 1)
        let stubborn = ChallengeDelegate(.credentialAlways, password: "wrong")
        let sent = try run(stubborn)
        #expect(sent.count == 17 && stubborn.status == 401, "\(sent.count)")
    }
}
