// README.md's "Cassettes: record once, replay forever" snippet: a test, with the page's import
// lines and no others (the cassette is Cassettes/login.har.gz beside this file). The line added
// for the test is marked `// (test)`.

import Foundation
import TapedeckTesting
import Testing

@Suite("README.md: the cassette snippet")
struct ReadmeCassetteSnippet {
    /// README.md › "Cassettes: record once, replay forever" (as written; the cassette is
    /// `Cassettes/login.har.gz` beside this file).
    @Test(.cassette("login"))      // Cassettes/login.har.gz beside this file
    func login() async throws {
        let tape = try #require(Tape.current)
        let (data, response) = try await tape.perform(URL(string: "https://api.example/login")!)
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("ada"))   // (test)
    }
}
