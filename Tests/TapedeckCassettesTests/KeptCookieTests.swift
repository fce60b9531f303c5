import Foundation
import Testing
@testable import TapedeckCassettes

/// Cookies named in `Redactor.keptCookies` keep their values; every other cookie's is redacted,
/// and the secrets check given the same names agrees.
@Suite("Redaction: cookies kept in clear")
struct KeptCookieTests {
    private func exchange() -> Interaction {
        let request = RecordedRequest(method: "GET", url: URL(string: "http://site.test/page")!,
                                      headers: [HeaderField("Cookie", "theme=dark; sid=s3ss10n-7f2a9c41b8; lang=fr")])
        let response = RecordedResponse(status: 200, headers: [
            HeaderField("Set-Cookie", "theme=light; Path=/"), HeaderField("Set-Cookie", "sid=n3w-s3ss10n-99aa01; Path=/; HttpOnly"),
            HeaderField("Content-Type", "text/plain"),
        ], body: Data("theme dark, session s3ss10n-7f2a9c41b8".utf8))
        return Interaction(index: 0, request: request, outcome: .response(response))
    }

    @Test("keptCookies keeps the named cookies' values in Cookie and Set-Cookie; the others are redacted, echoes of them too")
    func keptByName() throws {
        // Given rules keeping theme and Lang (names are exact: `lang` is another cookie)
        var rules = Redactor()
        rules.keptCookies = ["theme", "Lang"]
        // When an exchange with a setting and a session cookie is redacted
        let redacted = rules.redact(exchange())
        // Then only theme stays in clear
        #expect(redacted.request.headers.value(for: "Cookie") == "theme=dark; sid=REDACTED; lang=REDACTED")
        let response = try #require(redacted.response)
        #expect(response.headers.filter { $0.name == "Set-Cookie" }.map(\.value) == ["theme=light; Path=/", "sid=REDACTED; Path=/; HttpOnly"])
        #expect(String(decoding: response.body, as: UTF8.self) == "theme dark, session REDACTED", "the session's echo still goes")
        // And the default rules still redact every value
        #expect(Redactor().redact(exchange()).request.headers.value(for: "Cookie") == "theme=REDACTED; sid=REDACTED; lang=REDACTED")
        // And the secrets check passes what the same rules keep, not what the defaults would redact
        #expect(SecretScanner.scan(Cassette(interactions: [redacted]), rules: rules).isEmpty)
        #expect(!SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty, "by default a cookie value in clear is reported")
    }
}
