import Foundation
import Testing
import TapedeckCassettes
import TapedeckScenarios
import TapedeckServer
import TapedeckTestSupport

/// A reset starts the fault plan over: a suite that reuses one server gets, after each reset, the
/// faults a fresh server with the same seed would give.
@Suite("Server: a reset starts the seeded fault plan over")
struct SocketFaultResetTests {
    private let plan = """
        faults:
          - {kind: status, name: flaky, status: 500, probability: 500, route: GET http://api.test/gzip}
          - {kind: status, name: once, status: 429, retryAfterDate: 5s, attempts: 1, route: GET http://api.test/uuid}
          - {kind: status, name: third, status: 503, exchanges: 3}
        """

    /// Statuses of a fixed run of requests (exchange numbers as the server counts them).
    private func statuses(_ faults: SocketFaults, from first: Int) -> [Int] {
        let paths = ["/gzip", "/gzip", "/uuid", "/gzip", "/uuid", "/gzip", "/gzip", "/gzip"]
        return paths.enumerated().map { offset, path in
            var answer = ServerAnswer.text(200, "ok")
            faults.apply(method: "GET", url: URL(string: "http://api.test" + path)!, exchange: first + offset, to: &answer)
            return answer.status
        }
    }

    @Test("after reset the same requests get the same faults as the first time, and the firing log starts empty")
    func resetReplaysThePlan() throws {
        let faults = SocketFaults(plan: try FaultPlan.parse(plan, file: "faults.yaml"), seed: 7)
        // Given a first run of requests
        let first = statuses(faults, from: 1)
        #expect(first[2] != 200, "the first /uuid is exchange 3: \(first)")
        // When the same requests come again without a reset: the once-only 429 and exchange 3 do not repeat
        let again = statuses(faults, from: 9)
        #expect(again[2] == 200, "\(again)")
        // Then after a reset they get exactly the first run's faults
        faults.reset()
        #expect(faults.fired.isEmpty && faults.firedCount == 0)
        let afterReset = statuses(faults, from: 17)
        #expect(afterReset == first)
        // And a fresh server with the same seed agrees
        let fresh = SocketFaults(plan: try FaultPlan.parse(plan, file: "faults.yaml"), seed: 7)
        #expect(statuses(fresh, from: 1) == first)
    }

    @Test("one request spelt as different clients spell it (query order, escape case, + or %20) meets the same draws and occurrence counts")
    func spellingsShareDraws() throws {
        let coin = """
            faults:
              - {kind: status, name: coin, status: 503, probability: 500, route: "GET /items*"}
              - {kind: status, name: second, status: 429, attempts: 2, route: "GET /once*"}
            """
        func statuses(_ spell: (Int) -> String) throws -> [Int] {
            let faults = SocketFaults(plan: try FaultPlan.parse(coin, file: "faults.yaml"), seed: 11)
            return (0..<24).map { number in
                var answer = ServerAnswer.text(200, "ok")
                faults.apply(method: "GET", url: URL(string: "http://127.0.0.1:8080" + spell(number))!, exchange: number + 1, to: &answer)
                return answer.status
            }
        }
        let query = "x=1&y=caf%C3%A9&z=a%20b", respelt = ["z=a+b&y=caf%c3%a9&x=1", "y=caf%C3%A9&x=1&z=a%20b"]
        // Given the requests as one client wrote them: distinct /items resources, and one /once
        // resource asked again and again (its second occurrence meets `attempts: 2`)
        let recorded = try statuses { $0 % 2 == 0 ? "/items/q\($0)?\(query)" : "/once?\(query)" }
        #expect(recorded.contains(503) && recorded.contains(200) && recorded.filter { $0 == 429 } == [429], "\(recorded)")
        // Then other spellings get the same faults, also when spellings mix within one run
        for other in respelt {
            #expect(try statuses { $0 % 2 == 0 ? "/items/q\($0)?\(other)" : "/once?\(other)" } == recorded)
        }
        #expect(try statuses { $0 % 2 == 0 ? "/items/q\($0)?\(respelt[$0 % 4 / 2])" : "/once?\(respelt[$0 % 4 / 2])" } == recorded)
        #expect(try statuses { $0 % 2 == 0 ? "/items/q\($0)?\(query)" : "/once?\($0 == 1 ? query : respelt[0])" } == recorded)
    }

    @Test("a Retry-After date comes with a Date of now, and is that Date plus the plan's wait, as a server writes it")
    func retryAfterDate() throws {
        let faults = SocketFaults(plan: try FaultPlan.parse(plan, file: "faults.yaml"), seed: 7)
        var answer = ServerAnswer(status: 200, headers: [.init("Date", "Mon, 01 Jan 2024 00:00:00 GMT")], body: Data())
        let before = Date()
        faults.apply(method: "GET", url: URL(string: "http://api.test/uuid")!, exchange: 1, to: &answer)
        let dates = answer.headers.filter { $0.name == "Date" }.map(\.value)
        let retry = try #require(answer.headers.first { $0.name == "Retry-After" }?.value)
        #expect(answer.status == 429 && dates.count == 1)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = try #require(formatter.date(from: dates[0])), until = try #require(formatter.date(from: retry))
        // Whole seconds: `Date` is now rounded down, `Retry-After` that Date plus the plan's 5 s,
        // so a client measuring from the `Date` waits exactly 5 s.
        #expect(until.timeIntervalSince(date) == 5, "\(dates[0]) → \(retry)")
        #expect(date.timeIntervalSince(before) > -1, "the Date \(dates[0]) is the time of the answer, not the recorded one")
    }

    @Test("through the admin endpoint: the request after a reset is exchange 1 again (the reset request is not counted)")
    func resetOverTheSocket() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("one.har")
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/items")!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("ok".utf8)))),
        ]), to: cassette)
        let faults = directory.file("faults.yaml")
        try Data("faults: [{kind: status, name: first, status: 503, exchanges: 1}]\n".utf8).write(to: faults)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant", "--faults", faults.path, "--seed", "1"])
        // Given a plan that fails exchange 1: the first request gets 503, the second 200
        #expect(try curl([server.base + "/items"]).code == 503)
        #expect(try curl([server.base + "/items"]).code == 200)
        // When the suite resets the server, then the next request is exchange 1 again
        #expect(try curl(["-X", "POST", server.base + "/__tapedeck/reset"]).code == 200)
        #expect(try curl([server.base + "/items"]).code == 503)
        #expect(try curl([server.base + "/items"]).code == 200)
        #expect(server.stop() == 0)
    }
}
