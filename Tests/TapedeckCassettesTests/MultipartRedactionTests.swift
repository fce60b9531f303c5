import Foundation
import Testing
@testable import TapedeckCassettes

/// Redaction inside `multipart/form-data` bodies, as browsers and HTTP libraries write them.
@Suite("Redaction: multipart form fields and JSON parts; files and the rest byte for byte")
struct MultipartRedactionTests {
    private static let boundary = "----WebKitFormBoundaryx8Yq2ZJ0k1xG5aZc"
    /// Bytes of an upload that look like multipart syntax and are not UTF-8.
    private static let file = Data("a\r\n--\(boundary)x\r\n\r\n".utf8) + Data([0x00, 0xFF, 0xC3, 0x28, 0x0D, 0x0A])

    /// A body as Chrome sends a form with a file: a preamble-free first delimiter, quoted names
    /// (one holding a `;`), a JSON part, a file part, the closing delimiter.
    private static func body(password: String = "hunter2", token: String = "AT-1") -> Data {
        var body = Data()
        func part(_ disposition: String, type: String? = nil, _ content: Data) {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; \(disposition)\r\n".utf8)
            if let type { body += Data("Content-Type: \(type)\r\n".utf8) }
            body += Data("\r\n".utf8) + content + Data("\r\n".utf8)
        }
        part(#"name="user""#, Data("bob".utf8))
        part(#"name="password""#, Data(password.utf8))
        part(#"name="a;b""#, Data("semi".utf8))
        part(#"name="meta""#, type: "application/json", Data(#"{"access_token":"\#(token)","theme":"dark"}"#.utf8))
        part(#"name="token"; filename="token.bin""#, type: "application/octet-stream", file)
        body += Data("--\(boundary)--\r\n".utf8)
        return body
    }

    private static func request(_ body: Data) -> RecordedRequest {
        RecordedRequest(method: "POST", url: URL(string: "http://api.test/upload")!,
                        headers: [HeaderField("Content-Type", "multipart/form-data; boundary=\(boundary)"),
                                  HeaderField("Content-Length", String(body.count))],
                        body: body)
    }

    @Test("the parts are read as a server reads them: names (a quoted ';' too), files told from fields, contents exact")
    func parts() throws {
        let body = Self.body()
        let parts = try #require(Redactor.multipartParts(body, contentType: "multipart/form-data; boundary=\"\(Self.boundary)\""))
        #expect(parts.map(\.name) == ["user", "password", "a;b", "meta", "token"])
        #expect(parts.map(\.isFile) == [false, false, false, false, true])
        #expect(parts.map { body[$0.content] } == [Data("bob".utf8), Data("hunter2".utf8), Data("semi".utf8),
                                                   Data(#"{"access_token":"AT-1","theme":"dark"}"#.utf8), Self.file])
        #expect(Redactor.multipartParts(body, contentType: "application/json") == nil)
        #expect(Redactor.multipartParts(body, contentType: "multipart/form-data") == nil, "no boundary: not read as parts")
    }

    @Test("a password field and a JSON part's token are replaced; a file named token, other fields and the framing are kept; Content-Length follows")
    func redacts() throws {
        let original = Self.request(Self.body())
        let redacted = Redactor().redact(original)
        let body = try #require(redacted.body)
        let parts = try #require(Redactor.multipartParts(body, contentType: redacted.headers.value(for: "Content-Type")))
        #expect(body[parts[1].content] == Data("REDACTED".utf8))
        let meta = try #require(JSONSerialization.jsonObject(with: body[parts[3].content]) as? [String: String])
        #expect(meta == ["access_token": "REDACTED", "theme": "dark"])
        #expect(body[parts[4].content] == Self.file, "an uploaded file is never rewritten, whatever its field's name")
        #expect(body[parts[0].content] == Data("bob".utf8))
        #expect(redacted.headers.value(for: "Content-Length") == String(body.count))
        // Everything outside the replaced contents is the original's, byte for byte.
        let expected = Self.body(password: "REDACTED", token: "REDACTED")
        let expectedParts = try #require(Redactor.multipartParts(expected, contentType: redacted.headers.value(for: "Content-Type")))
        #expect(body.count == expected.count - expectedParts[3].content.count + parts[3].content.count)
        // Redacting again changes nothing, so recorded and live requests redact alike for matching.
        #expect(Redactor().redact(redacted) == redacted)
        #expect(Redactor().redact(Self.request(Self.body(password: "other", token: "AT-2"))).body == body)
        // The rules given exactly, and none, leave the body alone.
        #expect(Redactor.none.redact(original) == original)
    }

    @Test("an uploaded JSON file (a part with a file name) is kept byte for byte, its layout and newline too")
    func jsonFileKept() throws {
        let file = Data("{\n  \"token\": \"keep-me-as-uploaded\",\n  \"b\": 1\n}\n".utf8)
        var body = Data("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"config\"; filename=\"settings.json\"\r\n".utf8)
        body += Data("Content-Type: application/json\r\n\r\n".utf8) + file + Data("\r\n--\(Self.boundary)--\r\n".utf8)
        let redacted = Redactor().redact(Self.request(body))
        #expect(redacted.body == body)
    }

    @Test("validate reports the unredacted multipart field and JSON part, and nothing once redacted")
    func validateAgrees() throws {
        let original = Interaction(index: 0, request: Self.request(Self.body()), outcome: .response(RecordedResponse(status: 204)))
        let places = SecretScanner.scan(Cassette(interactions: [original])).map(\.place)
        #expect(places.contains("request.body multipart field 'password'"), "\(places)")
        #expect(places.contains("request.body part 'meta' field 'access_token'"), "\(places)")
        #expect(!places.contains { $0.contains("'token'") }, "a file part is no field: \(places)")
        #expect(SecretScanner.scan(Cassette(interactions: [Redactor().redact(original)])).isEmpty)
    }

    @Test("a body cut short or without its closing delimiter still has its whole parts redacted, and bytes that are no parts are kept")
    func brokenBodies() throws {
        let body = Self.body()
        let cut = body.prefix(body.count - 80)
        let redacted = try #require(Redactor().redact(Self.request(Data(cut))).body)
        #expect(!String(decoding: redacted, as: UTF8.self).contains("hunter2"))
        let noParts = Data("no delimiter here, password=hunter2".utf8)
        #expect(Redactor().redact(Self.request(noParts)).body == noParts)
        // Bare LF line breaks (Go's parser takes them): the parts are still found and redacted.
        let lf = Data("--\(Self.boundary)\nContent-Disposition: form-data; name=\"password\"\n\nhunter2\n--\(Self.boundary)--\n".utf8)
        let redactedLF = try #require(Redactor().redact(Self.request(lf)).body)
        #expect(String(decoding: redactedLF, as: UTF8.self) == "--\(Self.boundary)\nContent-Disposition: form-data; name=\"password\"\n\nREDACTED\n--\(Self.boundary)--\n")
    }

    @Test("a body of 50,000 small parts is read part by part, in one pass (searching Data by range copied the rest of the body at every part)")
    func manyParts() throws {
        var body = Data()
        for index in 0..<50_000 {
            body += Data("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"f\(index)\"\r\n\r\n\(index)\r\n".utf8)
        }
        body += Data("--\(Self.boundary)--\r\n".utf8)
        let parts = try #require(Redactor.multipartParts(body, contentType: "multipart/form-data; boundary=\(Self.boundary)"))
        #expect(parts.count == 50_000 && parts.last?.name == "f49999" && body[parts[49_999].content] == Data("49999".utf8))
    }

    @Test("an S3-style browser upload form keeps its `key` (the object's name) and loses its signature and security token; a form without a signed policy still loses `key`")
    func storageUploadKey() throws {
        var body = Data()
        func field(_ name: String, _ value: String) {
            body += Data("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        field("key", "uploads/2026/${filename}")
        field("x-amz-credential", "AKIAEXAMPLE/20261128/us-east-1/s3/aws4_request")
        field("x-amz-security-token", "FwoGZXIvYXdzEXAMPLE")
        field("Policy", "eyJleHBpcmF0aW9uIjoiMjAyNi0xMS0yOFQxMjowMDowMFoifQ==")
        field("X-Amz-Signature", "0f1e2d3c4b5a69788796a5b4c3d2e1f0")
        body += Data("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello\r\n--\(Self.boundary)--\r\n".utf8)
        let redacted = String(decoding: Redactor().redact(Self.request(body)).body ?? Data(), as: UTF8.self)
        #expect(redacted.contains("uploads/2026/${filename}"), "\(redacted)")
        for secret in ["AKIAEXAMPLE", "FwoGZXIvYXdzEXAMPLE", "0f1e2d3c4b5a69788796a5b4c3d2e1f0"] {
            #expect(!redacted.contains(secret), "\(secret) in \(redacted)")
        }
        var cassette = Cassette()
        cassette.interactions = [Interaction(index: 0, request: Self.request(body), outcome: .response(RecordedResponse(status: 204)))]
        let found = SecretScanner.scan(cassette).map(\.description)
        #expect(!found.contains { $0.contains("'key'") } && found.contains { $0.contains("'X-Amz-Signature'") }, "\(found)")
        // The same rule in a urlencoded form; without the signed policy `key` is an API key.
        let form = Data("key=photos%2Fcat.jpg&policy=e30%3D&signature=abc123".utf8)
        #expect(String(decoding: Redactor().redactForm(form), as: UTF8.self) == "key=photos%2Fcat.jpg&policy=e30%3D&signature=REDACTED")
        #expect(String(decoding: Redactor().redactForm(Data("key=AIzaSyEXAMPLE&q=cats".utf8)), as: UTF8.self) == "key=REDACTED&q=cats")
    }
}

