import Foundation
import HTTPTypes
import Testing
import TapedeckHTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTP values")
struct MessageTests {
    @Test("a URLRequest becomes a snapshot with its method, fields and body, and back")
    func requestSnapshot() {
        var request = URLRequest(url: URL(string: "https://API.example/items?b=2&a=1")!)
        request.httpMethod = "PATCH"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer t0", forHTTPHeaderField: "Authorization")
        request.httpBody = Data("{}".utf8)
        let snapshot = RequestSnapshot(request)
        #expect(snapshot.method == .patch)
        #expect(snapshot.host == "api.example")
        #expect(snapshot.path == "/items")
        #expect(snapshot.headerFields[.authorization] == "Bearer t0")
        #expect(snapshot.body == Data("{}".utf8))
        #expect(snapshot.description == "PATCH https://API.example/items?b=2&a=1")
        let back = snapshot.urlRequest()
        #expect(back.httpMethod == "PATCH")
        #expect(back.value(forHTTPHeaderField: "content-type") == "application/json")
        #expect(back.httpBody == Data("{}".utf8))
    }

    @Test("a response head becomes the HTTPURLResponse URLSession would give, repeated fields joined")
    func responseHead() {
        var fields = HTTPFieldsBuilder()
        fields.append("Content-Type", "text/plain")
        fields.append("Vary", "Accept")
        fields.append("vary", "Accept-Encoding")   // another spelling of the same name joins the first
        fields.append("X-Keep", "1")
        fields.append("Content-Encoding", " GZIP ")
        let head = ResponseHead(status: 404, headerFields: fields.fields)
        let response = head.httpURLResponse(url: URL(string: "http://x.test/a")!)
        #expect(response.statusCode == 404)
        #expect(response.value(forHTTPHeaderField: "vary") == "Accept, Accept-Encoding")
        #expect(response.allHeaderFields.count == 4 && response.allHeaderFields["Vary"] as? String == "Accept, Accept-Encoding",
                "one field per name, under its first spelling: \(response.allHeaderFields)")
        #expect(head.contentEncoding == "gzip")
        #expect(!head.isRedirect)
        #expect(ResponseHead(status: 302, headerFields: [.location: "/b"]).isRedirect)
        #expect(!ResponseHead(status: 302).isRedirect)
    }

    @Test("transport failures map to the URLError a URLSession client sees")
    func transportFailures() {
        let url = URL(string: "http://x.test/")!
        #expect(TransportFailure.timedOut.urlError(for: url).code == .timedOut)
        #expect(TransportFailure.networkConnectionLost.urlErrorCode == .networkConnectionLost)
        let missing = TransportFailure.noRoute("GET http://x.test/: nothing")
        #expect(missing.urlError(for: url).code == .unsupportedURL)
        #expect(missing.urlError(for: url).localizedDescription.contains("no route"))
        #expect(TransportFailure.urlError(.badURL) == .urlError(.badURL))
    }

    @Test("HTTPDate reads the three forms of RFC 9110 (IMF-fixdate, RFC 850, asctime) as one instant, and nothing else")
    func httpDateForms() {
        let instant = Date(timeIntervalSince1970: 784_111_777)   // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDate.date(from: "Sun, 06 Nov 1994 08:49:37 GMT") == instant)
        #expect(HTTPDate.date(from: "Sunday, 06-Nov-94 08:49:37 GMT") == instant)
        #expect(HTTPDate.date(from: "Sun Nov  6 08:49:37 1994") == instant)
        #expect(HTTPDate.date(from: "06/11/1994") == nil)
        #expect(HTTPDate.date(from: HTTPDate.string(from: instant)) == instant)
    }

    @Test("HTTPDate.iso8601 writes what ISO8601DateFormatter writes, over leap days, century years and random instants")
    func iso8601() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var instants: [Double] = [0, 951_782_400.5, 951_868_799.999, 4_107_542_400, 1_767_225_602.25, 1_709_164_800, 253_402_300_799]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            instants.append(Double((state >> 22) % 4_000_000_000_000) / 1_000)
        }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            let milliseconds = (seconds * 1_000).rounded() / 1_000
            #expect(HTTPDate.iso8601(from: date) == formatter.string(from: Date(timeIntervalSince1970: milliseconds)), "\(seconds)")
        }
    }
}
