import Foundation
import Synchronization
import TapedeckClient
import TapedeckScenarios
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

    func testUseCassetteBindsTheDefaultSessionToTheTape() throws {
        // An app's own `Session()` made inside the test talks to the tape, not the live network
        // (api.example.test does not resolve: a live request would fail).
        let tape = try useCassette("login", mode: .replayOnly)
        let session = Session()
        let status = Mutex<Int?>(nil)
        session.request(api + "/get?user=ada").responseData { response in status.withLock { $0 = response.response?.statusCode } }
        try tape.run()
        XCTAssertEqual(status.withLock { $0 }, 200)
        XCTAssertTrue(DefaultTransport.resolved !== DefaultTransport.live)
    }

    func testUseCassetteInjectsAFaultPlanBesideTheTest() throws {
        // As the trait's `faults:`: the plan beside the test strikes the login once (429).
        let tape = try useCassette("login", mode: .replayOnly, faults: "Scenarios/login-faults.yaml")
        let login = try tape.perform(loginRequest())
        XCTAssertEqual(login.response.statusCode, 429)
        XCTAssertEqual(tape.faults?.fired.map(\.site), ["throttled"])
    }
}

/// The XCTest scenario helper, as an XCTest suite would use it.
final class ScenarioXCTests: XCTestCase {
    func testRunScenarioOverSeedsWithTheFilesClient() throws {
        let outcomes = try runScenario("orders-retry.yaml", seeds: 1...8)
        XCTAssertEqual(outcomes.map(\.seed), (1...8).map(UInt64.init))
        XCTAssertTrue(outcomes.allSatisfy(\.passed))
        XCTAssertEqual(outcomes.first { $0.seed == 1 }?.requests.first { $0.name == "orders" }?.attempts, 3)
        XCTAssertGreaterThan(Set(outcomes.map(\.traceHash)).count, 1, "different seeds schedule differently")
    }

    func testRunScenarioWithoutSeedsUsesTheFilesSeed() throws {
        let outcomes = try runScenario("orders-retry.yaml")
        XCTAssertEqual(outcomes.map(\.seed), [9])
    }
}
