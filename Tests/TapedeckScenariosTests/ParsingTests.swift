import Foundation
import Testing
import TapedeckCassettes
import TapedeckScenarios

@Suite("Scenario files: every section and key the reader accepts, into the model")
struct ParsingTests {
    @Test("durations: ns, us, µs, ms, s, m, h and bare seconds", arguments: [
        ("100ns", Duration.nanoseconds(100)), ("250us", .microseconds(250)), ("250µs", .microseconds(250)),
        ("250ms", .milliseconds(250)), ("1.5s", .milliseconds(1_500)), ("2m", .seconds(120)), ("1h", .seconds(3_600)),
        ("3", .seconds(3)), ("0.25", .milliseconds(250)), ("0s", .zero),
    ])
    func durations(_ text: String, _ expected: Duration) throws {
        let scenario = try parse("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script:
              - request: GET http://api.test/a
                at: \(text)
            """)
        #expect(scenario.requests.first?.start == expected)
    }

    @Test("byte sizes: plain, B, KB, KiB, MB, MiB", arguments: [
        ("1500", 1_500), ("10B", 10), ("16KB", 16_000), ("4KiB", 4_096), ("2MB", 2_000_000), ("2MiB", 2_097_152), ("1.5KiB", 1_536),
    ])
    func byteSizes(_ text: String, _ expected: Int) throws {
        let scenario = try parse("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script: [{request: GET http://api.test/a}]
            faults: [{kind: reset, afterBytes: \(text)}]
            """)
        #expect(scenario.faults.first?.kind == .reset(afterBytes: expected))
    }

