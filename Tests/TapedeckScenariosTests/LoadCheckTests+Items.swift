import Foundation
import Testing
import TapedeckScenarios

/// Bad values whose error used to hide others or say too little: every stub's problems at once,
/// empty windows, an upstream with a path, a provider's bad base URL and mode words.
@Suite("Scenario files: each item's problems, and the values that cannot work")
struct ItemProblemTests {
    @Test("a stub whose match is a bad pattern hides no later stub's problems: all four stubs are reported, in file order")
    func everyStubReported() throws {
        // Given four stubs, each wrong in its own way, two of them with a bad `match`
        let error = try #require(parseError("""
            traffic:
              stubs:
                - match: GET http://api.test/x
                  latency: fast
                - match: GET http://api.test/y
                  latency: slow
                - match: GET http://api.test/y*z
                  json: {}
                - match: GET api.test/q
                  json: {}
            script:
              - request: GET http://api.test/x
            """))
        // Then each stub's problem is named at its place
        let all = [error] + error.more
        #expect(all.map(\.path) == ["traffic.stubs[0].latency", "traffic.stubs[1].latency", "traffic.stubs[2].match", "traffic.stubs[3].match"],
                "\(error)")
        #expect(all.last?.reason.contains("the URL has no scheme") == true, "\(error)")
    }

    @Test("a window with only 'until: 0s' is empty (from defaults to 0 s) and refused as '{from: 0s, until: 0s}' is; 'until: 1ms' loads")
    func emptyWindowFromDefault() throws {
        func file(_ window: String) -> String {
            """
            traffic: {stubs: [{match: "*", json: {}}]}
            script: [{request: GET http://api.test/a}]
            faults:
              - {kind: status, status: 503, window: \(window)}
            """
        }
        // Given the empty window written both ways, and a window of one millisecond
        let defaulted = try #require(parseError(file("{until: 0s}")))
        let explicit = try #require(parseError(file("{from: 0s, until: 0s}")))
        // Then both are refused at the window, and the short one loads
        #expect(defaulted.path == "faults[0].window" && defaulted.line == 4, "\(defaulted)")
        #expect(defaulted.reason == "the window is empty: the start (0s, the default 'from') is not before 'until' (0s)", "\(defaulted)")
        #expect(explicit.reason.hasPrefix("the window is empty: 'from' (0s) is not before 'until' (0s)"), "\(explicit)")
        #expect(try parse(file("{until: 1ms}")).faults.first?.until == .milliseconds(1))
    }

    @Test("an upstream with a path or a query is refused at its place, saying requests keep their own path and what to write; an origin loads",
          arguments: [("http://127.0.0.1:18932/api/v2?key=abc", "has a path (/api/v2) and a query (?key=abc)"),
                      ("http://127.0.0.1:18932/api", "has a path (/api)"), ("http://127.0.0.1:18932?key=abc", "has a query (?key=abc)")])
    func upstreamWithPath(upstream: String, what: String) throws {
        func file(_ upstream: String) -> String {
            """
            traffic:
              cassette: recordings/none.har.gz
              upstream: \(upstream)
            script: [{request: GET http://api.test/items}]
            """
        }
        // Given an upstream that names more than an origin
        let error = try #require(parseError(file(upstream)))
        // Then it is refused at the value, with the origin to write instead
        #expect(error.path == "traffic.upstream" && (error.line, error.column) == (3, 13), "\(error)")
        #expect(error.reason.hasPrefix("'\(upstream)' \(what): the upstream is an origin only"), "\(error)")
        #expect(error.hint == "write 'upstream: http://127.0.0.1:18932' and put the path in the script's URLs", "\(error)")
        #expect(try parse(file("http://127.0.0.1:18932")).traffic.upstream?.absoluteString == "http://127.0.0.1:18932")
        #expect(try parse(file("http://127.0.0.1:18932/")).traffic.upstream != nil)
    }

    @Test("a provider baseURL with a query is one error: no target is said to lack a base URL")
    func badProviderBaseURLIsOneError() throws {
        let error = try #require(parseError("""
            traffic: {stubs: [{match: "*", json: {}}]}
            client:
              provider:
                baseURL: http://api.test/v1?lang=en
                targets:
                  items: {path: /items}
                  orders: {path: /orders}
            script: [{target: items}, {target: orders}]
            """))
        #expect(error.path == "client.provider.baseURL" && error.more.isEmpty, "\(error)")
        #expect(!error.description.contains("has no base URL"), "\(error)")
    }

    @Test("a name holding a direction override or an invisible space is refused: it would turn the failure line around, or show an empty lane",
          arguments: ["\u{202E}evil", "\u{200B}", "a\u{2066}b"])
    func invisibleNames(_ name: String) throws {
        let error = try #require(parseError("""
            traffic: {stubs: [{match: "*", json: {}}]}
            script: [{request: GET http://api.test/a, name: "\(name)"}]
            """))
        #expect(error.description.contains("invisible character that reorders or hides text"), "\(error)")
    }

    @Test("a header value holding a control character (CR, escape) is refused: it would break the head and the printed lines")
    func controlInHeaderValue() throws {
        let error = try #require(parseError("""
            traffic: {stubs: [{match: "*", json: {}}]}
            script: [{request: GET http://api.test/a}]
            faults: [{kind: status, status: 503, headers: {X-Note: "a\\rb"}}]
            """))
        #expect(error.description.contains("control character (U+000D)"), "\(error)")
    }

    @Test("a retry backoff past 10⁹ s is refused at load (the virtual clock would saturate); one just under passes",
          arguments: [("{limit: 3, scale: 1e300}", true), ("{limit: 100}", true), ("{limit: 30, base: 2, scale: 1}", false)])
    func backoffBound(_ retry: String, refused: Bool) throws {
        let yaml = """
            traffic: {stubs: [{match: "*", status: 503}]}
            client: {retry: \(retry)}
            script: [{request: GET http://api.test/a}]
            """
        let error = parseError(yaml)
        #expect((error != nil) == refused, "\(String(describing: error))")
        if let error {
            #expect(error.path.hasPrefix("client.retry") && error.description.contains("more than the 10⁹ s"), "\(error)")
        }
    }

    @Test("a target's own baseURL that is not an http(s) URL is named as such, not as a missing base URL", arguments: ["ftp://x", "api.test"])
    func badTargetBaseURLIsNamed(_ base: String) throws {
        let error = try #require(parseError("""
            traffic: {stubs: [{match: "*", json: {}}]}
            client:
              provider:
                targets:
                  t: {baseURL: "\(base)", path: /items}
            script: [{target: t}]
            """))
        #expect(error.path == "client.provider.targets.t.baseURL" && error.more.isEmpty, "\(error)")
        #expect(!error.description.contains("has no base URL") && error.description.contains("'\(base)'"), "\(error)")
    }

    @Test("a provider's stub mode and plugins: a wrong word lists the mapping form too, and a near miss of the mapping's key points at it",
          arguments: [("stub: sometimes", "'sometimes' is not one of never, immediate, {delayed: DURATION} — choose one of them"),
                      ("stub: delayd", "'delayd' is not one of never, immediate, {delayed: DURATION} — did you mean '{delayed: DURATION}'? choose one of them"),
                      ("stub: delayed", "'delayed' needs a value — write {delayed: DURATION}"),
                      ("plugins: [accessTokn]", "'accessTokn' is not one of activity, logger, {accessToken: TOKEN} — did you mean '{accessToken: TOKEN}'? choose one of them"),
                      ("plugins: [loger]", "'loger' is not one of activity, logger, {accessToken: TOKEN} — did you mean 'logger'? choose one of them")])
    func providerWords(line: String, message: String) throws {
        let error = try #require(parseError("""
            traffic: {stubs: [{match: "*", json: {}}]}
            client:
              provider:
                baseURL: http://api.test
                \(line)
                targets: {items: {path: /items}}
            script: [{target: items}]
            """))
        #expect(error.line == 5 && error.more.isEmpty, "\(error)")
        #expect(error.description.hasSuffix(message), "\(error)")
    }

    @Test("an alias that names no anchor is named in the error")
    func undefinedAlias() throws {
        let error = try #require(parseError("""
            traffic: {stubs: [{match: "*", json: {}}]}
            script:
              - request: GET http://api.test/a
                headers: *nope
            """))
        #expect(error.line == 4, "\(error)")
        #expect(error.reason == "not valid YAML: the alias '*nope' names no anchor", "\(error)")
        #expect(error.hint.contains("&nope"), "\(error)")
    }
}
