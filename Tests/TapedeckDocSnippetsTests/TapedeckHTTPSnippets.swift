// The Swift snippets of TapedeckHTTP's documentation: its DocC article
// (TapedeckHTTP.docc/TapedeckHTTP.md) and the `///` examples of its public declarations.
// One function (or type) per snippet, as written plus the least scaffolding; lines added for a
// test are marked `// (test)`.

import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Snippets

/// TapedeckHTTP.docc/TapedeckHTTP.md, "Overview" (the same example as `Responder`'s).
private struct Teapot: Responder {
    func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        .response(ResponsePlan(status: 418, body: Data("short and stout".utf8)))
    }
}

/// `HTTPDate`.
private func httpDate() -> (String, Date?) {
    let text = HTTPDate.string(from: Date(timeIntervalSince1970: 1_767_225_602))   // "Thu, 01 Jan 2026 00:00:02 GMT"
    let date = HTTPDate.date(from: "Thu, 01 Jan 2026 00:00:02 GMT")                // that instant
    return (text, date)
}

/// `URLSessionProvider` (`myDelegate` is the reader's).
private func urlSessionProvider(myDelegate: any URLSessionDelegate) -> URLSession {
    let scheduler = LiveScheduler()
    let root = scheduler.makeQueue(label: "app.rootQueue", target: nil)
    let session = LiveURLSessionProvider().makeURLSession(
        configuration: .ephemeral, delegate: myDelegate, delegateQueue: root)
    return session
}

/// `LiveURLSessionProvider`.
private func liveURLSessionProvider() -> Session {
    let session = Session(provider: LiveURLSessionProvider(), scheduler: LiveScheduler())   // TapedeckClient
    return session
}

/// `Zlib` (`json` is the reader's text).
private func zlib(json text: String) throws -> (packed: Data, unpacked: Data) {
    let json = text   // (test)
    let packed = try Zlib.compress(Data(json.utf8), format: .gzip)   // a .gz member that gzip -d reads
    let unpacked = try Zlib.decompress(packed, format: .gzip)          // the bytes of json again
    return (packed, unpacked)
}

// MARK: - Tests

@Suite("TapedeckHTTP's DocC and /// snippets compile and do what they say")
struct TapedeckHTTPSnippetTests {
    @Test("Teapot answers every request 418 with its body")
    func teapot() {
        let reply = Teapot().reply(to: RequestSnapshot(method: .get, url: URL(string: "http://pot.test/")!),
                                   context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
        guard case let .response(plan) = reply else {
            Issue.record("expected a response, got \(reply)")
            return
        }
        #expect(plan.head.status == 418)
        #expect(plan.body == Data("short and stout".utf8))
    }

    @Test("HTTPDate writes and reads the IMF-fixdate the comment shows")
    func date() {
        let (text, date) = httpDate()
        #expect(text == "Thu, 01 Jan 2026 00:00:02 GMT")
        #expect(date == Date(timeIntervalSince1970: 1_767_225_602))
    }

    @Test("URLSessionProvider and LiveURLSessionProvider build live sessions without contacting anything")
    func providers() {
        // When the examples make live sessions, Then their delegates run one at a time, on live queues
        let session = urlSessionProvider(myDelegate: PassiveDelegate())
        #expect(session.delegateQueue.maxConcurrentOperationCount == 1)
        session.invalidateAndCancel()
        let client = liveURLSessionProvider()
        #expect(client.scheduler is LiveScheduler)
        #expect(client.rootQueue is LiveQueue)
    }

    @Test("Zlib: what it packs as gzip unpacks to the same bytes, with gzip's header")
    func zlibRoundTrip() throws {
        let (packed, unpacked) = try zlib(json: #"{"items":[1,2,3],"name":"tapedeck"}"#)
        #expect(unpacked == Data(#"{"items":[1,2,3],"name":"tapedeck"}"#.utf8))
        #expect(Array(packed.prefix(4)) == [0x1F, 0x8B, 0x08, 0x00])
    }
}

/// A delegate that does nothing.
private final class PassiveDelegate: NSObject, URLSessionDelegate, Sendable {}