    @Test("integer sets: a value, a range, a list mixing both")
    func integerSets() throws {
        let scenario = try parse("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script: [{request: GET http://api.test/a, name: a}]
            expect:
              requests:
                a: {status: 503, attempts: 1-3, bodyBytes: [0, 10-20, 99]}
            """)
        let expectation = try #require(scenario.expectations.requests.first)
        #expect(expectation.status == IntegerSet([503...503]))
        #expect(expectation.attempts == IntegerSet([1...3]))
        #expect(expectation.bodyBytes == IntegerSet([0...0, 10...20, 99...99]))
        #expect(expectation.attempts?.contains(2) == true && expectation.attempts?.contains(4) == false)
        #expect(expectation.bodyBytes?.description == "0, 10-20, 99")
    }

    @Test("request patterns: with and without a method, prefixes, paths on any host, anything")
    func patterns() {
        let items = URL(string: "http://api.test/items/7?page=2")!
        #expect(RequestPattern(parsing: "GET http://api.test/items*") == RequestPattern(method: "GET", url: "http://api.test/items*"))
        #expect(RequestPattern(parsing: "get http://api.test/items").method == "GET")
        #expect(RequestPattern(parsing: "http://api.test/items*").method == nil)
        #expect(RequestPattern(parsing: "GET http://api.test/items/*").matches(method: "GET", url: items))
        #expect(!RequestPattern(parsing: "POST http://api.test/items/*").matches(method: "GET", url: items))
        #expect(RequestPattern(parsing: "/items/*").matches(method: "GET", url: items))
        #expect(!RequestPattern(parsing: "/orders*").matches(method: "GET", url: items))
        #expect(RequestPattern(parsing: "*").matches(method: "DELETE", url: items))
        // Without a query in the pattern any query matches; with one, it must be that query.
        #expect(RequestPattern(parsing: "http://api.test/items/7").matches(method: "GET", url: items))
        #expect(!RequestPattern(parsing: "http://api.test/items/7?page=1").matches(method: "GET", url: items))
        #expect(!RequestPattern(parsing: "http://api.test/items").matches(method: "GET", url: items))
        #expect(RequestPattern(parsing: "GET http://api.test/items*").description == "GET http://api.test/items*")
    }

    @Test("request patterns compare URLs as cassettes do: host case, default ports, escapes, fragments, query order")
    func patternsNormalise() {
        // A browser HAR (Logger++) spells the default port; a stub or fault route leaves it out.
        let robots = URL(string: "https://portal.example.com:443/robots.txt")!
        #expect(RequestPattern(parsing: "GET https://portal.example.com/robots.txt").matches(method: "GET", url: robots))
        #expect(RequestPattern(parsing: "https://PORTAL.example.com/robots*").matches(method: "GET", url: robots))
        #expect(RequestPattern(parsing: "https://portal.example.com:443/robots.txt").matches(method: "GET", url: URL(string: "https://portal.example.com/robots.txt")!))
        #expect(!RequestPattern(parsing: "https://portal.example.com:8443/robots.txt").matches(method: "GET", url: robots))
        #expect(RequestPattern(parsing: "https://api.local/caps").matches(method: "GET", url: URL(string: "https://API.LOCAL/caps#top")!))
        #expect(RequestPattern(parsing: "http://api.test").matches(method: "GET", url: URL(string: "http://api.test/")!))
        #expect(RequestPattern(parsing: "/caf%c3%a9").matches(method: "GET", url: URL(string: "http://any.test/caf%C3%A9")!))
        // A whole pattern's query matches in any order, spelt as a server reads it.
        let search = URL(string: "http://api.test/anything/items?a=1&b=hello%20world")!
        #expect(RequestPattern(parsing: "http://api.test/anything/items?b=hello+world&a=1").matches(method: "GET", url: search))
        #expect(!RequestPattern(parsing: "http://api.test/anything/items?b=2&a=1").matches(method: "GET", url: search))
        // A prefix keeps its query's order (it is text up to the star).
        #expect(RequestPattern(parsing: "http://api.test/anything/items?a=1*").matches(method: "GET", url: search))
    }

    @Test("traffic: a cassette with timing, matching and afterLast; stubs with sequences, files, gzip and failures; a token server; an upstream")
    func traffic() throws {
        let scenario = try parse("""
            name: everything
            description: what it shows
            seed: 42
            traffic:
              cassette:
                file: ../../../../fixtures/cassettes/api.har.gz
                timing: 0.5
                match: {url: exact, body: json, headers: [Accept, X-Tenant]}
                afterLast: noMatch
              upstream: http://127.0.0.1:8080
              stubs:
                - match: POST http://api.test/items
                  status: 201
                  headers: {Location: /items/9, X-Trace: abc}
                  json: {id: 9, tags: [a, "1"], price: 2.5, ok: true, none: null, quoted: "true"}
                  latency: 80ms
                  jitter: 20ms
                  bandwidth: 16KiB
                - url: http://api.test/flaky*
                  method: get
                  responses:
                    - {fail: timedOut}
                    - {fail: -1005}
                    - {status: 503, body: busy}
                    - {status: 200, bodyFile: body.json, gzip: true}
              auth:
                token: POST http://api.test/token
                protect: [GET http://api.test/private/*, /admin*]
                lifetime: 2m
                initialToken: first
            script: [{request: GET http://api.test/flaky}]
            """)
        #expect(scenario.name == "everything")
        #expect(scenario.description == "what it shows")
        #expect(scenario.seed == 42)
        #expect(scenario.traffic.cassette == CassetteSource(
            url: apiCassette.standardizedFileURL, timingScale: 0.5, urlRule: .exact, bodyRule: .json, headers: ["Accept", "X-Tenant"],
            afterLast: .noMatch))
        #expect(scenario.traffic.upstream == URL(string: "http://127.0.0.1:8080"))
        #expect(scenario.traffic.stubs.count == 2)
        let created = scenario.traffic.stubs[0]
        #expect(created.pattern == RequestPattern(method: "POST", url: "http://api.test/items"))
        #expect(created.latency == .milliseconds(80) && created.jitter == .milliseconds(20) && created.bandwidth == 16_384)
        #expect(created.responses == [StubResponse(
            status: 201,
            headers: [Header("Location", "/items/9"), Header("X-Trace", "abc"), Header("Content-Type", "application/json")],
            body: Data(#"{"id":9,"tags":["a","1"],"price":2.5,"ok":true,"none":null,"quoted":"true"}"#.utf8))])
        let flaky = scenario.traffic.stubs[1]
        #expect(flaky.pattern == RequestPattern(method: "GET", url: "http://api.test/flaky*"))
        #expect(flaky.responses == [
            StubResponse(failure: URLError.timedOut.rawValue),
            StubResponse(failure: -1005),
            StubResponse(status: 503, body: Data("busy".utf8)),
            StubResponse(status: 200, body: Data(#"{"id": 1}"#.utf8), gzip: true),
        ])
        #expect(scenario.traffic.auth == AuthServer(
            token: RequestPattern(method: "POST", url: "http://api.test/token"), lifetime: .seconds(120),
            protect: [RequestPattern(method: "GET", url: "http://api.test/private/*"), RequestPattern(url: "/admin*")], initialToken: "first"))
    }

    @Test("cassette timing: recorded, instant, a factor, given beside the cassette or inside it", arguments: [
        ("cassette: api.har.gz\n  timing: recorded", 1.0), ("cassette: api.har.gz\n  timing: instant", 0.0),
        ("cassette: api.har.gz\n  timing: 2", 2.0), ("cassette: {file: api.har.gz, timing: instant}", 0.0),
        ("cassette: api.har.gz", 1.0),
    ])
    func cassetteTiming(_ traffic: String, _ scale: Double) throws {
        let scenario = try parse("""
            traffic:
              \(traffic)
            script: [{request: GET http://api.test/a}]
            """)
        #expect(scenario.traffic.cassette?.timingScale == scale)
        #expect(scenario.traffic.cassette?.url == parsingDirectory.appendingPathComponent("api.har.gz").standardizedFileURL)
    }

    @Test("client: queue layouts, setup, retry, validation, auth, timeouts, redirects, metrics grace, headers")
    func client() throws {
        let scenario = try parse("""
            traffic:
              stubs: [{url: http://api.test/a}]
              auth: {token: POST http://api.test/token, protect: http://api.test/a}
            client:
              queues: separateSerialization
              setup: eager
              retry:
                limit: 4
                base: 3
                scale: 0.25
                methods: [get, post]
                statuses: [429, 500-504]
                errorCodes: [timedOut, -1005, networkConnectionLost]
                honourRetryAfter: true
              validate:
                statuses: [200-299, 304]
                contentTypes: [application/json, text/*]
              auth: true
              timeouts: {request: 2s, resource: 1m}
              redirects: doNotFollow
              metricsGrace: 50ms
              headers: {Accept: application/json, X-App: test}
            script: [{request: GET http://api.test/a}]
            """)
        #expect(scenario.client == ClientSetup(
            queues: .separateSerialization, setup: .eager,
            retry: RetrySetup(limit: 4, base: 3, scale: 0.25, methods: ["GET", "POST"], statuses: IntegerSet([429...429, 500...504]),
                              errorCodes: [URLError.timedOut.rawValue, -1005, URLError.networkConnectionLost.rawValue], honoursRetryAfter: true),
            validation: ValidationSetup(statuses: IntegerSet([200...299, 304...304]), contentTypes: .list(["application/json", "text/*"])),
            authenticates: true, requestTimeout: .seconds(2), resourceTimeout: .seconds(60), followsRedirects: false,
            metricsGracePeriod: .milliseconds(50), headers: [Header("Accept", "application/json"), Header("X-App", "test")]))
    }

    @Test("client shorthands: retry true/false, validate true/false, content types from Accept or any; the defaults", arguments: [
        ("retry: true", ClientSetup(retry: RetrySetup())),
        ("retry: false", ClientSetup()),
        ("validate: true", ClientSetup(validation: ValidationSetup())),
        ("validate: false", ClientSetup()),
        ("validate: {contentTypes: accept}", ClientSetup(validation: ValidationSetup(contentTypes: .fromAccept))),
        ("validate: {contentTypes: any}", ClientSetup(validation: ValidationSetup(contentTypes: nil))),
        ("queues: suppliedRoot", ClientSetup(queues: .suppliedRoot)),
        ("queues: alamofire", ClientSetup(queues: .alamofire)),
        ("redirects: follow", ClientSetup(followsRedirects: true)),
        ("setup: lazy", ClientSetup(setup: .lazy)),
    ])
    func clientShorthands(_ line: String, _ expected: ClientSetup) throws {
        let scenario = try parse("""
            traffic: {stubs: [{url: http://api.test/a}]}
            client: {\(line)}
            script: [{request: GET http://api.test/a}]
            """)
        #expect(scenario.client == expected)
        #expect(RetrySetup() == RetrySetup(limit: 2, base: 2, scale: 0.5, honoursRetryAfter: false))
    }

    @Test("script: request forms, names, headers, bodies, per-request validation, repeats; cancels at, during backoff, at an attempt; cancelAll")
    func script() throws {
        let scenario = try parse("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script:
              - request: GET http://api.test/items/7
              - request: {method: post, url: http://api.test/items}
                name: create
                headers: {X-Id: "1"}
                json: [1, {a: b}]
                validate: false
              - request: PUT http://api.test/raw
                body: plain text
                validate: {statuses: 200}
              - request: GET http://api.test/poll
                name: poll
                repeat: 3
                at: 1s
                every: 250ms
              - cancel: poll
                during: backoff
              - cancel: poll#2
                during: backoff#2
              - cancel: create
                at: 1.5s
              - cancel: raw
                atAttempt: 2
              - cancelAll: 5s
            """)
        #expect(scenario.script.count == 9)
        guard case let .request(first) = scenario.script[0], case let .request(create) = scenario.script[1],
              case let .request(raw) = scenario.script[2], case let .request(poll) = scenario.script[3] else {
            Issue.record("the first four steps are requests: \(scenario.script)")
            return
        }
        #expect(first == RequestStep(name: "7", method: "GET", url: URL(string: "http://api.test/items/7")!))
        #expect(create == RequestStep(name: "create", method: "POST", url: URL(string: "http://api.test/items")!,
                                      headers: [Header("X-Id", "1"), Header("Content-Type", "application/json")],
                                      body: Data(#"[1,{"a":"b"}]"#.utf8), validation: .some(nil)))
        #expect(raw == RequestStep(name: "raw", method: "PUT", url: URL(string: "http://api.test/raw")!, body: Data("plain text".utf8),
                                   validation: .some(ValidationSetup(statuses: IntegerSet([200...200])))))
        #expect(poll.repetitions == 3 && poll.at == .seconds(1) && poll.every == .milliseconds(250))
        #expect(Array(scenario.script[4...]) == [
            .cancel(CancelStep(target: "poll", trigger: .duringBackoff(1))),
            .cancel(CancelStep(target: "poll#2", trigger: .duringBackoff(2))),
            .cancel(CancelStep(target: "create", trigger: .at(.milliseconds(1_500)))),
            .cancel(CancelStep(target: "raw", trigger: .atAttempt(2))),
            .cancelAll(at: .seconds(5)),
        ])
        #expect(scenario.requests.map(\.name) == ["7", "create", "raw", "poll#1", "poll#2", "poll#3"])
        #expect(scenario.requests.suffix(3).map(\.start) == [.seconds(1), .milliseconds(1_250), .milliseconds(1_500)])
        #expect(scenario.requests[4].isNamed("poll") && scenario.requests[4].isNamed("poll#2") && !scenario.requests[4].isNamed("poll#1"))
    }

    @Test("faults: every kind of the catalogue with its own keys, and the targeting keys every kind takes")
    func faults() throws {
        let scenario = try parse("""
            traffic:
              stubs: [{url: http://api.test/a}]
              auth: {token: POST http://api.test/token, protect: http://api.test/a}
            script: [{request: GET http://api.test/a}]
            faults:
              - {kind: latency, delay: 200ms, jitter: 50ms}
              - {kind: slowFirstByte, delay: 2s, name: slow}
              - {kind: bandwidth, bytesPerSecond: 1KiB}
              - {kind: stall}
              - {kind: refused}
              - {kind: hostNotFound}
              - {kind: notConnected}
              - {kind: connectionLost}
              - {kind: reset, afterBytes: 4KiB}
              - {kind: truncate, afterBytes: 100}
              - {kind: corruptGzip}
              - {kind: status, status: 429, retryAfter: 3s, headers: {X-Why: busy}}
              - {kind: status, status: 503, retryAfterDate: 1m}
              - {kind: metrics, delivery: before}
              - {kind: metrics, delivery: after}
              - {kind: metrics, delivery: missing}
              - {kind: metrics, delivery: duplicate}
              - {kind: duplicateCompletion}
              - {kind: tokenExpiry, at: 1s}
              - kind: refused
                name: targeted
                route: GET http://api.test/a*
                attempts: 2-3
                exchanges: [1, 4]
                window: {from: 100ms, until: 2s}
                probability: 250
                enabled: 500
            """)
        let kinds: [FaultKind] = [
            .latency(delay: .milliseconds(200), jitter: .milliseconds(50)), .latency(delay: .seconds(2), jitter: .zero),
            .bandwidth(bytesPerSecond: 1_024), .stall, .refused, .hostNotFound, .notConnected, .connectionLost, .reset(afterBytes: 4_096),
            .truncate(afterBytes: 100), .corruptGzip,
            .status(429, headers: [Header("X-Why", "busy")], retryAfter: .seconds(3), retryAfterDate: nil),
            .status(503, headers: [], retryAfter: nil, retryAfterDate: .seconds(60)),
            .metrics(.before), .metrics(.after), .metrics(.missing), .metrics(.duplicate), .duplicateCompletion, .tokenExpiry(at: .seconds(1)),
            .refused,
        ]
        #expect(scenario.faults.map(\.kind) == kinds)
        // Unnamed sites are named after their kind and place.
        #expect(scenario.faults.prefix(3).map(\.name) == ["latency-1", "slow", "bandwidth-3"])
        #expect(scenario.faults.dropLast().allSatisfy { $0.probabilityPerMille == 1_000 && $0.enabledPerMille == 1_000 && $0.pattern == nil })
        #expect(scenario.faults.last == FaultSite(
            name: "targeted", kind: .refused, pattern: RequestPattern(method: "GET", url: "http://api.test/a*"), attempts: IntegerSet([2...3]),
            exchanges: IntegerSet([1...1, 4...4]), from: .milliseconds(100), until: .seconds(2), probabilityPerMille: 250, enabledPerMille: 500))
        // Every name of the catalogue is read (FaultKind.names is what files spell).
        #expect(Set(scenario.faults.dropLast().map { $0.kind.name }).union(["slowFirstByte"]) == Set(FaultKind.names))
    }

    @Test("expectations: every per-request key, allowed anomalies, exchanges per route; a schedule")
    func expectationsAndSchedule() throws {
        let scenario = try parse("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script:
              - request: GET http://api.test/a
                name: a
                repeat: 2
            faults: [{kind: latency, delay: 1ms, jitter: 1ms, name: slow}]
            expect:
              requests:
                a:
                  status: 200-299
                  error: none
                  attempts: 1
                  finishedBy: 4.5s
                  bodyContains: '"ok"'
                  bodyBytes: 10-20
                  json:
                    - {path: "items[0].id", equals: 1}
                    - {path: name, equals: Ada}
                    - {path: tags, equals: [a, b]}
                    - {path: gone, equals: null}
                a#2: {error: timedOut}
              allowAnomalies: [metricsMissing, duplicateMetrics, duplicateCompletion]
              exchanges:
                GET http://api.test/a: 2
                http://api.test/*: 1-5
            schedule:
              faults:
                - {site: slow, request: a#1, attempt: 1, drawn: 500000}
                - {site: slow, request: a#2, attempt: 2, occurrence: 3}
            """)
        #expect(scenario.expectations == Expectations(
            requests: [
                RequestExpectation(target: "a", status: IntegerSet([200...299]), error: ErrorKind.none, attempts: IntegerSet([1...1]),
                                   finishedBy: .milliseconds(4_500), bodyContains: #""ok""#,
                                   json: [JSONExpectation(path: "items[0].id", equals: "1"), JSONExpectation(path: "name", equals: #""Ada""#),
                                          JSONExpectation(path: "tags", equals: #"["a","b"]"#), JSONExpectation(path: "gone", equals: "null")],
                                   bodyBytes: IntegerSet([10...20])),
                RequestExpectation(target: "a#2", error: .timedOut),
            ],
            allowedAnomalies: ["metricsMissing", "duplicateMetrics", "duplicateCompletion"],
            exchanges: [ExchangeCount(route: RequestPattern(method: "GET", url: "http://api.test/a"), count: IntegerSet([2...2])),
                        ExchangeCount(route: RequestPattern(url: "http://api.test/*"), count: IntegerSet([1...5]))]))
        #expect(scenario.schedule == Schedule(faults: [
            FaultDecision(site: "slow", request: "a#1", attempt: 1, occurrence: 1, drawn: 500_000),
            FaultDecision(site: "slow", request: "a#2", attempt: 2, occurrence: 3, drawn: 0),
        ]))
    }

    @Test("a scenario without a name takes its file's; JSON files read like YAML; a file loads from disk")
    func namesJSONAndFiles() throws {
        let json = try parse(#"{"traffic": {"stubs": [{"url": "http://api.test/a", "status": 204}]}, "script": [{"request": "GET http://api.test/a"}]}"#,
                             file: "from-json.json")
        #expect(json.name == "from-json")
        #expect(json.traffic.stubs.first?.responses.first?.status == 204)
        let loaded = try Scenario.load(parsingDirectory.appendingPathComponent("good-minimal.yaml"))
        #expect(loaded.name == "good-minimal")
        #expect(loaded.source == parsingDirectory.appendingPathComponent("good-minimal.yaml"))
        #expect(loaded.traffic.cassette?.url == apiCassette.standardizedFileURL)
        #expect(loaded.requests.map(\.name) == ["me"])
        // Defaults: seed 1, Alamofire's client, no faults, no expectations, no schedule.
        #expect(loaded.seed == 1 && loaded.client == ClientSetup() && loaded.faults.isEmpty && loaded.expectations == Expectations())
        #expect(loaded.schedule == nil)
    }

    @Test("the test-only hook is read from _test")
    func testHooks() throws {
        let scenario = try parse("""
            _test: {nondeterministicStub: true}
            traffic: {stubs: [{url: http://api.test/a}]}
            script: [{request: GET http://api.test/a}]
            """)
        #expect(scenario.traffic.testHooks.nondeterministicStub)
    }
}
