// Runs docs/client.md's example (ClientDocSnippets.swift) and asserts what the page says.

import Testing
import TapedeckClient
import TapedeckScheduling

@Suite("docs/client.md: the example compiles and does what the page says")
struct ClientDocSnippetTests {
    @Test("The example: one handler call on session.rootQueue with the decoded item, after exactly 80 ms of virtual time")
    func example() throws {
        // When the example runs, Then its handler ran once, on session.rootQueue, with the item, at 80 ms
        let results = Box<[(Result<[ClientDocItem], AFError>, onRootQueue: Bool)]>([])
        let scheduler = try client_example(results: results)
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 1)
        #expect((try? delivered.first?.0.get()) == [ClientDocItem(id: 1, name: "a")])
        #expect(delivered.first?.onRootQueue == true)
        #expect(scheduler.now == VirtualInstant.zero.advanced(by: .milliseconds(80)))
    }
}
