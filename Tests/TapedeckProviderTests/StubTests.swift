import Foundation
import Testing
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stub behaviours on the virtual clock: immediate, delayed, custom sample responses, cancellation.
@Suite("Provider: stubs on the virtual clock")
struct StubTests {
    /// When (virtual time) and with what each completion ran.
    final class Completions: Sendable {
        let entries = Box<[(time: VirtualInstant, result: String)]>([])
        let results = Box<[Result<Response, ProviderError>]>([])

        func record(_ scheduler: SimulatedScheduler) -> MoyaProvider<API>.Completion {
            { [self] result in
                entries.mutate { $0.append((scheduler.now, describe(result))) }
                results.mutate { $0.append(result) }
            }
        }
    }

    @Test("an immediate stub answers with the sample data at t = 0 on the session's rootQueue, without touching the network")
    func immediate() throws {
        let world = World()
        let provider = MoyaProvider<API>(session: world.session, stubClosure: { MoyaProvider.immediatelyStub($0) })
        let onRoot = Box(false)
        let text = Box<String?>(nil)
        provider.request(.zen) { result in
            onRoot.value = world.session.rootQueue.isCurrent
            text.value = try? result.get().mapString()
        }
        #expect(text.value == nil, "nothing runs before the scheduler does")
        try world.run()
        #expect(text.value == "Half measures are as bad as nothing at all.")
        #expect(onRoot.value)
        #expect(world.scheduler.now == .zero)
        #expect(world.network.records.isEmpty)
    }

    @Test("a 5 s delayed stub completes at exactly t = 5 s of virtual time, with the prepared request and a 200 HTTP response")
    func delayed() throws {
        let world = World()
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(session: world.session, stubClosure: MoyaProvider.delayedStub(5),
                                           plugins: [RecordingPlugin(name: "p", log: log)])
        let completions = Completions()
        provider.request(.user("ada"), completion: completions.record(world.scheduler))
        try world.scheduler.run(until: seconds(4.999))
        #expect(completions.entries.value.isEmpty)
        #expect(log.value == ["p.prepare user(\"ada\")", "p.willSend user(\"ada\") prepared=p"], "prepare and willSend at the request's instant")
        try world.run()
        #expect(completions.entries.value.map(\.time) == [seconds(5)])
        let response = try #require(try? completions.results.value.first?.get())
        #expect(try response.map(User.self) == User(login: "ada", id: 1))
        #expect(response.request?.value(forHTTPHeaderField: "X-Prepared") == "p")
        #expect(response.response?.statusCode == 200 && response.response?.url?.absoluteString == "http://api.test/users/ada")
        #expect(world.scheduler.now == seconds(5))
    }

    @Test("delays count from each request's own instant: requests at t = 1 s and t = 2 s with 3 s stubs end at 4 s and 5 s")
    func delaysFromRequestInstant() throws {
        let world = World()
        let provider = MoyaProvider<API>(session: world.session, stubClosure: MoyaProvider.delayedStub(3))
        let completions = Completions()
        let caller = world.scheduler.makeQueue(label: "app", target: nil)
        caller.asyncAfter(deadline: seconds(1)) { provider.request(.zen, completion: completions.record(world.scheduler)) }
        caller.asyncAfter(deadline: seconds(2)) { provider.request(.user("b"), completion: completions.record(world.scheduler)) }
        try world.run()
        #expect(completions.entries.value.map(\.time) == [seconds(4), seconds(5)])
    }

