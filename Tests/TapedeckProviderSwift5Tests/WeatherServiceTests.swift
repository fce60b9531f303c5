import Foundation
import XCTest
import TapedeckClient
import TapedeckHTTP
import TapedeckProvider
import TapedeckSimulatedBackend

/// UserCode/WeatherAPI.swift, compiled in the Swift 5 language mode, on the simulated network.
final class WeatherServiceTests: XCTestCase {
    private func backend() -> SimulatedBackend {
        let backend = SimulatedBackend()
        backend.serve(host: "weather.example.com", path: "/v2/forecast/*") { request in
            request.url.lastPathComponent == "Atlantis" ? ResponsePlan(status: 404)
                : .json(200, #"{"city":"\#(request.url.lastPathComponent)","highs":[21,23,19]}"#)
        }
        backend.serve(host: "weather.example.com", path: "/v2/stations/*") { _ in .json(201, "{}") }
        return backend
    }

    func testCompletionHandlersWriteTheServiceAndTheTestsLocals() throws {
        let backend = backend()
        let counter = RequestCounter()
        let service = backend.withTransport { WeatherService(provider: MoyaProvider<WeatherAPI>(plugins: [counter, Signer()])) }
        var received: Forecast?
        var missing = false

        service.forecast(for: "Lisbon") { received = $0 }
        service.forecast(for: "Atlantis") { missing = ($0 == nil) }
        try backend.run()

        XCTAssertEqual(received, Forecast(city: "Lisbon", highs: [21, 23, 19]))
        XCTAssertEqual(service.lastForecast?.city, "Lisbon")
        XCTAssertTrue(missing)
        XCTAssertEqual(service.errors.count, 1)
        XCTAssertEqual(counter.sent, ["/v2/forecast/Lisbon", "/v2/forecast/Atlantis"])
        XCTAssertEqual(counter.statuses.sorted(), [200, 404])
        XCTAssertEqual(backend.requests.first?.url.query, "days=3&units=metric")
        XCTAssertEqual(backend.requests.first?.headerFields.first { $0.name.rawName == "X-Client" }?.value, "app-1")
    }

    func testUntypedParametersGoInTheJSONBody() throws {
        let backend = backend()
        let provider = backend.withTransport { MoyaProvider<WeatherAPI>() }
        var status: Int?

        provider.request(.report(station: "LPPT", reading: ["celsius": 21.5, "wind": ["kmh": 12]])) { result in
            status = try? result.get().statusCode
        }
        try backend.run()

        XCTAssertEqual(status, 201)
        let body = backend.requests.first?.body.map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(body, #"{"celsius":21.5,"wind":{"kmh":12}}"#)
    }

    func testStubbedProviderAnswersFromSampleData() throws {
        let backend = backend()
        let provider = backend.withTransport { MoyaProvider<WeatherAPI>(stubClosure: MoyaProvider.immediatelyStub) }
        var text: String?

        provider.request(.alerts) { result in text = try? result.get().mapString() }
        try backend.run()

        XCTAssertEqual(text, #"{"alerts":[]}"#)
        XCTAssertTrue(backend.requests.isEmpty)
    }
}
