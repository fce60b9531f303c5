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
            let options = RouteOptions(latency: latency, bandwidth: stub.bandwidth,
                                       chunkSize: stub.bandwidth.map { RouteOptions.chunkSize(forBandwidth: $0) } ?? RouteOptions.defaultChunkSize)
            network.add(Route(.any, responder: SequenceResponder(stub), options: options))
        }
        if let recordMode, traffic.upstream == nil || traffic.cassette == nil {
            // Without an upstream the recorder would send the script's own URLs to the live network.
            // Both missing pieces are named at once.
            var missing: [String] = [], hints: [String] = []
            if traffic.upstream == nil {
                missing.append("traffic.upstream: the server to record from")
                hints.append("add 'upstream: http://HOST:PORT' under traffic (requests go there, with their path and query; nothing is sent anywhere without it)")
            }
            if traffic.cassette == nil {
                missing.append("traffic.cassette: where to record")
                hints.append("add 'cassette: NAME.har.gz' under traffic")
            }
            throw scenario.error(at: "traffic", reason: "--record \(recordMode.rawValue) needs " + missing.joined(separator: ", and "),
                                 hint: hints.joined(separator: "; "))
        }
        if let cassette = traffic.cassette {
            let options = RouteOptions(latency: .recorded(scale: cassette.timingScale))
            if let recordMode {
                let recorder = try open(cassette, mode: recordMode)
                network.add(Route(.any, responder: recorder, options: options))
                built.recorder = recorder
            } else {
                network.add(Route(.any, responder: try loader.player(for: cassette), options: options))
            }
        }
        return built
    }

    private var loader: CassetteLoader { CassetteLoader(scenario: scenario, cassettes: cassettes) }

    private func open(_ cassette: CassetteSource, mode: CassetteRecorder.Mode) throws(ScenarioError) -> CassetteRecorder {
        do {
            return try CassetteRecorder(cassette: cassette.url, options: CassetteRecorder.Options(
                mode: mode, rules: cassette.rules, afterLast: cassette.afterLast,
                live: LiveForwarder.Options(upstream: scenario.traffic.upstream)))
        } catch {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: cassette.url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw loader.cassetteError(cassette, error)
            }
            throw scenario.error(at: scenario.marks["traffic.cassette.file"] != nil ? "traffic.cassette.file" : "traffic.cassette",
                                 reason: "cannot record: \(error)")
        }
    }
}

/// Reads a scenario's cassette for replay, or says why it cannot, at its line in the file.
struct CassetteLoader {
    let scenario: Scenario
    /// Cassettes already read (exploring many seeds), or nil to read the file each time.
    let cassettes: CassetteCache?

    /// The player of the scenario's cassette (replay), or the error a run would stop with.
    func player(for cassette: CassetteSource) throws(ScenarioError) -> CassettePlayer {
        do {
            if let cassettes { return try cassettes.player(for: cassette) }
            return try CassettePlayer(contentsOf: cassette.url, rules: cassette.rules, afterLast: cassette.afterLast)
        } catch {
            throw cassetteError(cassette, error)
        }
    }

    /// Why a cassette cannot be replayed, at its line in the file, with what to do about it.
    func cassetteError(_ cassette: CassetteSource, _ error: any Error) -> ScenarioError {
        let path = cassette.url.path
        let shown = OutcomeBuilder.displayPath(path)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let file = Outcome.shellQuoted(OutcomeBuilder.displayPath(scenario.source?.path ?? "FILE"))
        // `cassette: PATH`, or `cassette: {file: PATH, ...}`.
        let key = scenario.marks["traffic.cassette.file"] != nil ? "traffic.cassette.file" : "traffic.cassette"
        if !exists {
            let hint = scenario.traffic.upstream != nil
                ? "check the path, or record it from the upstream with tapedeck run \(file) --record once"
                : "check the path (it is relative to the scenario file); to record one, add traffic.upstream and run tapedeck run \(file) --record once"
            return scenario.error(at: key, reason: "the cassette \(shown) does not exist", hint: hint)
        }
        if isDirectory.boolValue {
            return scenario.error(at: key, reason: "\(shown) is a directory, not a cassette",
                                  hint: "name the .har or .har.gz file in it")
        }
        return scenario.error(at: key, reason: "the cassette cannot be used: \(error)",
                              hint: "check it with tapedeck cassette validate \(Outcome.shellQuoted(shown))")
    }
}
