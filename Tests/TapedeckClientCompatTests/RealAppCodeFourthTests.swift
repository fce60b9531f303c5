import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import TapedeckHTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app code of UserCode/FourthRoundIdioms.swift on the simulated network: idioms an outside
/// tester found in open-source network layers that did not compile before (upload progress on a
/// data request, `.afURLQueryAllowed`, a convenience init on a form encoder class, a scoped
/// `import class` of a serializer) and a logger's `"\(response)"` in Alamofire 5's words.
@Suite("Compat: a fourth round of app network layers")
struct RealAppCodeFourthTests {
    @Test("a form POST made with request(…) reports its upload progress; the app's form encoder and serializer class are used; the response prints as Alamofire 5 prints it")
    func signUp() throws {
        // Given a sign-up endpoint that answers 204
        let backend = SimulatedBackend()
        backend.serve(path: "/signup") { _ in ResponsePlan(status: 204) }
        let session = backend.withTransport { Session() }
        let fractions = LinesBox()
        let logged = Box<String?>(nil)
        let status = Box<Int?>(nil)

        // When the form is posted
        FourthRound.signUp(session: session, progress: { fractions.append("\($0)") },
                           logged: { logged.value = $0 }, done: { status.value = $0 })
        try backend.run()

        // Then the body went whole, encoded as the app's encoder says, and the progress said so
        #expect(status.value == 204, "\(logged.value ?? "nothing logged")")
        let body = try #require(backend.requests.first?.body.map { String(decoding: $0, as: UTF8.self) })
        #expect(body == "bio=math+%26+engines&born=1970-01-01T00%3A00%3A00Z&name=Ada+L", "\(body)")
        #expect(fractions.all == ["1.0"], "one report, the whole body, when the response began: \(fractions.all)")
        // `"\(response)"` is the result as Swift prints it: Alamofire 5's `success(…)`, not `SUCCESS: …`
        #expect(logged.value == "Finished: success(0 bytes)", "\(logged.value ?? "nil")")
        // A download's response prints the same way
        let download = DownloadResponse<URL, AFError>(request: nil, response: nil, fileURL: nil, resumeData: nil, metrics: nil,
                                                      serializationDuration: .zero, result: .success(URL(fileURLWithPath: "/tmp/report.pdf")))
        #expect("\(download)" == "success(file:///tmp/report.pdf)")
    }
}
