import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckCassettes
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HAR files written by real tools (fixtures/interop/README.md says how each was made): each loads
/// whole, takes the fast reader, and every entry replays through a real URLSession — responses
/// byte for byte, failures as the URLError they map to.
@Suite("Cassettes: HAR files from Playwright/Chromium, Firefox and mitmproxy load and replay whole")
struct InteropTests {
    static let fixtures = ["mitmproxy.har", "mitmproxy-failures.har", "playwright-chromium.har", "firefox.har"]

    private func load(_ name: String) throws -> Cassette {
        try CassetteFile.read(fixturesDirectory.appendingPathComponent("interop/\(name)"))
    }

    @Test("every entry of every tool's file becomes an interaction; the fast reader takes each file and agrees with JSONDecoder",
          arguments: fixtures)
    func loadsWholeOnTheFastPath(_ name: String) throws {
        let data = try Data(contentsOf: fixturesDirectory.appendingPathComponent("interop/\(name)"))
        let fast = try #require(HARCodec.decodeFast(data), "the fast reader declined \(name)")
        let reference = try HARCodec.decodeWithFoundation(data, file: name)
        #expect(fast == reference)
        let cassette = try HARCodec.decode(data, file: name)
        #expect(cassette.skipped.isEmpty, "\(cassette.skipped)")
        #expect(cassette.interactions.count == reference.log.entries.count)
        #expect(try HARCodec.decode(data, file: name, strict: true) == cassette, "nothing in a real tool's file needs skipping")
    }

    @Test("failed and aborted requests become the URLError a URLSession client would see, keeping the tool's text")
    func failuresAreMapped() throws {
        func failures(_ name: String) throws -> [String: (code: Int, message: String)] {
            var byURL: [String: (Int, String)] = [:]
            for interaction in try load(name).interactions {
                if case let .failure(failure) = interaction.outcome {
                    byURL[interaction.request.url.path] = (failure.code, failure.message)
                }
            }
            return byURL
        }
        let chromium = try failures("playwright-chromium.har")
        #expect(chromium["/delay/3"]?.code == URLError.cancelled.rawValue)              // AbortController
        #expect(chromium["/delay/3"]?.message == "net::ERR_ABORTED")
        #expect(chromium["/get"]?.code == URLError.cancelled.rawValue)                  // the manual redirect's target
        #expect(chromium["/refused"]?.code == URLError.cannotConnectToHost.rawValue)
        #expect(chromium["/users/1"]?.code == URLError.unknown.rawValue)               // CORS: net::ERR_FAILED
        #expect(chromium["/users/1"]?.message == "net::ERR_FAILED")
        #expect(chromium["/anything/blocked"]?.code == URLError.unknown.rawValue)      // blocked by DevTools
        #expect(chromium["/anything/blocked-by-route"]?.message == "net::ERR_BLOCKED_BY_CLIENT.Inspector")
        #expect(chromium.count == 6)

        let mitmproxy = try failures("mitmproxy-failures.har")
        #expect(mitmproxy["/empty"]?.code == URLError.networkConnectionLost.rawValue)
        #expect(mitmproxy["/garbage"]?.code == URLError.badServerResponse.rawValue)
        #expect(mitmproxy["/hang"]?.code == URLError.timedOut.rawValue)
        #expect(mitmproxy["/refused"]?.code == URLError.cannotConnectToHost.rawValue)
        #expect(mitmproxy["/refused"]?.message.contains("Errno 111") == true)

        let firefox = try failures("firefox.har")
        #expect(firefox.keys.sorted() == ["/delay/3", "/refused"])
        #expect(firefox.values.allSatisfy { $0.code == URLError.unknown.rawValue && $0.message.contains("status 0") })
    }

    @Test("the mapping of tools' error names: aborted, refused, unresolved, timed out, reset, and the documented default")
    func mappingTable() {
        let cases: [(String?, URLError.Code)] = [
            ("net::ERR_ABORTED", .cancelled), ("NS_BINDING_ABORTED", .cancelled), ("cancelled", .cancelled),
            ("net::ERR_CONNECTION_REFUSED", .cannotConnectToHost), ("NS_ERROR_CONNECTION_REFUSED", .cannotConnectToHost),
            ("[Errno 111] Connect call failed ('127.0.0.1', 1)", .cannotConnectToHost),
            ("Could not connect to the server.", .cannotConnectToHost),
            ("net::ERR_NAME_NOT_RESOLVED", .cannotFindHost), ("NS_ERROR_UNKNOWN_HOST", .cannotFindHost),
            ("[Errno -2] Name or service not known", .cannotFindHost),
            ("A server with the specified hostname could not be found.", .cannotFindHost),
            ("net::ERR_TIMED_OUT", .timedOut), ("net::ERR_CONNECTION_TIMED_OUT", .timedOut), ("The request timed out.", .timedOut),
            ("net::ERR_CONNECTION_RESET", .networkConnectionLost), ("net::ERR_EMPTY_RESPONSE", .networkConnectionLost),
            ("server closed connection", .networkConnectionLost), ("NS_ERROR_NET_RESET", .networkConnectionLost),
            ("net::ERR_INTERNET_DISCONNECTED", .notConnectedToInternet),
            ("net::ERR_CERT_AUTHORITY_INVALID", .serverCertificateUntrusted), ("net::ERR_SSL_PROTOCOL_ERROR", .secureConnectionFailed),
            ("net::ERR_TOO_MANY_REDIRECTS", .httpTooManyRedirects), ("net::ERR_CONTENT_DECODING_FAILED", .cannotDecodeContentData),
            ("net::ERR_INVALID_HTTP_RESPONSE", .badServerResponse),
            ("net::ERR_FAILED", .unknown), ("net::ERR_BLOCKED_BY_CLIENT", .unknown), ("inspector", .unknown), (nil, .unknown), ("", .unknown),
        ]
        for (text, code) in cases {
            #expect(ForeignFailure.code(for: text) == code, "\(text ?? "nil")")
        }
    }

