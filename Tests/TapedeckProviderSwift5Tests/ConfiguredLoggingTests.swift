import Foundation
import XCTest
import TapedeckClient
import TapedeckHTTP
import TapedeckProvider
import TapedeckSimulatedBackend

/// UserCode/ConfiguredLogging.swift, compiled in the Swift 5 language mode, on the simulated network.
final class ConfiguredLoggingTests: XCTestCase {
    func testALoggerConfiguredAfterItIsMadeLogsWithTheNewOptionsFormatterAndOutput() throws {
        // Given a logger made with init() and then adjusted, as apps do
        let backend = SimulatedBackend()
        backend.serve(host: "inbox.example.com", path: "/messages") { _ in .json(201, #"{"id":9}"#) }
        let log = AppLog()
        let provider = backend.withTransport { MoyaProvider<InboxAPI>(plugins: Networking.plugins(log: log)) }
        var status: Int?

        // When
        provider.request(.send(to: "bo", text: "hi")) { status = try? $0.get().statusCode }
        try backend.run()

        // Then the request body and the response body were logged, through the app's formatter,
        // and the default options' header fields and method were not
        XCTAssertEqual(status, 201)
        XCTAssertEqual(log.lines.count, 4)
        XCTAssertTrue(log.lines[0].hasSuffix("https://inbox.example.com/messages"))
        XCTAssertTrue(log.lines[1].hasSuffix(#"{"text":"hi","to":"bo"}"#))
        XCTAssertTrue(log.lines[2].hasSuffix("201 https://inbox.example.com/messages"))
        XCTAssertTrue(log.lines[3].hasSuffix("body of 8 bytes"))
        XCTAssertFalse(log.lines.contains { $0.contains("HTTP Request Method") || $0.contains("Request Headers") })
    }
}
