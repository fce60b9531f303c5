// The Swift snippets this session's additions document: `ForeignCassette`'s `///` examples (read,
// export), `FaultPlanFaults`' and `Tape.injectFaults`' examples, and docs/bridge.md's "Faults from
// a plan file". One function per snippet, as written plus the least scaffolding; lines added for a
// test are marked `// (test)`, and paths the snippets give relative to the working directory are
// resolved against a scratch directory or the repository.

import Foundation
import Testing
import TapedeckCassettes
import TapedeckNetwork
import TapedeckScenarios
import TapedeckScheduling
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Snippets

/// `ForeignCassette`: another tool's cassette read and written as HAR.
private func foreignCassette(in directory: URL) throws -> Cassette {
    let data = try Data(contentsOf: URL(fileURLWithPath: "cassettes/test_login.yaml", relativeTo: directory))   // (test: relativeTo)
    let cassette = try ForeignCassette.read(data, file: "cassettes/test_login.yaml")   // format detected
    try CassetteFile.write(cassette, to: URL(fileURLWithPath: "login.har.gz", relativeTo: directory))   // (test: relativeTo)
    return cassette
}

/// `ForeignCassette.export(_:as:)`.
private func foreignExport(url: URL, directory: URL) throws -> ForeignCassette.Export {
    let export = try ForeignCassette.export(try CassetteFile.read(url), as: .vcrpy)
    try FileManager.default.createDirectory(at: directory.appendingPathComponent("tests/cassettes"), withIntermediateDirectories: true)   // (test)
    try export.data.write(to: URL(fileURLWithPath: "tests/cassettes/test_login.yaml", relativeTo: directory))   // (test: relativeTo)
    return export
}

/// `FaultPlanFaults`. `// … run the client …` is the reader's.
private func faultPlanFaults(directory: URL, network: SimulatedNetwork, runTheClient: () throws -> Void) throws -> FaultPlanFaults {
    let plan = try FaultPlan.load(URL(fileURLWithPath: "fixtures/faults/flaky.yaml", relativeTo: directory))   // (test: relativeTo)
    let faults = FaultPlanFaults(plan: plan, seed: 7)
    network.faults = faults                     // or: tape.injectFaults(plan) in TapedeckTesting
    try runTheClient()   // … run the client …
    for firing in faults.fired { print(firing) } // fault slow (latency) on GET https://api.test/items attempt 1 at 0.000s
    return faults
}

/// `Tape.injectFaults(_:seed:)`, the statements before its `#expect`.
private func injectFaults(tape: Tape, session: URLSession, url: URL, directory: URL) async throws -> (FaultPlanFaults, Data) {
    let faults = tape.injectFaults(try FaultPlan.load(URL(fileURLWithPath: "flaky.yaml", relativeTo: directory)))   // (test: relativeTo)
    let (data, _) = try await tape.serving { try await session.data(from: url) }
    return (faults, data)
}

/// docs/bridge.md, "Faults from a plan file".
private func bridgeFaultsFromAPlanFile(url: URL, itemsURL: URL, directory: URL) async throws -> (FaultPlanFaults, Data, URLResponse) {
    let tape = try Tape(cassette: url, mode: .replayOnly)
    let faults = try tape.injectFaults(from: URL(fileURLWithPath: "flaky.yaml", relativeTo: directory))   // (test: relativeTo)
    let session = URLSession(configuration: tape.configuration())      // or Alamofire's Session(configuration:)
    let (data, response) = try await tape.serving { try await session.data(from: itemsURL) }
    for firing in faults.fired { print(firing) }   // fault first-503 (status) on GET http://api.test/items attempt 1 at 0.000s
    try tape.finish()   // (test)
    return (faults, data, response)
}

// MARK: - Tests

@Suite("Import, export and fault-plan snippets compile and do what they say")
struct ForeignAndFaultsDocSnippets {
    /// A plan that throttles the first `/me`, as the snippets' `flaky.yaml`.
    private func writePlan(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("""
        faults:
          - name: first-503
            kind: status
            status: 503
            route: GET https://api.example/me
            attempts: 1
        """.utf8).write(to: url)
    }

    @Test("ForeignCassette reads a vcrpy file into a cassette it writes as HAR; export writes it back as vcrpy's YAML")
    func foreign() throws {
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("cassettes"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: repositoryFile("fixtures/interop/foreign/vcrpy-requests.yaml"),
                                        to: directory.url.appendingPathComponent("cassettes/test_login.yaml"))
        let cassette = try foreignCassette(in: directory.url)
        #expect(cassette.interactions.count == 11)
        #expect(try CassetteFile.read(directory.file("login.har.gz")).interactions.count == 11)
        let export = try foreignExport(url: directory.file("login.har.gz"), directory: directory.url)
        #expect(export.written == 11 && export.leftOut.isEmpty)
        let back = try ForeignCassette.read(Data(contentsOf: directory.file("tests/cassettes/test_login.yaml")), file: "back")
        #expect(back.interactions.map(\.request.url) == cassette.interactions.map(\.request.url))
    }

    @Test("FaultPlanFaults on a network strikes the plan's site, and lists it")
    func faultPlan() throws {
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        try writePlan(directory.file("fixtures/faults/flaky.yaml"))
        let tape = try Tape(cassette: snippetCassettes.appendingPathComponent("login.har.gz"), mode: .replayOnly)
        var status: Int?
        let faults = try faultPlanFaults(directory: directory.url, network: tape.network) {
            status = try? tape.perform(URL(string: "https://api.example/me")!).response.statusCode
        }
        #expect(status == 503)
        #expect(faults.fired.map(\.site) == ["first-503"] && faults.seed == 7)
        try tape.finish()
    }

    @Test("Tape.injectFaults and bridge.md's example: the first /me is a 503, listed; the plan's seed or the tape's decides")
    func tapeFaults() async throws {
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        try writePlan(directory.file("flaky.yaml"))
        let me = URL(string: "https://api.example/me")!
        let tape = try Tape(cassette: snippetCassettes.appendingPathComponent("login.har.gz"), mode: .replayOnly)
        let session = URLSession(configuration: tape.configuration())
        let (faults, _) = try await injectFaults(tape: tape, session: session, url: me, directory: directory.url)
        #expect(faults.fired.map(\.site) == ["first-503"])
        try tape.finish()

        let (bridged, data, response) = try await bridgeFaultsFromAPlanFile(url: snippetCassettes.appendingPathComponent("login.har.gz"),
                                                                            itemsURL: me, directory: directory.url)
        #expect((response as? HTTPURLResponse)?.statusCode == 503 && !data.isEmpty)
        #expect(bridged.fired.first?.description.hasPrefix("fault first-503 (status) on GET https://api.example/me attempt 1 at ") == true,
                "\(bridged.fired)")
    }
}
