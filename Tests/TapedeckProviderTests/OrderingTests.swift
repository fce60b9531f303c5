import Foundation
import Testing
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling

/// Moya creates each Alamofire request inside `session.requestQueue.sync { }` and installs the
/// plugins' `willSend` there. The argument: the requestQueue targets the rootQueue; with eager setup
/// the session queues the request's setup asynchronously (rootQueue, then requestQueue), and the
/// adaptation that calls `willSend` runs in that setup; a `sync` onto the requestQueue holds the
/// root, so the block — creation and installation — runs first. These tests check that argument on
/// the simulated scheduler, and show what happens without the `sync`.
@Suite("Provider: the requestQueue.sync ordering")
struct OrderingTests {
    /// What one seeded world did: the plugin's log and the trace's step names.
    struct Run {
        let log: [String]
        let steps: [String]
        let completed: Bool
        let requestQueue: String
    }

    static func run(seed: UInt64, setup: Session.RequestSetup, guarded: Bool) throws -> Run {
        let world = World(seed: seed, requestSetup: setup)
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(session: world.session, plugins: [RecordingPlugin(name: "p", log: log)])
        if !guarded {
            // The caller's thread, descheduled between creating the request and installing willSend:
            // a hop through a root of its own, so the seed picks which side runs first.
            provider.requestCreation = .unguarded(preemptionQueue: world.scheduler.makeQueue(label: "app.caller", target: nil))
        }
        let completed = Box(false)
        provider.request(.zen) { _ in completed.value = true }
        try world.run()
        return Run(log: log.value, steps: world.steps, completed: completed.value, requestQueue: world.session.requestQueue.label)
    }

    @Test("with requestQueue.sync, an eager session's setup runs after the block: willSend reaches the plugins under every seed")
    func syncGuardsEagerSetup() throws {
        for seed in UInt64(0)..<64 {
            let run = try Self.run(seed: seed, setup: .eager, guarded: true)
            #expect(run.log == ["p.prepare zen", "p.willSend zen prepared=p", "p.didReceive zen 200", "p.process zen 200"], "seed \(seed)")
            // The block runs as a `sync` step on the requestQueue; the setup the session queued in it
            // (perform on the rootQueue, then setup on the requestQueue) runs afterwards.
            let sync = try #require(run.steps.firstIndex(of: "sync \(run.requestQueue)"), "seed \(seed)")
            let perform = try #require(run.steps.firstIndex(of: "perform"))
            let setup = try #require(run.steps.firstIndex(of: "setup"))
            let willSend = try #require(run.steps.firstIndex { $0.hasPrefix("provider.willSend") })
            #expect(sync < perform && perform < setup && setup < willSend, "seed \(seed)")
        }
    }

    @Test("without the sync, an eager session can adapt the first request before willSend is installed: the plugins miss it under some seeds")
    func unguardedEagerSetupMissesWillSend() throws {
        var missed: [UInt64] = []
        for seed in UInt64(0)..<64 {
            let run = try Self.run(seed: seed, setup: .eager, guarded: false)
            #expect(run.completed, "the request itself still completes (seed \(seed))")
            #expect(run.log.contains("p.prepare zen"), "prepare is known from the start (seed \(seed))")
            let setup = try #require(run.steps.firstIndex(of: "setup"))
            let resumed = try #require(run.steps.firstIndex(of: "provider.callerResumes"))
            if run.log.contains(where: { $0.hasPrefix("p.willSend") }) {
                #expect(resumed < setup, "willSend was seen only when the caller resumed first (seed \(seed))")
            } else {
                #expect(setup < resumed, "seed \(seed)")
                missed.append(seed)
            }
        }
        #expect(!missed.isEmpty, "some seeds run the session's setup before the caller resumes")
        #expect(missed.count < 64, "and some do not")
        #expect(!missed.contains(0), "the FIFO seed runs the caller's continuation (queued first) before the setup")
    }

    @Test("with lazy setup (Alamofire 5.11+, our default) nothing runs before resume(), so even without the sync willSend is never missed")
    func lazySetupNeedsNoGuard() throws {
        for seed in UInt64(0)..<32 {
            let run = try Self.run(seed: seed, setup: .lazy, guarded: false)
            #expect(run.log.contains("p.willSend zen prepared=p"), "seed \(seed)")
        }
    }

    @Test("a request made from the session's own rootQueue (a completion that chains another) runs the block inline: no deadlock, no violation")
    func fromTheRootQueue() throws {
        let world = World(requestSetup: .eager)
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(session: world.session, plugins: [RecordingPlugin(name: "p", log: log)])
        let second = Box<String?>(nil)
        provider.request(.zen) { _ in
            provider.request(.user("chained")) { result in second.value = describe(result) }
        }
        try world.run()   // fails on any queue violation (a sync deadlock would be one)
        #expect(second.value == "200")
        #expect(log.value.filter { $0.hasPrefix("p.willSend") }.count == 2)
        #expect(world.steps.filter { $0 == "sync \(world.session.requestQueue.label)" }.count == 1,
                "only the first request (made from the test, off the session's queues) needed a sync")
    }
}
