import Foundation
import Testing
import TapedeckCassettes
import TapedeckClient
import TapedeckTesting
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Echo: Decodable, Sendable, Equatable {
    var method: String
    var path: String
    var query: String
}

@Suite("Testing integration: the .cassette trait")
struct TraitTests {
    @Test("the trait binds Tape.current to Cassettes/login.har.gz beside this file and replays it", .cassette("login", mode: .replayOnly))
    func traitReplays() async throws {
        let tape = try #require(Tape.current)
        #expect(tape.cassetteURL.path.hasSuffix("TapedeckTestingTests/Cassettes/login.har.gz"))
        #expect(tape.mode == .replayOnly)
        let login = try await tape.perform(loginRequest())
        #expect(login.response.statusCode == 200)
        // The password was redacted when recorded (the echo too, though it is not labelled JSON);
        // the live request, with the real password, still matches.
        let echoed = String(decoding: login.data, as: UTF8.self)
        #expect(echoed.contains(#""password":"REDACTED""#) && !echoed.contains("correct horse"))
        #expect(login.response.value(forHTTPHeaderField: "Content-Length") == String(login.data.count))
        let profile = try await tape.perform(profileRequest(token: "any-token-at-all"))
        #expect(String(decoding: profile.data, as: UTF8.self).contains("\"authorization\":\"REDACTED\""))
        let gzip = try await tape.perform(URL(string: api + "/gzip")!)
        #expect(gzip.response.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
        #expect(try JSONDecoder().decode(Echo.self, from: gzip.data).path == "/gzip")
    }

    @Test("the Alamofire-shaped client runs over the cassette: validation and decoding", .cassette("login", mode: .replayOnly, timing: .instant))
    func clientOverCassette() async throws {
        let tape = try #require(Tape.current)
        let session = Session(provider: tape.harness, scheduler: tape.scheduler, rootQueue: tape.rootQueue)
        let decoded = Mutex<ClientDataResponse<Echo>?>(nil)
        let missing = Mutex<ClientDataResponse<Data>?>(nil)
        session.request(api + "/get?user=ada").validate().responseDecodable(of: Echo.self) { response in
            decoded.withLock { $0 = response }
        }
        session.request(api + "/status/404").validate().responseData { response in
            missing.withLock { $0 = response }
        }
        try await tape.run()
        let echo = try #require(decoded.withLock { $0 })
        #expect(echo.value == Echo(method: "GET", path: "/get", query: "user=ada"))
        let notFound = try #require(missing.withLock { $0 })
        #expect(notFound.response?.statusCode == 404)
        #expect(notFound.error?.isResponseValidationError == true)
    }
}
