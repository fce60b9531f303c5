import Foundation
import Testing
@testable import TapedeckBridge
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bridge: a client's request nobody serves is named on standard error")
struct UnservedNoteTests {
    @Test("a request from a handed-out configuration left waiting with no serving is named once, with what to do")
    func waitingRequestNamed() async throws {
        let network = SimulatedNetwork(scheduler: SimulatedScheduler(seed: 1))
        network.route(.get, path: "/x") { _, _ in .response(.text(200, "ok")) }
        let harness = Harness(network: network)
        harness.state.withLock { $0.unservedNoteDelay = .milliseconds(20) }
        let session = URLSession(configuration: harness.configuration())
        session.dataTask(with: URL(string: "http://api.test/x")!).resume()
        // Given nothing serves it: the note comes (a bounded wait, so a regression fails, not hangs)
        let deadline = ContinuousClock.now + .seconds(30)
        while harness.unservedNote == nil && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let note = try #require(harness.unservedNote)
        #expect(note.hasPrefix("tapedeck: GET http://api.test/x has waited"), "\(note)")
        #expect(note.contains("tape.serving { … }"), "\(note)")
        harness.endSimulation()
    }
}
