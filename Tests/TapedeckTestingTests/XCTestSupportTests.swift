import Foundation
import TapedeckTesting
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The XCTest helper, used the way an XCTest suite would.
final class CassetteXCTests: XCTestCase {
    func testUseCassetteReplaysAndFinishesAtTeardown() throws {
        let tape = try useCassette("login", mode: .replayOnly)
        let profile = try tape.perform(profileRequest(token: "xctest-token"))
        XCTAssertEqual(profile.response.statusCode, 200)
        let login = try tape.perform(loginRequest())
        XCTAssertTrue(String(decoding: login.data, as: UTF8.self).contains("\"user\":\"ada\""))
        XCTAssertEqual(tape.recorder.misses, [])
    }
}
