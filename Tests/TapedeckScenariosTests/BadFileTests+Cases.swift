import Foundation
import Testing
import TapedeckScenarios

/// The bad files ``BadFileTests/badFile(_:)`` reads, each with the place and message a user must see.
extension BadFileTests {
    static let cases: [BadFile] = [
        BadFile(what: "a near-miss unknown key gets a 'did you mean'", yaml: """
            \(stub)
            client:
              retry:
                limt: 3
            script: [{request: GET http://api.test/a}]
            """, line: 4, column: 5, path: "client.retry.limt", message: "unknown key 'limt' — did you mean 'limit'?"),
        BadFile(what: "an unknown key far from every known one lists the allowed keys", yaml: """
            \(stub)
            client: {zzzqqq: 1}
            script: [{request: GET http://api.test/a}]
            """, line: 2, column: 10, path: "client.zzzqqq",
            message: "unknown key 'zzzqqq' — allowed here: queues, setup, retry, validate, auth, timeouts, redirects, metricsGrace, headers, provider"),
        BadFile(what: "a stub with both match and url", yaml: """
            traffic: {stubs: [{match: GET http://api.test/a, url: http://api.test/b}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 55, path: "traffic.stubs[0].url",
            message: "'url' and 'match' exclude each other — write the method and URL in 'match: METHOD URL'"),
        BadFile(what: "a failure answer with a status", yaml: """
            traffic: {stubs: [{url: http://api.test/a, fail: timedOut, status: 500}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 68, path: "traffic.stubs[0].status",
            message: "'status' does not apply to a failure — a 'fail' answer has no response; remove 'status' or 'fail'"),
        BadFile(what: "a token expiry with a probability", yaml: """
            traffic: {auth: {token: POST http://api.test/token, protect: GET http://api.test/a}}
            script: [{request: GET http://api.test/a}]
            faults: [{kind: tokenExpiry, at: 1s, probability: 500}]
            """, line: 3, column: 51, path: "faults[0].probability",
            message: "'probability' does not apply to a tokenExpiry fault — remove it (a tokenExpiry fault takes at), or make it a fault of a kind that takes it"),
        BadFile(what: "a misspelt top-level section", yaml: """
            \(stub)
            scirpt: [{request: GET http://api.test/a}]
            """, line: 2, column: 1, path: "scirpt", message: "unknown key 'scirpt' — did you mean 'script'?"),
        BadFile(what: "a key given twice", yaml: """
            \(stub)
            seed: 1
            seed: 2
            script: [{request: GET http://api.test/a}]
            """, line: 3, column: 1, path: "", message: "'seed' appears more than once in one mapping — keep one of them"),
        BadFile(what: "a key given twice, apart", yaml: """
            script: [{request: GET http://api.test/a}]
            \(stub)
            script: [{request: GET http://api.test/b}]
            """, line: 3, column: 1, path: "", message: "'script' appears more than once in one mapping — keep one of them"),
        BadFile(what: "a quote left open is pointed at where it opens, not where the file ends", yaml: """
            traffic:
              stubs:
                - match: "GET http://api.test/a
                  body: ok
            script: [{request: GET http://api.test/a}]
            """, line: 3, column: 14, path: "",
            message: "not valid YAML: while scanning a quoted scalar: found unexpected end of stream — the quote that opens here is not closed"),
        BadFile(what: "a key given twice in a list item's mapping is pointed at its repeat", yaml: """
            \(stub)
            script:
              - request: GET http://api.test/a
                name: a
                name: b
            """, line: 5, column: 5, path: "", message: "'name' appears more than once in one mapping — keep one of them"),
        BadFile(what: "a word where a number belongs", yaml: """
            seed: many
            \(stub)
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 7, path: "seed", message: "expected a whole number, found 'many' — write digits, e.g. 3"),
        BadFile(what: "a scalar where a mapping belongs", yaml: """
            \(stub)
            client: 3
            script: [{request: GET http://api.test/a}]
            """, line: 2, column: 9, path: "client",
            message: "expected a mapping (key: value lines), found '3' — allowed keys: queues, setup, retry, validate, auth, timeouts, redirects, metricsGrace, headers, provider"),
        BadFile(what: "a mapping where a list belongs", yaml: """
            \(stub)
            script: {request: GET http://api.test/a}
            """, line: 2, column: 9, path: "script", message: "expected a list, found a mapping"),
        BadFile(what: "a mapping where a set of statuses belongs says what a set is", yaml: """
            \(stub)
            client: {retry: {statuses: {503: x}}}
            script: [{request: GET http://api.test/a}]
            """, line: 2, column: 28, path: "client.retry.statuses",
            message: "expected a number, a range or a list of them, found a mapping — write e.g. 503, 500-599 or [500, 503] (a mapping's 'key: value' is not a set)"),
        BadFile(what: "a word where true or false belongs", yaml: """
            \(stub)
            client: {auth: sometimes}
            script: [{request: GET http://api.test/a}]
            """, line: 2, column: 16, path: "client.auth", message: "expected true or false, found 'sometimes' — write true or false"),
        BadFile(what: "not a duration", yaml: """
            \(stub)
            script:
              - request: GET http://api.test/a
                at: soon
            """, line: 4, column: 9, path: "script[0].at", message: "'soon' is not a duration — write e.g. 80ms, 1.5s, 2m or 250us"),
        BadFile(what: "not a byte count", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults:
              - kind: reset
                afterBytes: lots
            """, line: 5, column: 17, path: "faults[0].afterBytes", message: "'lots' is not a byte count — write a whole number of bytes, e.g. 1500, 1.5KB or 2MiB"),
        BadFile(what: "a retry limit out of range", yaml: """
            \(stub)
            client:
              retry: {limit: 500}
            script: [{request: GET http://api.test/a}]
            """, line: 3, column: 18, path: "client.retry.limit", message: "500 is out of range — use a number from 0 to 100"),
        BadFile(what: "a probability above 1000 per mille", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults:
              - kind: stall
                probability: 1500
            """, line: 5, column: 18, path: "faults[0].probability",
            message: "1500 is out of range (thousandths: 0 to 1000) — probabilities count in thousandths (per mille): 1000 is always, 500 half the time, 5 one time in 200"),
        BadFile(what: "a status that is no HTTP status", yaml: """
            traffic: {stubs: [{url: http://api.test/a, status: 42}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 52, path: "traffic.stubs[0].status", message: "42 is out of range — use a number from 200 to 999"),
        BadFile(what: "a backwards range", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: a}]
            expect:
              requests:
                a: {attempts: 3-1}
            """, line: 5, column: 19, path: "expect.requests.a.attempts", message: "'3-1' is reversed: a range goes from the smaller number to the larger — write 1-3"),
        BadFile(what: "a range written as Swift and --seeds write one", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: a}]
            expect:
              requests:
                a: {attempts: 1...3}
            """, line: 5, column: 19, path: "expect.requests.a.attempts", message: "'1...3' is neither a number nor a range like 500-599 — write 1-3"),
        BadFile(what: "a status out of a set's range", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: a}]
            expect:
              requests:
                a: {status: 1000}
            """, line: 5, column: 17, path: "expect.requests.a.status", message: "1000 is out of range — stay within 100-999"),
        BadFile(what: "no script", yaml: """
            \(stub)
            seed: 3
            """, line: 1, column: 1, path: "",
            message: "'script' is required here — list the requests to send, e.g. - request: GET http://api.test/items"),
        BadFile(what: "a script that sends nothing", yaml: """
            \(stub)
            script:
              - cancelAll: 1s
            """, line: 3, column: 3, path: "script",
            message: "the script sends no request — add '- request: GET http://api.test/items'"),
        BadFile(what: "a step that is both a request and a cancel", yaml: """
            \(stub)
            script:
              - request: GET http://api.test/a
                cancel: a
            """, line: 3, column: 5, path: "script[0]", message: "give only one of request, cancel"),
        BadFile(what: "a cancel with two triggers", yaml: """
            \(stub)
            script:
              - request: GET http://api.test/a
              - cancel: a
                at: 1s
                during: backoff
            """, line: 4, column: 5, path: "script[1]", message: "give only one of at, during"),
        BadFile(what: "a cancel during an event that does not exist", yaml: """
            \(stub)
            script:
              - request: GET http://api.test/a
              - cancel: a
                during: lunch
            """, line: 5, column: 13, path: "script[1].during",
            message: "'lunch' is not an event to cancel during — use backoff (the first) or backoff#2"),
        BadFile(what: "a cancel of a request the script does not send", yaml: """
            \(stub)
            script:
              - request: GET http://api.test/a
                name: items
              - cancel: itmes
                at: 1s
            """, line: 5, column: 5, path: "script[1]", message: "no request is named 'itmes' — did you mean 'items'?"),
        BadFile(what: "a stub's status beside its responses", yaml: """
            traffic:
              stubs:
                - url: http://api.test/a
                  status: 200
                  responses: [{status: 503}]
            script: [{request: GET http://api.test/a}]
            """, line: 4, column: 15, path: "traffic.stubs[0].status",
            message: "'status' and 'responses' exclude each other — put 'status' inside each response"),
        BadFile(what: "a stub with two bodies", yaml: """
            traffic:
              stubs:
                - url: http://api.test/a
                  body: text
                  json: {a: 1}
            script: [{request: GET http://api.test/a}]
            """, line: 5, column: 13, path: "traffic.stubs[0].json", message: "give only one of body, json and bodyFile"),
        BadFile(what: "a request with a body and a JSON body", yaml: """
            \(stub)
            script:
              - request: POST http://api.test/a
                body: text
                json: {a: 1}
            """, line: 5, column: 11, path: "script[0].json", message: "give only one of body, json and multipart"),
        BadFile(what: "an unknown fault kind, near a known one", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults:
              - kind: latncy
                delay: 1s
            """, line: 4, column: 11, path: "faults[0].kind",
            message: "'latncy' is not one of \(FaultKind.names.joined(separator: ", ")) — did you mean 'latency'? choose one of them"),
        BadFile(what: "a key that does not apply to the fault's kind", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults:
              - kind: refused
                delay: 1s
            """, line: 5, column: 12, path: "faults[0].delay", message: "'delay' does not apply to a refused fault — remove it, or make it a fault of a kind that takes it"),
        BadFile(what: "a fault kind without the key it needs", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults:
              - kind: reset
            """, line: 4, column: 5, path: "faults[0]", message: "'afterBytes' is required here — a reset fault needs 'afterBytes'"),
        BadFile(what: "a fault without a kind", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults:
              - delay: 1s
            """, line: 4, column: 5, path: "faults[0]",
            message: "'kind' is required here — one of \(FaultKind.names.joined(separator: ", "))"),
        BadFile(what: "an unknown metrics delivery", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults: [{kind: metrics, delivery: aftr}]
            """, line: 3, column: 36, path: "faults[0].delivery",
            message: "'aftr' is not one of before, after, missing, duplicate — did you mean 'after'? choose one of them"),
        BadFile(what: "a token expiry with no token server", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults: [{kind: tokenExpiry, at: 1s}]
            """, line: 3, column: 10, path: "faults[0]", message: "a tokenExpiry fault needs a token server — add traffic.auth"),
        BadFile(what: "two fault sites with one name", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults: [{kind: stall, name: x}, {kind: refused, name: x}]
            """, line: 3, column: 34, path: "faults[1]", message: "two faults are named 'x' — give each fault its own 'name'"),
        BadFile(what: "an expectation naming no scripted request", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: items}]
            expect:
              requests:
                itme: {status: 200}
            """, line: 5, column: 11, path: "expect.requests.itme", message: "no request is named 'itme' — did you mean 'items'?"),
        BadFile(what: "an expectation naming no scripted request, beside exchange counts", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: items}]
            expect:
              requests:
                itme: {status: 200}
              exchanges:
                GET http://api.test/a: 1
            """, line: 5, column: 11, path: "expect.requests.itme", message: "no request is named 'itme' — did you mean 'items'?"),
        BadFile(what: "an unknown expectation key", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: a}]
            expect:
              requests:
                a: {stauts: 200}
            """, line: 5, column: 9, path: "expect.requests.a.stauts", message: "unknown key 'stauts' — did you mean 'status'?"),
        BadFile(what: "an unknown error kind", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: a}]
            expect:
              requests:
                a: {error: timeout}
            """, line: 5, column: 16, path: "expect.requests.a.error",
            message: "'timeout' is not one of \(ErrorKind.allCases.map(\.rawValue).joined(separator: ", ")) — did you mean 'timedOut'? choose one of them"),
        BadFile(what: "an anomaly that is not one", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            expect: {allowAnomalies: [lateMetrics]}
            """, line: 3, column: 27, path: "expect.allowAnomalies[0]",
            message: "'lateMetrics' is not one of metricsMissing, duplicateMetrics, duplicateCompletion — choose one of them"),
        BadFile(what: "a schedule naming a fault the scenario does not define", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            schedule:
              faults: [{site: ghost, request: a}]
            """, line: 4, column: 19, path: "schedule.faults[0].site",
            message: "the schedule names a fault 'ghost' the scenario does not define"),
        BadFile(what: "two request steps with one name", yaml: """
            \(stub)
            script:
              - request: GET http://api.test/a
              - request: GET http://api.test/b/a
            """, line: 4, column: 5, path: "script[1]", message: "two requests are named 'a' — give each request step its own 'name'"),
        BadFile(what: "a request URL that is not absolute", yaml: """
            \(stub)
            script: [{request: GET /a}]
            """, line: 2, column: 20, path: "script[0].request",
            message: "'/a' is not an absolute http(s) URL — write e.g. GET http://api.test/items"),
        BadFile(what: "nothing to answer the requests", yaml: """
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 1, path: "",
            message: "nothing answers the requests — add traffic.cassette (a .har or .har.gz) or traffic.stubs"),
        BadFile(what: "timing without a cassette", yaml: """
            traffic:
              stubs: [{url: http://api.test/a}]
              timing: instant
            script: [{request: GET http://api.test/a}]
            """, line: 3, column: 11, path: "traffic.timing",
            message: "'timing' applies to a cassette, and there is none — add 'cassette: FILE.har.gz' or remove 'timing'"),
        BadFile(what: "a timing that is none", yaml: """
            traffic: {cassette: api.har.gz, timing: fast}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 41, path: "traffic.timing",
            message: "'fast' is not a timing — use recorded, instant or a scale factor such as 0.5"),
        BadFile(what: "an unknown URLError name", yaml: """
            traffic: {stubs: [{url: http://api.test/a, fail: timeout}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 50, path: "traffic.stubs[0].fail",
            message: "'timeout' is not one of \(["badServerResponse", "cancelled", "cannotConnectToHost", "cannotFindHost", "dnsLookupFailed", "networkConnectionLost", "notConnectedToInternet", "secureConnectionFailed", "timedOut", "unknown"].joined(separator: ", ")) — did you mean 'timedOut'? choose one of them"),
        BadFile(what: "a body file that is not there", yaml: """
            traffic: {stubs: [{url: http://api.test/a, bodyFile: missing.json}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 54, path: "traffic.stubs[0].bodyFile",
            message: "cannot read \(parsingDirectory.appendingPathComponent("missing.json").standardizedFileURL.path): there is no such file — paths are relative to the scenario file"),
        BadFile(what: "an upstream that is not http", yaml: """
            traffic: {cassette: api.har.gz, upstream: "ftp://example.com"}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 43, path: "traffic.upstream", message: "'ftp://example.com' is not an http(s) URL — e.g. http://127.0.0.1:8080"),
        BadFile(what: "not YAML at all", yaml: """
            script: [{request: GET http://api.test/a}
            traffic: {
            """, line: 2, column: 1, path: "",
            message: "not valid YAML: while parsing a flow sequence: did not find expected ',' or ']' — in the [ or { opened at line 1, column 9"),
        BadFile(what: "a value holding brackets inside a flow mapping says to quote it", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: a}]
            expect:
              requests:
                a: {json: {path: items[1], equals: 2}}
            """, line: 5, column: 27, path: "",
            message: "not valid YAML: while parsing a flow mapping: did not find expected ',' or '}' — in the [ or { opened at line 5, column 15: "
                + "separate its items with commas, close it, and quote a value that holds [ ] { } or a comma (path: \"items[1]\")"),
        BadFile(what: "a YAML merge key says YAML 1.2 has none", yaml: """
            \(stub)
            script:
              - <<: {name: a}
                request: GET http://api.test/a
            """, line: 3, column: 5, path: "script[0].<<",
            message: "unknown key '<<' — YAML 1.2, which scenario files are read as, has no merge keys"),
        BadFile(what: "an empty file", yaml: "", line: 0, column: 0, path: "",
                message: "the file is empty — start from a file in docs/examples/scenarios"),
        BadFile(what: "a blank request name would leave the table and failure lines without their subject", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: " "}]
            """, line: 2, column: 49, path: "script[0].name",
            message: "the name is empty — give it a name the outputs can show, or leave the key out for the default one"),
        BadFile(what: "a fault site's name with a line break would split the outputs (and a shrunk file's comment)", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults: [{kind: status, status: 500, name: "two\\nlines"}]
            """, line: 3, column: 44, path: "faults[0].name",
            message: "the name holds a line break or another control character (U+000A) — names are shown on one line: use letters, digits, spaces and punctuation"),
        BadFile(what: "a key given twice in a flow mapping points at the second, past a value that spells it", yaml: """
            traffic: {stubs: [{match: GET http://api.test/a, body: "x, status: 1", status: 200, status: 201}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 85, path: "", message: "'status' appears more than once in one mapping — keep one of them"),
        BadFile(what: "a name holding a line separator (U+2028), which YAML breaks a line at", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: "a\\u2028b"}]
            """, line: 2, column: 49, path: "script[0].name",
            message: "the name holds a line break or another control character (U+2028) — names are shown on one line: use letters, digits, spaces and punctuation"),
        BadFile(what: "a repeat number past the step's repeats says how many there are", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: g, repeat: 3}]
            expect: {requests: {g#5: {status: 200}}}
            """, line: 3, column: 26, path: "expect.requests.g#5",
            message: "no request is named 'g#5' — 'g' is sent 3 times: g#1 to g#3 (not #5)"),
        BadFile(what: "a Retry-After given as seconds and as a date", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults: [{kind: status, status: 503, retryAfter: 2s, retryAfterDate: 5s}]
            """, line: 3, column: 70, path: "faults[0].retryAfterDate",
            message: "'retryAfterDate' and 'retryAfter' exclude each other — a Retry-After is seconds or a date: keep one"),
    ]
}