    @Test("every entry replays through a real URLSession in recorded order: status, headers and body bytes, or the mapped error",
          arguments: fixtures)
    func everyEntryReplays(_ name: String) throws {
        let cassette = try load(name)
        let replay = SequentialReplay(cassette)
        var checked = 0
        for interaction in cassette.interactions.sorted(by: { $0.index < $1.index }) {
            let result = try replay.send(interaction.request)
            let label = "\(name) entry \(interaction.index) \(interaction.request.method) \(interaction.request.url.absoluteString)"
            switch interaction.outcome {
            case let .response(recorded):
                let response = try #require(result.response, "\(label): \(String(describing: result.error))")
                #expect(response.statusCode == recorded.status, "\(label)")
                #expect(result.body == recorded.body, "\(label): \(result.body.count) bytes, recorded \(recorded.body.count)")
                #expect(StableHash.fnv1a(result.body) == StableHash.fnv1a(recorded.body), "\(label): body hash")
                for name in Set(recorded.headers.map { $0.name.lowercased() }) {
                    let expected = recorded.headers.filter { $0.name.lowercased() == name }.map(\.value).joined(separator: ", ")
                    #expect(response.value(forHTTPHeaderField: name) == expected, "\(label): header \(name)")
                }
            case let .failure(recorded):
                let error = try #require(result.error, "\(label): expected a failure")
                #expect(error.code.rawValue == recorded.code, "\(label)")
                #expect(error.localizedDescription.contains(recorded.message), "\(label): \(error.localizedDescription)")
            }
            checked += 1
        }
        #expect(checked == cassette.interactions.count)
        #expect(replay.player.unplayed.isEmpty, "every entry was asked for once")
    }

    @Test("identical requests get the recorded answers in order (Playwright's two /uuid fetches)")
    func identicalRequestsInOrder() throws {
        let cassette = try load("playwright-chromium.har")
        let uuids = cassette.interactions.filter { $0.request.url.path == "/uuid" }
        #expect(uuids.count == 2)
        let recorded = uuids.compactMap { $0.response?.body }
        #expect(recorded.count == 2 && recorded[0] != recorded[1])
        let replay = SequentialReplay(cassette)
        let first = try replay.send(uuids[0].request).body
        let second = try replay.send(uuids[0].request).body
        #expect([first, second] == recorded)
    }

    @Test("an entry that is not an HTTP request is skipped with a warning; strict loading refuses it")
    func oddEntriesAreSkipped() throws {
        let data = try Data(contentsOf: fixturesDirectory.appendingPathComponent("interop/playwright-chromium.har"))
        var json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var log = try #require(json["log"] as? [String: Any])
        var entries = try #require(log["entries"] as? [[String: Any]])
        let count = entries.count
        var dataURL = entries[0]
        var request = try #require(dataURL["request"] as? [String: Any])
        request["url"] = "data:image/png;base64,iVBORw0KGgo="
        dataURL["request"] = request
        entries.insert(dataURL, at: 3)
        entries.insert(["request": 5, "response": [:]], at: 7)
        log["entries"] = entries
        json["log"] = log
        let odd = try JSONSerialization.data(withJSONObject: json)

        let cassette = try HARCodec.decode(odd, file: "odd.har")
        #expect(cassette.interactions.count == count)
        #expect(cassette.skipped.map(\.position) == [3, 7])
        #expect(cassette.skipped[0].description.contains("'data:' is not an HTTP URL scheme"), "\(cassette.skipped[0])")
        #expect(cassette.skipped[1].error.place == "entry 7 (request)", "\(cassette.skipped[1])")
        do {
            _ = try HARCodec.decode(odd, file: "odd.har", strict: true)
            Issue.record("strict loading read a file with a data: URL")
        } catch {
            #expect(error.kind == .entry && error.place == "entry 3 (request.url)", "\(error)")
        }
    }

