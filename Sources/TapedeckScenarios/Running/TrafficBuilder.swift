import Foundation
import TapedeckCassettes
import TapedeckNetwork
import TapedeckScheduling

/// Puts a scenario's traffic on the network, in the order routes are tried: the token server
/// (which answers tokens and 401s, and lets authorised requests through), the stubs, then the
/// cassette — replayed, or recorded into when a record mode is given.
struct TrafficBuilder {
    let scenario: Scenario
    let network: SimulatedNetwork
    let recordMode: CassetteRecorder.Mode?
    /// Cassettes already read (exploring many seeds), or nil to read the file each run.
    var cassettes: CassetteCache? = nil

    struct Built {
        var tokenServer: TokenServer?
        var recorder: CassetteRecorder?
    }

    func build() throws(ScenarioError) -> Built {
        var built = Built()
        let traffic = scenario.traffic
        if let auth = traffic.auth {
            let expiries = scenario.faults.compactMap { site -> Duration? in
                if case let .tokenExpiry(at) = site.kind { return at }
                return nil
            }
            let server = TokenServer(auth, expiries: expiries)
            network.add(Route(.any, responder: server))
            built.tokenServer = server
        }
        for stub in traffic.stubs {
            let latency: Latency = stub.jitter > .zero ? .jittered(base: stub.latency, jitter: stub.jitter)
                : stub.latency > .zero ? .fixed(stub.latency) : .none
            network.add(Route(.any, responder: SequenceResponder(stub), options: RouteOptions(latency: latency, bandwidth: stub.bandwidth)))
        }
        if let cassette = traffic.cassette {
            let options = RouteOptions(latency: .recorded(scale: cassette.timingScale))
            if let recordMode {
                let recorder = try open(cassette, mode: recordMode)
                network.add(Route(.any, responder: recorder, options: options))
                built.recorder = recorder
            } else {
                let player: CassettePlayer
                do {
                    if let cassettes {
                        player = CassettePlayer(cassette: try cassettes.cassette(at: cassette.url), rules: cassette.rules,
                                                afterLast: cassette.afterLast, source: cassette.url.path)
                    } else {
                        player = try CassettePlayer(contentsOf: cassette.url, rules: cassette.rules, afterLast: cassette.afterLast)
                    }
                } catch {
                    throw ScenarioError(file: scenario.source?.path ?? "", path: "traffic.cassette",
                                        reason: "the cassette cannot be used: \(error)",
                                        hint: FileManager.default.fileExists(atPath: cassette.url.path) ? "" : "record it with tapedeck run FILE --record once")
                }
                network.add(Route(.any, responder: player, options: options))
            }
        } else if let recordMode {
            throw ScenarioError(file: scenario.source?.path ?? "", path: "traffic",
                                reason: "--record \(recordMode.rawValue) needs a cassette to record into", hint: "add traffic.cassette")
        }
        return built
    }

    private func open(_ cassette: CassetteSource, mode: CassetteRecorder.Mode) throws(ScenarioError) -> CassetteRecorder {
        do {
            return try CassetteRecorder(cassette: cassette.url, options: CassetteRecorder.Options(
                mode: mode, rules: cassette.rules, afterLast: cassette.afterLast,
                live: LiveForwarder.Options(upstream: scenario.traffic.upstream)))
        } catch {
            throw ScenarioError(file: scenario.source?.path ?? "", path: "traffic.cassette", reason: "cannot record: \(error)")
        }
    }
}
