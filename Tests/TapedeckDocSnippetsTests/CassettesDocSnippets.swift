// The Swift snippets of docs/cassettes.md ("In tests", which shows its imports, is alone in
// CassettesDocInTestsSnippet.swift). One function per snippet, as written plus the least
// scaffolding (the variables the page assumes — `url`, `network`, `harness`, `root` — come in as
// parameters); lines added for a test are marked `// (test)`.

import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckCassettes
import TapedeckClient
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Snippets

/// docs/cassettes.md, "Replay".
private func cassettes_replay(url: URL, network: SimulatedNetwork, harness: Harness, root: SimulatedQueue) throws -> URLSession {
    let player = try CassettePlayer(contentsOf: url)            // recovers a journal first
    network.add(Route(.any, responder: player,
                      options: RouteOptions(latency: .recorded(scale: 1))))   // 0: instant, 2: twice as slow
    let session = harness.makeSession(delegate: nil, delegateQueue: root)
    return session
}

/// docs/cassettes.md, "Recording". `... run the simulation ...` is the reader's: here, one request.
private func cassettes_recording(url: URL, network: SimulatedNetwork, runTheSimulation: () throws -> Void) throws -> CassetteRecorder.Summary {
    let recorder = try CassetteRecorder(cassette: url, options: .init(mode: .once))
    network.add(Route(.any, responder: recorder, options: RouteOptions(latency: .recorded(scale: 1))))
    try runTheSimulation()   // ... run the simulation ...
    let summary = try recorder.finish()   // replayed / recorded / misses / recorded transport failures
    return summary
}

// MARK: - Tests

@Suite("docs/cassettes.md: the snippets compile and do what the page says")
struct CassettesDocSnippetTests {
    @Test("Replay: a session of the harness gets the recorded answer from the player")
    func replay() throws {
        // Given the page's player on a network, and the session it makes
        let scheduler = SimulatedScheduler(seed: 1)
        let network = SimulatedNetwork(scheduler: scheduler)
        let harness = Harness(network: network)
        let root = scheduler.makeSimulatedQueue(label: "app.rootQueue", target: nil)
        let session = try cassettes_replay(url: repositoryFile("fixtures/cassettes/shop.har.gz"),
                                           network: network, harness: harness, root: root)
        // When a recorded request is sent
        let answer = Box<(status: Int?, body: Data?)>((nil, nil))
        root.async {
            session.dataTask(with: URL(string: "http://api.shop.test/get?page=1")!) { data, response, _ in
                answer.withLock { $0 = ((response as? HTTPURLResponse)?.statusCode, data) }
            }.resume()
        }
        try scheduler.runUntilIdle()
        // Then the recorded answer comes back
        let (status, body) = answer.withLock { $0 }
        #expect(status == 200)
        #expect(String(decoding: body ?? Data(), as: UTF8.self).contains("page"))
        harness.endSimulation()
    }

    @Test("Replay: latency .recorded(scale:) 0 answers at once, 2 takes twice as long as 1")
    func replayScales() throws {
        // Given the recorded 120 ms request, replayed at a scale
        func elapsed(scale: Double) throws -> Duration {
            let scheduler = SimulatedScheduler(seed: 1)
            let network = SimulatedNetwork(scheduler: scheduler)
            let player = try CassettePlayer(contentsOf: repositoryFile("fixtures/cassettes/shop.har.gz"))
            network.add(Route(.any, responder: player, options: RouteOptions(latency: .recorded(scale: scale))))
            let session = Session(provider: Harness(network: network), scheduler: scheduler)
            session.request("http://api.shop.test/delay/120").responseData { _ in }
            try scheduler.runUntilIdle()
            return VirtualInstant.zero.duration(to: scheduler.now)
        }
        // When it is replayed at 0, 1 and 2, Then 0 takes no time and 2 twice what 1 takes
        let once = try elapsed(scale: 1)
        #expect(try elapsed(scale: 0) == .zero)
        #expect(once > .milliseconds(100))
        #expect(try elapsed(scale: 2) == once * 2)
    }

    @Test("Recording: a recorder in `once` mode over an existing cassette replays it, and finish() counts it")
    func recording() throws {
        // Given a copy of the shop cassette
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("shop.har.gz")
        try FileManager.default.copyItem(at: repositoryFile("fixtures/cassettes/shop.har.gz"), to: url)
        let scheduler = SimulatedScheduler(seed: 1)
        let network = SimulatedNetwork(scheduler: scheduler)
        let client = Session(provider: Harness(network: network), scheduler: scheduler)
        // When the page's recorder (once: the cassette exists, so it replays) serves one recorded request
        let summary = try cassettes_recording(url: url, network: network) {
            client.request("http://api.shop.test/get?page=1").responseData { _ in }
            try scheduler.runUntilIdle()
        }
        // Then finish() counts it as replayed, with nothing recorded and nothing missed
        #expect(summary.replayed == 1)
        #expect(summary.recorded == 0)
        #expect(summary.misses.isEmpty)
    }
}
