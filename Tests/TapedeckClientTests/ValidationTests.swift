import Foundation
import Testing
@testable import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: validation (§6)")
struct ValidationTests {
    private func validate(_ path: String, accept: String? = nil, _ configure: (DataRequest) -> DataRequest) throws -> (ClientError?, ClientFixture) {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        fixture.network.stub(host: "api.test", path: "/json-no-type", ResponsePlan(status: 200, body: Data("{}".utf8)))
        let headers: HTTPHeaders? = accept.map { [.accept($0)] }
        let result = Box<ClientError?>(nil)
        configure(fixture.session.request("http://api.test\(path)", headers: headers)).response { result.value = $0.error }
        try fixture.run()
        return (result.value, fixture)
    }

    @Test("the first failing validator wins: status then type gives the status error, type then status the type error")
    func firstFailureWins() throws {
        let (statusFirst, _) = try validate("/xml") { $0.validate(statusCode: 400..<600).validate(contentType: ["application/octet-stream"]) }
        #expect(statusFirst?.responseCode == 200)
        let (typeFirst, fixture) = try validate("/xml") { $0.validate(contentType: ["application/octet-stream"]).validate(statusCode: 400..<600) }
        #expect(typeFirst?.responseContentType == "application/xml")
        #expect(typeFirst?.acceptableContentTypes == ["application/octet-stream"])
        #expect(fixture.events.count("didValidateRequest") == 1, "a skipped validator emits no event")
    }

    @Test("unacceptable content types are listed sorted; an empty list fails a body but passes an empty 204")
    func contentTypeLists() throws {
        let types = ["text/plain", "application/json", "image/png", "application/zip", "text/csv", "audio/mpeg", "video/mp4",
                     "application/pdf", "font/woff", "model/obj", "message/rfc822", "multipart/mixed", "text/html", "application/rtf"]
        let (error, _) = try validate("/xml") { $0.validate(contentType: types.shuffled()) }
        #expect(error?.acceptableContentTypes == types.sorted())
        let (empty, _) = try validate("/xml") { $0.validate(contentType: []) }
        #expect(empty?.acceptableContentTypes == [])
        #expect(empty?.responseContentType == "application/xml")
        let (noBody, _) = try validate("/status/204") { $0.validate(contentType: []) }
        #expect(noBody == nil)
    }

    @Test("validate() uses the request's Accept header, read after adaptation")
    func automaticValidation() throws {
        #expect(try validate("/ip", accept: "application/json") { $0.validate() }.0 == nil)
        #expect(try validate("/ip", accept: "application/*") { $0.validate() }.0 == nil)
        let complex = "text/xml, application/xml, application/xhtml+xml, text/html;q=0.9, text/plain;q=0.8,*/*;q=0.5"
        #expect(try validate("/xml", accept: complex) { $0.validate() }.0 == nil)
        let mismatch = try validate("/xml", accept: "application/json") { $0.validate() }.0
        #expect(mismatch?.acceptableContentTypes == ["application/json"])
        #expect(try validate("/status/404") { $0.validate() }.0?.responseCode == 404)
        // Accept entries are split on "," without trimming: the leading space stays in the sorted list
        let spaced = try validate("/ip", accept: "text/*, application/xml") { $0.validate() }.0
        #expect(spaced?.acceptableContentTypes == [" application/xml", "text/*"])
    }

    @Test("an adapter's Accept header is the one validated against")
    func acceptFromAdaptedRequest() throws {
        let fixture = ClientFixture(interceptor: Adapter { request, _, completion in
            var request = request
            request.headers.update(.accept("application/xml"))
            completion(.success(request))
        })
        fixture.serveTestAPI()
        let result = Box<ClientError?>(nil)
        fixture.session.request("http://api.test/ip", headers: [.accept("application/json")]).validate().response { result.value = $0.error }
        try fixture.run()
        #expect(result.value?.acceptableContentTypes == ["application/xml"])
    }

    @Test("custom validators: the first error is reported, wrapped as customValidationFailed; the second never runs")
    func customValidators() throws {
        let secondRan = Box(false)
        let (error, _) = try validate("/get") {
            $0.validate { _, _, _ in .failure(TestError(id: 1)) }
              .validate { _, _, _ in secondRan.value = true; return .failure(TestError(id: 2)) }
        }
        guard case let .responseValidationFailed(.customValidationFailed(inner))? = error else {
            Issue.record("expected customValidationFailed, got \(String(describing: error))")
            return
        }
        #expect(inner as? TestError == TestError(id: 1))
        #expect(!secondRan.value)
    }

    @Test("a response without a content type passes only a */* acceptance")
    func missingContentType() throws {
        let (error, _) = try validate("/json-no-type") { $0.validate(contentType: ["application/json"]) }
        guard case .responseValidationFailed(.missingContentType(let types))? = error else {
            Issue.record("expected missingContentType, got \(String(describing: error))")
            return
        }
        #expect(types == ["application/json"])
        #expect(try validate("/json-no-type") { $0.validate(contentType: ["*/*"]) }.0 == nil)
    }

    @Test("MIME types: parameters and whitespace dropped, exactly two parts, only */* is a full wildcard")
    func mimeParsing() {
        #expect(MIMEType(" text/html; charset=utf-8 ") == MIMEType("text/html"))
        #expect(MIMEType("text") == nil)
        #expect(MIMEType("") == nil)
        #expect(MIMEType("a/b/c") == nil)
        let json = MIMEType("application/json")!
        #expect(MIMEType("*/*")!.matches(json))
        #expect(MIMEType("application/*")!.matches(json))
        #expect(MIMEType("*/json")!.matches(json))
        #expect(!MIMEType("text/*")!.matches(json))
        #expect(MIMEType("*/*")!.isWildcard && !MIMEType("application/*")!.isWildcard)
    }
}
