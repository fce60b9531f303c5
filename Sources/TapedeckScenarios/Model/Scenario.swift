public import Foundation
import TapedeckScheduling

/// A situation to simulate, as a scenario file describes it: the traffic (a cassette and/or
/// stubs, a token server), the client (queues, retry, validation, authentication, timeouts), a
/// script of requests and cancels, the faults to inject, and what must come out.
///
/// ```swift
/// let scenario = try Scenario.load(URL(fileURLWithPath: "fixtures/scenarios/retry-storm.yaml"))
/// let outcome = try ScenarioRunner().run(scenario, seed: 7)
/// print(outcome.passed, outcome.traceHash)
/// ```
///
/// The file format is documented in docs/scenarios.md (JSON Schema: docs/scenario.schema.json).
public struct Scenario: Hashable, Sendable {
    /// The scenario's name (the file's name without extension unless the file says).
    public var name: String
    /// What it demonstrates and what its expectations pin.
    public var description: String
    /// The file it was loaded from (relative paths in it resolve against its directory).
    public var source: URL?
    /// The seed `tapedeck run` uses when none is given.
    public var seed: UInt64
    /// What answers: a cassette, stubs, a token server, an upstream to record from.
    public var traffic: Traffic
    /// How the client is set up (queues, retry, validation, authentication, timeouts).
    public var client: ClientSetup
    /// The requests and cancels, in order.
    public var script: [ScriptStep]
    /// The fault sites (the catalogue's kinds, targeted and weighted).
    public var faults: [FaultSite]
    /// What must hold per request, and which invariants every run checks.
    public var expectations: Expectations
    /// An explicit schedule of fault decisions (the file's `schedule:`): when present, the run
    /// makes exactly these fault decisions and no random ones.
    public var schedule: Schedule?
    /// Where some keys are in the file (`traffic`, `traffic.cassette`), for errors found when the
    /// run starts rather than when the file is read. Not part of the scenario's identity.
    var marks = SourceMarks()
    /// What the file says that can never take effect (``ScenarioRunner/warnings(for:)`` reports
    /// them). Not part of the scenario's identity.
    var warnings = LoadWarnings()
    /// The files it was read from. Not part of the scenario's identity.
    var inputs = InputFiles()

    /// The files the scenario was read from: the file itself, then each file it names (its
    /// cassette, body files) in file order; empty for a scenario built in code. The CLI refuses
    /// to write an output over any of them.
    public var inputFiles: [URL] { inputs.urls }

    /// An empty scenario named `name` (fill in its parts in code).
    public init(name: String, description: String = "", source: URL? = nil, seed: UInt64 = 1, traffic: Traffic = Traffic(),
                client: ClientSetup = ClientSetup(), script: [ScriptStep] = [], faults: [FaultSite] = [],
                expectations: Expectations = Expectations(), schedule: Schedule? = nil) {
        self.name = name
        self.description = description
        self.source = source
        self.seed = seed
        self.traffic = traffic
        self.client = client
        self.script = script
        self.faults = faults
        self.expectations = expectations
        self.schedule = schedule
    }

    /// An error about `key` of the file, at its line when the reader noted it (else at the
    /// nearest enclosing key it noted: `traffic.cassette.file`, then `traffic.cassette`, `traffic`).
    func error(at key: String, reason: String, hint: String = "") -> ScenarioError {
        var parts = key.split(separator: ".").map(String.init)
        var mark: SourceMark?
        while !parts.isEmpty, mark == nil {
            mark = marks[parts.joined(separator: ".")]
            parts.removeLast()
        }
        return ScenarioError(file: source?.path ?? "", line: mark?.line ?? 0, column: mark?.column ?? 0, path: key, reason: reason, hint: hint)
    }

    /// The requests the script sends, each repeat separately, in script order.
    public var requests: [ScriptRequest] {
        script.flatMap { step -> [ScriptRequest] in
            guard case let .request(request) = step else { return [] }
            return request.expanded()
        }
    }
}

extension [ScriptRequest] {
    /// The names of the requests `target` names (``ScriptRequest/isNamed(_:)``: that request, or
    /// every repeat of that step), and `target` itself.
    func names(coveredBy target: String) -> Set<String> {
        Set(filter { $0.isNamed(target) }.map(\.name)).union([target])
    }
}

/// Test-only knobs that break the rules on purpose (to show that the checks catch it).
public struct TestHooks: Hashable, Sendable {
    /// A stub reads a process-wide counter, so that two runs of the same seed differ:
    /// `tapedeck check-determinism` must find it.
    public var nondeterministicStub = false

    /// No hooks.
    public init(nondeterministicStub: Bool = false) {
        self.nondeterministicStub = nondeterministicStub
    }
}

/// Where keys are in a scenario's file. Two scenarios that say the same thing are equal however
/// their files were laid out, so these never take part in equality or hashing.
struct SourceMarks: Hashable, Sendable {
    private var byKey: [String: SourceMark] = [:]

    subscript(key: String) -> SourceMark? {
        get { byKey[key] }
        set { byKey[key] = newValue }
    }

    static func == (lhs: SourceMarks, rhs: SourceMarks) -> Bool { true }

    func hash(into hasher: inout Hasher) {}
}

/// The files a scenario was read from (``Scenario/inputFiles``); equal whatever they are.
struct InputFiles: Hashable, Sendable {
    var urls: [URL] = []

    static func == (lhs: InputFiles, rhs: InputFiles) -> Bool { true }

    func hash(into hasher: inout Hasher) {}
}