    @Test("custom sample responses: a network error arrives as .underlying(thatError, nil); a status and body; an HTTPURLResponse, the same object")
    func customSamples() throws {
        let world = World()
        let http = HTTPURLResponse(url: URL(string: "http://api.test/zen")!, statusCode: 202, httpVersion: "HTTP/1.1",
                                   headerFields: ["X-Sample": "yes"])!
        let samples: [API: EndpointSampleResponse] = [
            .zen: .networkError(URLError(.notConnectedToInternet)),
            .user("a"): .networkResponse(418, Data("teapot".utf8)),
            .user("b"): .response(http, Data("accepted".utf8)),
        ]
        let provider = MoyaProvider<API>(
            session: world.session,
            endpointClosure: { target in
                let endpoint = MoyaProvider.defaultEndpointMapping(for: target)
                let sample = samples[target]!
                return Endpoint(url: endpoint.url, sampleResponseClosure: { sample }, method: endpoint.method, task: endpoint.task,
                                httpHeaderFields: endpoint.httpHeaderFields)
            },
            stubClosure: { MoyaProvider.immediatelyStub($0) })
        let results = Box<[API: Result<Response, ProviderError>]>([:])
        for target in [API.zen, .user("a"), .user("b")] {
            provider.request(target) { result in results.mutate { $0[target] = result } }
        }
        try world.run()
        guard case let .failure(.underlying(error as URLError, nil))? = results.value[.zen] else {
            Issue.record("expected .underlying(URLError, nil), got \(String(describing: results.value[.zen]))")
            return
        }
        #expect(error.code == .notConnectedToInternet)
        #expect(results.value[.zen]?.failureError?.urlError?.code == .notConnectedToInternet)
        let teapot = try #require(try? results.value[.user("a")]?.get())
        #expect(teapot.statusCode == 418 && teapot.data == Data("teapot".utf8), "no validation on this target")
        let accepted = try #require(try? results.value[.user("b")]?.get())
        #expect(accepted.response === http && accepted.statusCode == 202)
    }

    @Test("a stub that fails the target's validation fails as the network would: .underlying(ClientError unacceptableStatusCode, response)")
    func stubValidation() throws {
        let world = World()
        let failing = MoyaProvider<StubbedTarget>(session: world.session)
        let target = StubbedTarget(.get, "http://api.test/status/404", sample: .networkResponse(404, Data()),
                                   validationType: .successCodes, stubBehavior: .immediate)
        let network = StubbedTarget(.get, "http://api.test/status/404", validationType: .successCodes)
        let results = Box<[String: Result<Response, ProviderError>]>([:])
        failing.request(target) { result in results.mutate { $0["stub"] = result } }
        failing.request(network) { result in results.mutate { $0["network"] = result } }
        try world.run()
        for (path, result) in results.value {
            guard case let .failure(error) = result else {
                Issue.record("\(path): expected a failure")
                continue
            }
            #expect(error.clientError?.responseCode == 404, "\(path)")
            #expect(error.response?.statusCode == 404, "\(path): the response is kept")
        }
        #expect(results.value.count == 2)
    }

    @Test("cancelling a 5 s stub at t = 2 s completes it at t = 2 s with a cancellation; the clock never runs to 5 s")
    func cancelDelayed() throws {
        let world = World()
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(session: world.session, stubClosure: MoyaProvider.delayedStub(5),
                                           plugins: [RecordingPlugin(name: "p", log: log)])
        let completions = Completions()
        let token = provider.request(.zen, completion: completions.record(world.scheduler))
        world.scheduler.makeQueue(label: "app", target: nil).asyncAfter(deadline: seconds(2)) { token.cancel() }
        try world.run()
        #expect(token.isCancelled)
        #expect(completions.entries.value.map(\.time) == [seconds(2)])
        #expect(completions.entries.value.map(\.result) == ["cancelled"])
        #expect(world.scheduler.now == seconds(2), "the cancelled timer is gone")
        #expect(log.value.suffix(2) == ["p.didReceive zen cancelled", "p.process zen cancelled"])
    }

    @Test("a token cancelled before the scheduler runs: no prepare, no willSend, didReceive and the completion see the cancellation")
    func cancelBeforeRunning() throws {
        let world = World()
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(session: world.session, stubClosure: { MoyaProvider.immediatelyStub($0) },
                                           plugins: [RecordingPlugin(name: "p", log: log)])
        let completions = Completions()
        provider.request(.zen, completion: completions.record(world.scheduler)).cancel()
        try world.run()
        #expect(completions.entries.value.map(\.result) == ["cancelled"])
        #expect(log.value == ["p.didReceive zen cancelled", "p.process zen cancelled"])
        let error = try #require(completions.results.value.first?.failureError)
        #expect(error.isExplicitlyCancelled)
        guard case .underlying(ClientError.explicitlyCancelled, nil) = error else {
            Issue.record("expected .underlying(ClientError.explicitlyCancelled, nil), got \(error)")
            return
        }
    }
}

extension Result {
    var failureError: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
