import Foundation
import Testing
import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session's and a request's cached-response handlers (Alamofire's `ResponseCacher`), asked when
/// URLSession offers a response to its cache; and a server-trust manager kept as Alamofire keeps it
/// on Linux.
@Suite("Pipeline: cached-response handlers and the server-trust manager")
struct CachingTrustTests {
    struct DevTrust: ServerTrustEvaluating {}

    /// What the session's delegate answers when URLSession offers `task`'s response to the cache.
    static func offer(_ session: Session, _ task: URLSessionTask) -> String {
        let proposed = CachedURLResponse(
            response: HTTPURLResponse(url: URL(string: "http://api.test/get")!, statusCode: 200, httpVersion: nil, headerFields: [:])!,
            data: Data("fresh".utf8))
        var answer = "not answered"
        session.delegate.urlSession(session.session, dataTask: task as! URLSessionDataTask, willCacheResponse: proposed) { cached in
            answer = cached.map { String(decoding: $0.data, as: UTF8.self) } ?? "none"
        }
        return answer
    }

    @Test("the request's handler decides, else the session's; a modifying cacher changes what is stored")
    func cacheHandlers() throws {
        let scheduler = SimulatedScheduler(seed: 0, violationPolicy: .record)
        let network = SimulatedNetwork(scheduler: scheduler)
        let harness = Harness(network: network)
        defer { harness.endSimulation() }
        let manager = ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: ["api.test": DevTrust()])
        let session = Session(provider: harness, scheduler: scheduler, serverTrustManager: manager, cachedResponseHandler: ResponseCacher.doNotCache)
        network.route(host: "api.test", path: "/get") { _, _ in .response(.json(200, "{}")) }
        let answers = Box<[String]>([])
        session.request("http://api.test/get").onURLSessionTaskCreation { task in answers.mutate { $0.append(Self.offer(session, task)) } }
            .response { _ in }
        session.request("http://api.test/get").cacheResponse(using: .cache)
            .onURLSessionTaskCreation { task in answers.mutate { $0.append(Self.offer(session, task)) } }.response { _ in }
        session.request("http://api.test/get")
            .cacheResponse(using: .modify { _, cached in CachedURLResponse(response: cached.response, data: Data("changed".utf8)) })
            .onURLSessionTaskCreation { task in answers.mutate { $0.append(Self.offer(session, task)) } }.response { _ in }
        try scheduler.runUntilIdle()
        #expect(answers.value == ["none", "fresh", "changed"])
        #expect(session.serverTrustManager === manager && session.serverTrustManager?.evaluators["api.test"] is DevTrust)
        #expect(session.serverTrustManager?.allHostsMustBeEvaluated == false)
    }
}
