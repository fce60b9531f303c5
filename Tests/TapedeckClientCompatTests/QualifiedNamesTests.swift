import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import TapedeckHTTP

/// UserCode/QualifiedNames.swift: `Alamofire.Session`, `Alamofire.RequestInterceptor`,
/// `Alamofire.HTTPMethod`, `Alamofire.AFDataResponse` and `Session.sessionConfiguration`.
@Suite("Compat: Alamofire's module-qualified names")
struct QualifiedNamesTests {
    @Test("a client written with Alamofire.-qualified names sends through its adapter and reads its configuration")
    func qualifiedClient() throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/me") { request in
            ResponsePlan(status: request.headerFields[.authorization] == "Bearer t0k3n" ? 200 : 401, body: Data("ada".utf8))
        }
        let response = Box<AFDataResponse<String>?>(nil)
        let client = backend.withTransport { QualifiedClient(token: "t0k3n") }
        #expect(client.timeout == 60, "URLSessionConfiguration's default request timeout")
        client.profile { response.value = $0 }
        try backend.run()
        #expect(response.value?.value == "ada")
        #expect(Alamofire.AF === AF)
    }
}
