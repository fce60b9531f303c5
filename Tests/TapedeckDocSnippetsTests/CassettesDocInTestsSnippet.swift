// docs/cassettes.md's "In tests" snippet — a Swift Testing test and an XCTest case — with the
// page's import lines and no others (the cassette is Cassettes/login.har.gz beside this file).
// Lines added for the test are marked `// (test)`.

import Foundation
import TapedeckClient                // the Alamofire-shaped Session
import TapedeckTesting
import Testing
import XCTest

@Suite("docs/cassettes.md: the \"In tests\" snippet")
struct CassettesDocInTestsSnippet {
    /// docs/cassettes.md, "In tests": the Swift Testing half (the cassette is Cassettes/login.har.gz).
    @Test(.cassette("login"))            // Cassettes/login.har.gz beside this file
    func login() async throws {
        let tape = try #require(Tape.current)
        let (data, response) = try await tape.perform(URL(string: "https://api.example/login")!)
        #expect(response.statusCode == 200)
        // or any client: tape.makeURLSession(), or the Alamofire-shaped one:
        let session = Session(provider: tape.harness, scheduler: tape.scheduler, rootQueue: tape.rootQueue, drive: tape.drive)
        #expect(!data.isEmpty && session.rootQueue.target === tape.rootQueue)   // (test)
        let again = try await session.request("https://api.example/login").serializingData().value   // (test): the await runs the tape
        #expect(again == data)                                                                      // (test)
    }
}

/// docs/cassettes.md, "In tests": the XCTest half.
final class LoginTests: XCTestCase {
    func testLogin() throws {
        let tape = try useCassette("login")
        XCTAssertEqual(try tape.perform(URL(string: "https://api.example/login")!).response.statusCode, 200)
    }
}