    @Test("other recorders' custom fields of every JSON type, at every level, change nothing and keep the fast path")
    func customFieldsEverywhere() throws {
        let data = try Data(contentsOf: fixturesDirectory.appendingPathComponent("interop/playwright-chromium.har"))
        let plain = try HARCodec.decode(data, file: "p.har")
        let values: [Any] = [["nested": ["a": [1, 2.5, NSNull()]]], [true, "x", ["y": 1]], 42, -1.5e3, "text", NSNull(), false]
        var counter = 0
        func decorate(_ object: inout [String: Any]) {
            object["_custom\(counter)"] = values[counter % values.count]
            object["_x-tool \(counter)"] = values[(counter + 3) % values.count]
            counter += 1
            for (key, value) in object where !key.hasPrefix("_") {
                if var child = value as? [String: Any] {
                    decorate(&child)
                    object[key] = child
                } else if let list = value as? [Any] {
                    object[key] = list.map { element -> Any in
                        guard var child = element as? [String: Any] else { return element }
                        decorate(&child)
                        return child
                    }
                }
            }
        }
        var json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        decorate(&json)
        #expect(counter > 500, "fields were added at every level: \(counter)")
        let decorated = try JSONSerialization.data(withJSONObject: json)
        let fast = try #require(HARCodec.decodeFast(decorated), "custom fields made the fast reader decline")
        #expect(fast == (try HARCodec.decodeWithFoundation(decorated, file: "d.har")))
        let cassette = try HARCodec.decode(decorated, file: "d.har")
        #expect(cassette.interactions == plain.interactions && cassette.skipped.isEmpty)
    }

    @Test("a file with skipped entries replays, but is never recorded into (writing it back would drop them)")
    func noRecordingIntoFilesWithSkippedEntries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var text = try String(contentsOf: fixturesDirectory.appendingPathComponent("interop/mitmproxy.har"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"url\": \"http://127.0.0.1:18081/missing\"", with: "\"url\": \"blob:nothing\"")
        let file = directory.file("odd.har")
        try Data(text.utf8).write(to: file)
        let before = try Data(contentsOf: file)

        let replaying = try CassetteRecorder(cassette: file, options: .init(mode: .replayOnly))
        #expect(replaying.base.interactions.count == 5 && replaying.base.skipped.count == 1)
        _ = try replaying.finish()
        for mode in [CassetteRecorder.Mode.newEpisodes, .all] {
            do {
                _ = try CassetteRecorder(cassette: file, options: .init(mode: mode))
                Issue.record("\(mode) opened a cassette it would have truncated")
            } catch {
                #expect(error.reason.contains("cannot record into a cassette with 1 entry"), "\(error)")
            }
        }
        #expect(throws: CassetteError.self) { try CassetteRecorder(cassette: file, options: .init(strictLoading: true)) }
        #expect(try Data(contentsOf: file) == before)
    }
}

/// Replays a cassette one request at a time through a harness-made URLSession whose delegate
/// refuses redirects, so that every recorded hop is seen as it was recorded.
final class SequentialReplay: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked Sendable: used from the test's thread between simulation runs; the callbacks run
    // on the simulated root queue while the test waits in runUntilIdle.
    let scheduler = SimulatedScheduler(seed: 11, violationPolicy: .record)
    let player: CassettePlayer
    private let network: SimulatedNetwork
    private let harness: Harness
    private let root: SimulatedQueue
    private var session: URLSession!

    /// Frees the sessions and the simulation when the test lets go of it (see Harness.endSimulation()).
    deinit {
        harness.endSimulation()
    }

    init(_ cassette: Cassette) {
        player = CassettePlayer(cassette: cassette, afterLast: .noMatch)
        network = SimulatedNetwork(scheduler: scheduler)
        network.add(Route(.any, responder: player, options: RouteOptions(latency: .recorded(scale: 1))))
        harness = Harness(network: network)
        root = scheduler.makeSimulatedQueue(label: "interop.rootQueue", target: nil)
        super.init()
        session = harness.makeSession(delegate: self, delegateQueue: root)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    /// Sends `recorded`'s method, URL and body (not its header fields), plus `headers`.
    func send(_ recorded: RecordedRequest, headers: [String: String] = [:]) throws -> (response: HTTPURLResponse?, body: Data, error: URLError?) {
        var request = URLRequest(url: recorded.url)
        request.httpMethod = recorded.method
        request.httpBody = recorded.body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let result = Mutex<(HTTPURLResponse?, Data, URLError?)?>(nil)
        let session = session!
        let sent = request
        root.async {
            session.dataTask(with: sent) { data, response, error in
                result.withLock { $0 = (response as? HTTPURLResponse, data ?? Data(), error as? URLError) }
            }.resume()
        }
        try scheduler.runUntilIdle()
        let (response, body, error) = try #require(result.withLock { $0 }, "no answer for \(recorded.url)")
        return (response, body, error)
    }
}
