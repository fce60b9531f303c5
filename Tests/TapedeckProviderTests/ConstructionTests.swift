import Foundation
import Testing
import TapedeckClient
import TapedeckProvider
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Providers made as Moya code makes them: Moya's initialiser (every argument optional, in Moya's
/// order), its default session, `DispatchQueue` callback queues, progress blocks, and subclasses.
@Suite("Provider: made as Moya makes it")
struct ConstructionTests {
    @Test("MoyaProvider<API>() sends through defaultAlamofireSession(): the bound transport's simulated network inside, a live session outside")
    func defaultSession() throws {
        let world = World()
        let provider = world.withTransport { MoyaProvider<API>() }
        #expect(provider.session.scheduler as? SimulatedScheduler === world.scheduler)
        #expect(provider.session.startRequestsImmediately == false, "as Moya makes it: the provider resumes its requests")
        #expect(provider.session.session.configuration.httpAdditionalHeaders?["Accept-Encoding"] != nil, "Alamofire's default header fields")
        let text = Box<String?>(nil)
        provider.request(.zen) { result in text.value = try? result.get().mapString() }
        try world.run()
        #expect(text.value == "Keep it logically awesome.")
        #expect(world.network.records.count == 1)

        let live = MoyaProvider<API>()
        #expect(live.session.scheduler is LiveScheduler)
        #expect(live.callbackQueue == nil)
    }

    @Test("every argument in Moya's order: closures applied, completions on the session's queue standing for the DispatchQueue given to init or to request")
    func moyaOrder() throws {
        let world = World()
        let callbacks = DispatchQueue(label: "app.callbacks")
        let other = DispatchQueue(label: "app.other")
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(
            endpointClosure: { MoyaProvider.defaultEndpointMapping(for: $0).adding(newHTTPHeaderFields: ["X-App": "1"]) },
            requestClosure: { endpoint, done in MoyaProvider<API>.defaultRequestMapping(for: endpoint, closure: done) },
            stubClosure: { $0 == .zen ? .immediate : .never },
            callbackQueue: callbacks,
            session: world.session,
            plugins: [RecordingPlugin(name: "p", log: log)],
            trackInflights: true)
        #expect(provider.callbackQueue?.label == "app.callbacks", "a simulated queue with the DispatchQueue's label")
        let seen = Box<[String]>([])
        provider.request(.zen) { result in
            seen.mutate { $0.append("zen \(world.session.queue(standingFor: callbacks).isCurrent) \(describe(result))") }
        }
        provider.request(.user("ada"), callbackQueue: other) { result in
            let header = (try? result.get())?.request?.value(forHTTPHeaderField: "X-App") ?? "-"
            seen.mutate { $0.append("user \(world.session.queue(standingFor: other).isCurrent) \(describe(result)) X-App=\(header)") }
        }
        try world.run()
        #expect(seen.value.sorted() == ["user true 200 X-App=1", "zen true 200"])
        #expect(world.network.records.count == 1, "zen was stubbed")
        #expect(provider.trackInflights && log.value.contains("p.process zen 200"))
    }

    @Test("a scheduler queue where Moya takes a DispatchQueue: to init (Moya's order or session first) and to request, which hands back the token")
    func schedulerQueues() throws {
        let world = World()
        let queue = world.scheduler.makeQueue(label: "callbacks", target: nil)
        let moyaOrder = MoyaProvider<API>(callbackQueue: queue, session: world.session)
        let sessionFirst = MoyaProvider<API>(session: world.session, callbackQueue: queue)
        #expect(moyaOrder.callbackQueue === queue && sessionFirst.callbackQueue === queue)
        let onQueue = Box<[Bool]>([])
        moyaOrder.request(.zen) { _ in onQueue.mutate { $0.append(queue.isCurrent) } }
        let token: CancellableToken = sessionFirst.request(.zen, callbackQueue: queue) { _ in onQueue.mutate { $0.append(queue.isCurrent) } }
        try world.run()
        #expect(onQueue.value == [true, true])
        #expect(token.debugDescription.hasPrefix("CancellableToken(GET http://api.test/zen"))
    }

    @Test("progress: on the callback queue as the body arrives (no Content-Length here: fraction 0), then completed with the response, before the completion; nothing for a stub")
    func progress() throws {
        let world = World()
        let events = Box<[String]>([])
        let provider = MoyaProvider<API>(stubClosure: { $0 == .zen ? .immediate : .never }, session: world.session)
        provider.request(.user("ada"), progress: { progress in
            events.mutate { $0.append("progress \(progress.progress) \(progress.completed) \(progress.response?.statusCode ?? 0)") }
        }, completion: { result in
            events.mutate { $0.append("completion \(describe(result))") }
        })
        provider.request(.zen, progress: { _ in events.mutate { $0.append("stub progress") } }, completion: { _ in })
        try world.run()
        #expect(events.value == ["progress 0.0 false 0", "progress 1.0 true 200", "completion 200"])
    }

    /// A test double as Moya apps write one: a subclass answering every request itself.
    final class CannedProvider: MoyaProvider<API>, @unchecked Sendable {
        let calls = Box(0)

        @discardableResult
        override func request(
            _ target: API, callbackQueue: DispatchQueue? = .none, progress: ProgressBlock? = .none, completion: @escaping Completion
        ) -> any Cancellable {
            calls.mutate { $0 += 1 }
            completion(.success(Response(statusCode: 299, data: Data("canned \(target)".utf8))))
            return CancellableToken {}
        }

        override func endpoint(_ target: API) -> Endpoint {
            super.endpoint(target).adding(newHTTPHeaderFields: ["X-Double": "1"])
        }
    }

    @Test("a subclass's request override answers request, start and try await request; its endpoint override is used")
    func subclass() async throws {
        let world = World()
        let provider = CannedProvider(session: world.session)
        let viaClosure = Box<String?>(nil)
        provider.request(.zen) { result in viaClosure.value = try? result.get().mapString() }
        let viaStart = try await provider.start(.zen).response.mapString()
        let viaAsync = try await provider.request(.user("ada")).mapString()
        #expect([viaClosure.value, viaStart, viaAsync] == ["canned zen", "canned zen", "canned user(\"ada\")"])
        #expect(provider.calls.value == 3)
        #expect(provider.endpoint(.zen).httpHeaderFields?["X-Double"] == "1")
        #expect(world.network.records.isEmpty)
    }

    @Test("StubbedTarget providers still take each target's own stub behaviour (their initialiser wins over Moya's)")
    func stubbedTargets() throws {
        let world = World()
        let provider = MoyaProvider<StubbedTarget>(session: world.session, plugins: [], trackInflights: false)
        let target = StubbedTarget(.get, "http://api.test/zen", sample: .networkResponse(203, Data()), stubBehavior: .immediate)
        let status = Box<Int?>(nil)
        provider.request(target) { status.value = try? $0.get().statusCode }
        try world.run()
        #expect(status.value == 203)
        #expect(world.network.records.isEmpty)
    }
}
