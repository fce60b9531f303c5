import Foundation
import Testing
import TapedeckCassettes

/// Lines meant for people — skipped entries, load notes, miss explanations — go to terminals, 404
/// bodies and CI logs: a file another tool wrote may hold live keys, which they must not print.
@Suite("Cassettes: skipped-entry lines, notes and miss explanations print no secrets")
struct SecretFreeTextTests {
    /// A HAR with a WebSocket entry (skipped) and a GET whose body needed a guess (a note), both
    /// carrying a key in the URL, and a GET that an app authenticates with a header.
    private func cassette() throws -> Cassette {
        func entry(_ url: String, headers: [[String: String]] = [], content: [String: Any] = ["size": 2, "mimeType": "application/json", "text": "{}"]) -> [String: Any] {
            ["startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1, "timings": ["send": 0, "wait": 1, "receive": 0],
             "request": ["method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": headers, "queryString": [],
                         "cookies": [], "headersSize": -1, "bodySize": 0],
             "response": ["status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "redirectURL": "",
                          "headers": [], "headersSize": -1, "bodySize": 2, "content": content]]
        }
        let document: [String: Any] = ["log": ["version": "1.2", "creator": ["name": "hand", "version": "1"], "entries": [
            entry("wss://push.example.com/socket?api_key=LIVEKEY123456&channel=a"),
            entry("https://api.example.com/bin?access_token=LIVETOKEN98765",
                  content: ["size": 3, "mimeType": "application/octet-stream", "text": "é\u{80}"]),
            entry("https://api.example.com/items?page=1&api_key=RECORDEDKEY111",
                  headers: [["name": "X-Api-Key", "value": "RECORDEDHEADER222"]]),
        ]]]
        return try HARCodec.decode(try JSONSerialization.data(withJSONObject: document), file: "keys.har")
    }

    @Test("skipped and note lines show the URL's secret items as REDACTED, unless asked to show secrets")
    func skippedAndNoteLines() throws {
        let cassette = try cassette()
        let skipped = try #require(cassette.skipped.first)
        let note = try #require(cassette.notes.first)
        #expect(skipped.description.contains("api_key=REDACTED&channel=a") && !skipped.description.contains("LIVEKEY123456"), "\(skipped)")
        #expect(note.description.contains("access_token=REDACTED") && !note.description.contains("LIVETOKEN98765"), "\(note)")
        #expect(skipped.description(showingSecrets: true).contains("api_key=LIVEKEY123456"))
        #expect(note.description(showingSecrets: true).contains("access_token=LIVETOKEN98765"))
    }

    @Test("a miss explanation shows the live and recorded URLs without their keys, and a secret header's values not at all")
    func missExplanation() throws {
        let player = CassettePlayer(cassette: try cassette(), rules: MatchRules(headers: ["X-Api-Key"]))
        let text = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "https://api.example.com/items?page=2&api_key=OTHERKEY333")!,
                                                      headers: [HeaderField("X-Api-Key", "OTHERHEADER444")]))
        for secret in ["OTHERKEY333", "RECORDEDKEY111", "OTHERHEADER444", "RECORDEDHEADER222", "LIVETOKEN98765"] {
            #expect(!text.contains(secret), "\(secret) in: \(text)")
        }
        // The ordinary item that differs is shown as it is
        #expect(text.contains("query page=2&api_key=REDACTED ≠ page=1&api_key=REDACTED") && !text.contains("they differ in a secret"), "\(text)")
        #expect(text.contains("header X-Api-Key: a secret value ≠ absent (not shown)"), "\(text)")
    }

    @Test("where the player keeps a secret it does not redact, a miss on it says the difference is in a secret value, without showing either")
    func missOnlyInASecret() throws {
        let player = CassettePlayer(cassette: try cassette(), redactor: .none)
        let text = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "https://api.example.com/items?page=1&api_key=OTHERKEY333")!))
        #expect(!text.contains("OTHERKEY333") && !text.contains("RECORDEDKEY111"), "\(text)")
        #expect(text.contains("query page=1&api_key=REDACTED ≠ page=1&api_key=REDACTED (they differ in a secret value, shown as REDACTED)"), "\(text)")
    }
}
