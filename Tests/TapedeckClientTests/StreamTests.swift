import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stream requests (Alamofire's `streamRequest`) through a real URLSession and the bridge: pieces
/// in order as they arrive on the virtual clock, the completion last, serializers, stream errors,
/// validation at the end, cancelling from a piece or from the head, retries.
@Suite("Pipeline: stream requests")
struct StreamTests {
    struct Tick: Decodable, Sendable, Equatable {
        let n: Int
    }

    /// Serves `pieces` at `path` as separate chunks, 10 bytes a second (so they arrive at distinct
    /// virtual instants); `statuses` answer the first calls instead of 200.
    @discardableResult
    static func serve(_ fixture: ClientFixture, path: String = "/events", pieces: [String], statuses: [Int] = [],
                      contentType: String = "text/event-stream") -> Box<Int> {
        let calls = Box(0)
        fixture.network.route(host: "api.test", path: path, options: RouteOptions(bandwidth: 10)) { _, _ in
            calls.mutate { $0 += 1 }
            let status = calls.value <= statuses.count ? statuses[calls.value - 1] : 200
            var plan = ResponsePlan(status: status, headers: [("Content-Type", contentType)], body: Data(pieces.joined().utf8))
            plan.chunkSizes = pieces.map(\.utf8.count)
            return .response(plan)
        }
        return calls
    }

    /// What a handler saw, one line per event: `piece@<seconds>:<text>` or `complete:<status>:<error>`.
    static func line<Failure>(_ stream: DataStreamRequest.Stream<String, Failure>, at now: VirtualInstant) -> String {
        switch stream.event {
        case let .stream(result):
            let text = (try? result.get()) ?? "failure"
            return "piece@\(Double(now.nanoseconds) / 1e9):\(text)"
        case let .complete(completion):
            let error = completion.error.map { $0.isExplicitlyCancelledError ? "cancelled" : "\($0)" } ?? "none"
            return "complete:\(completion.response?.statusCode ?? 0):\(error)"
        }
    }

    static let events = ["data: one\n\n", "data: two\n\n", "data: three\n\n"]

    @Test("every handler gets each piece when it arrives, in order, then one completion, last")
    func piecesInOrder() throws {
        let fixture = ClientFixture()
        Self.serve(fixture, pieces: Self.events)
        let raw = Box<[Data]>([]), text = Box<[String]>([]), completions = Box(0)
        let scheduler = fixture.scheduler
        fixture.session.streamRequest("http://api.test/events")
            .responseStream { stream in
                if let piece = stream.value { raw.mutate { $0.append(piece) } }
                if stream.completion != nil { completions.mutate { $0 += 1 } }
            }
            .responseStreamString { stream in text.mutate { $0.append(Self.line(stream, at: scheduler.now)) } }
        try fixture.run()

        #expect(raw.value == Self.events.map { Data($0.utf8) })
        #expect(completions.value == 1)
        let lines = text.value
        #expect(lines.count == 4)
        #expect(lines.last == "complete:200:none")
        let times = lines.dropLast().compactMap { $0.split(separator: "@").last?.split(separator: ":").first.flatMap { Double($0) } }
        #expect(times.count == 3 && times == times.sorted() && Set(times).count == 3, "pieces arrive as they travel: \(lines)")
        #expect(lines.dropLast().map { String($0.split(separator: ":", maxSplits: 1).last ?? "") } == Self.events)
        // Text pieces are made on the serializationQueue and told to the monitors; raw ones are not.
        #expect(fixture.events.details(of: "didParseStream") == ["ok", "ok", "ok"])
    }

    @Test("decoded pieces: one that does not decode is a failure, the stream goes on, monitors see each parse")
    func decodablePieces() throws {
        let fixture = ClientFixture()
        Self.serve(fixture, path: "/ticks", pieces: [#"{"n":1}"#, "oops", #"{"n":3}"#], contentType: "application/json")
        let seen = Box<[String]>([])
        fixture.session.streamRequest("http://api.test/ticks").responseStreamDecodable(of: Tick.self) { stream in
            switch stream.event {
            case let .stream(.success(tick)): seen.mutate { $0.append("\(tick.n)") }
            case let .stream(.failure(error)): seen.mutate { $0.append(error.isResponseSerializationError ? "undecodable" : "\(error)") }
            case let .complete(completion): seen.mutate { $0.append("end:\(completion.error.map { "\($0)" } ?? "none")") }
            }
        }
        try fixture.run()
        #expect(seen.value == ["1", "undecodable", "3", "end:none"])
        #expect(fixture.events.details(of: "didParseStream").map { $0.hasPrefix("responseSerializationFailed") ? "failed" : $0 }
                == ["ok", "failed", "ok"])
    }

    @Test("automaticallyCancelOnStreamError: the first bad piece is delivered, then the request ends cancelled")
    func cancelOnStreamError() throws {
        let fixture = ClientFixture()
        Self.serve(fixture, path: "/ticks", pieces: [#"{"n":1}"#, "oops", #"{"n":3}"#], contentType: "application/json")
        let seen = Box<[String]>([])
        fixture.session.streamRequest("http://api.test/ticks", automaticallyCancelOnStreamError: true)
            .responseStreamDecodable(of: Tick.self) { stream in
                if let tick = stream.value { seen.mutate { $0.append("\(tick.n)") } }
                if stream.error != nil { seen.mutate { $0.append("undecodable") } }
                if let completion = stream.completion { seen.mutate { $0.append("end:\(completion.error?.isExplicitlyCancelledError == true)") } }
            }
        try fixture.run()
        #expect(seen.value == ["1", "undecodable", "end:true"])
    }

    @Test("validate() lets an error body stream and fails at the completion; onHTTPResponse .cancel stops at the head")
    func validationAndHead() throws {
        let fixture = ClientFixture()
        Self.serve(fixture, path: "/down", pieces: ["busy ", "busy"], statuses: [500, 500])
        let validated = Box<[String]>([]), stopped = Box<[String]>([]), heads = Box<[Int]>([])
        let scheduler = fixture.scheduler
        fixture.session.streamRequest("http://api.test/down").validate()
            .responseStreamString { stream in validated.mutate { $0.append(Self.line(stream, at: scheduler.now)) } }
        fixture.session.streamRequest("http://api.test/down")
            .onHTTPResponse { response, decide in
                heads.mutate { $0.append(response.statusCode) }
                decide(response.statusCode == 200 ? .allow : .cancel)
            }
            .responseStreamString { stream in stopped.mutate { $0.append(Self.line(stream, at: scheduler.now)) } }
        try fixture.run()

        #expect(validated.value.count == 3)
        #expect(validated.value.last?.contains("unacceptableStatusCode(code: 500)") == true, "\(validated.value)")
        #expect(heads.value == [500])
        #expect(stopped.value == ["complete:500:cancelled"])
    }

    @Test("a handler that throws cancels the request, whose completion carries that error; stream.cancel() ends it too")
    func throwingAndCancellingHandlers() throws {
        let fixture = ClientFixture()
        Self.serve(fixture, pieces: Self.events)
        let thrown = Box<[String]>([]), cancelled = Box<[String]>([])
        fixture.session.streamRequest("http://api.test/events").responseStreamString { stream in
            if let text = stream.value {
                thrown.mutate { $0.append(text) }
                throw TestError(id: 7)
            }
            if let completion = stream.completion {
                guard case let .responseSerializationFailed(.customSerializationFailed(error))? = completion.error else {
                    thrown.mutate { $0.append("unexpected \(String(describing: completion.error))") }
                    return
                }
                thrown.mutate { $0.append("end:\((error as? TestError)?.id ?? 0)") }
            }
        }
        fixture.session.streamRequest("http://api.test/events").responseStreamString { stream in
            if let text = stream.value {
                cancelled.mutate { $0.append(text) }
                stream.cancel()
            }
            if let completion = stream.completion { cancelled.mutate { $0.append("end:\(completion.error?.isExplicitlyCancelledError == true)") } }
        }
        try fixture.run()
        #expect(thrown.value == [Self.events[0], "end:7"])
        #expect(cancelled.value == [Self.events[0], "end:true"])
    }

    @Test("a retried stream streams again: the handler sees both attempts' pieces and one completion")
    func retried() throws {
        let retrier = CountingInterceptor { call, _ in call == 1 ? .retry : .doNotRetry }
        let fixture = ClientFixture(interceptor: retrier)
        let calls = Self.serve(fixture, path: "/flaky", pieces: ["wait", "ok"], statuses: [503])
        let seen = Box<[String]>([])
        let scheduler = fixture.scheduler
        let request = fixture.session.streamRequest("http://api.test/flaky").validate(statusCode: 200..<300)
            .responseStreamString { stream in seen.mutate { $0.append(Self.line(stream, at: scheduler.now)) } }
        try fixture.run()
        #expect(calls.value == 2)
        #expect(request.retryCount == 1)
        #expect(seen.value.map { $0.split(separator: ":", maxSplits: 1).last.map(String.init) ?? "" }
                == ["wait", "ok", "wait", "ok", "200:none"])
    }

    @Test("onHTTPResponse on a data request: the handler sees the head first; .cancel leaves no body and a cancelled request")
    func dataRequestHead() throws {
        let fixture = ClientFixture()
        Self.serve(fixture, path: "/forbidden", pieces: ["no, ", "never"], statuses: [403])
        Self.serve(fixture, path: "/doc", pieces: ["part one, ", "part two"])
        let refused = Box<[String]>([]), allowed = Box<[String]>([])
        let main = fixture.session.queue(standingFor: .main)
        fixture.session.request("http://api.test/forbidden")
            .onHTTPResponse(on: main) { response, decide in
                refused.mutate { $0.append("head \(response.statusCode)") }
                decide(.cancel)
            }
            .responseData { response in
                refused.mutate { $0.append("data \(response.data?.count ?? 0) \(response.error?.isExplicitlyCancelledError == true)") }
            }
        fixture.session.request("http://api.test/doc")
            .onHTTPResponse(on: main) { response in allowed.mutate { $0.append("head \(response.statusCode)") } }
            .responseString { response in allowed.mutate { $0.append("text \(response.value ?? "-")") } }
        try fixture.run()
        #expect(refused.value == ["head 403", "data 0 true"])
        #expect(allowed.value == ["head 200", "text part one, part two"])
    }

    @Test("async onHTTPResponse (Alamofire's Task-run forms): an awaited .cancel leaves no body, .allow and the Void form let it through; the same seed gives the same trace",
          arguments: [1, 2] as [UInt64])
    func asyncHeadHandlers(seed: UInt64) throws {
        func once() throws -> (lines: [String], trace: TraceHash) {
            let fixture = ClientFixture(seed: seed, monitors: false)
            Self.serve(fixture, path: "/forbidden", pieces: ["no, ", "never"], statuses: [403])
            Self.serve(fixture, path: "/doc", pieces: ["part one, ", "part two"])
            Self.serve(fixture, path: "/events", pieces: Self.events)
            let lines = Box<[String]>([])
            let note: @Sendable (String) -> Void = { line in lines.mutate { $0.append(line) } }
            fixture.session.request("http://api.test/forbidden")
                .onHTTPResponse { (response: HTTPURLResponse) async -> Request.ResponseDisposition in
                    await Task.yield()
                    return response.statusCode == 200 ? .allow : .cancel
                }
                .responseData { note("forbidden \($0.data?.count ?? 0) \($0.error?.isExplicitlyCancelledError == true)") }
            fixture.session.request("http://api.test/doc")
                .onHTTPResponse { (response: HTTPURLResponse) async -> Request.ResponseDisposition in
                    await Task.yield()
                    return response.statusCode == 200 ? .allow : .cancel
                }
                .responseString { note("doc \($0.value ?? "-")") }
            let heads = Box(0)
            fixture.session.streamRequest("http://api.test/events")
                .onHTTPResponse { (_: HTTPURLResponse) async in
                    await Task.yield()
                    heads.mutate { $0 += 1 }
                }
                .responseStreamString { stream in note(stream.value ?? "end") }
            try fixture.run()
            #expect(heads.value == 1)
            #expect(fixture.scheduler.outstandingExpectationCount == 0)
            return (lines.value, fixture.scheduler.traceHash)
        }
        let first = try once()
        #expect(first.lines.contains("forbidden 0 true"), "\(first.lines)")
        #expect(first.lines.contains("doc part one, part two"), "\(first.lines)")
        #expect(first.lines.filter { $0.hasPrefix("data:") } == Self.events, "\(first.lines)")
        // The stream's completion comes after its every piece.
        let end = try #require(first.lines.firstIndex(of: "end"))
        #expect(first.lines.indices.filter { first.lines[$0].hasPrefix("data:") }.allSatisfy { $0 < end }, "\(first.lines)")
        for _ in 0..<3 {
            let again = try once()
            #expect(again.lines == first.lines)
            #expect(again.trace == first.trace, "the Task's answers arrive on other threads, at other times: taken in order, they change nothing")
        }
    }

    @Test("an answer to the head that comes after the body arrived still holds it back: .cancel delivers none of it",
          arguments: [0, 1, 2, 3] as [UInt64])
    func headAnsweredLate(seed: UInt64) throws {
        let fixture = ClientFixture(seed: seed)
        // No bandwidth limit: the head, every piece and the end arrive at the same instant, while
        // the handlers decide on a queue of their own.
        fixture.network.route(host: "api.test", path: "/now") { _, _ in
            var plan = ResponsePlan.text(200, "abcdef")
            plan.chunkSizes = [2, 2, 2]
            return .response(plan)
        }
        let decider = fixture.scheduler.makeQueue(label: "decider", target: nil)
        let data = Box<[String]>([]), stream = Box<[String]>([]), allowed = Box<[String]>([])
        fixture.session.request("http://api.test/now")
            .onHTTPResponse(on: decider) { _, decide in decider.async(named: "later") { decider.async(named: "later still") { decide(.cancel) } } }
            .responseData { response in data.mutate { $0.append("\(response.data?.count ?? 0) \(response.error?.isExplicitlyCancelledError == true)") } }
        fixture.session.streamRequest("http://api.test/now")
            .onHTTPResponse(on: decider) { _, decide in decider.async(named: "later") { decider.async(named: "later still") { decide(.cancel) } } }
            .responseStream { piece in stream.mutate { $0.append(piece.value.map { String(decoding: $0, as: UTF8.self) } ?? "end") } }
        fixture.session.streamRequest("http://api.test/now")
            .onHTTPResponse(on: decider) { _, decide in decider.async(named: "later") { decider.async(named: "later still") { decide(.allow) } } }
            .responseStream { piece in allowed.mutate { $0.append(piece.value.map { String(decoding: $0, as: UTF8.self) } ?? "end") } }
        try fixture.run()
        #expect(data.value == ["0 true"])
        #expect(stream.value == ["end"])
        #expect(allowed.value == ["ab", "cd", "ef", "end"])
    }

    @Test("a finished stream request is released, as a data request is (its handlers do not keep it)")
    func released() throws {
        let fixture = ClientFixture(monitors: false)
        Self.serve(fixture, pieces: Self.events)
        weak var stream: DataStreamRequest?
        weak var data: DataRequest?
        let completions = Box(0)
        do {
            stream = fixture.session.streamRequest("http://api.test/events")
                .responseStreamString { if $0.completion != nil { completions.mutate { $0 += 1 } } }
                .responseStream(using: StringStreamSerializer()) { _ in }
            data = fixture.session.request("http://api.test/events").responseData { _ in completions.mutate { $0 += 1 } }
        }
        try fixture.run()
        #expect(completions.value == 2)
        #expect(data == nil)
        #expect(stream == nil)
    }

    @Test("the same seed gives the same stream events, every run", arguments: [1, 2, 3] as [UInt64])
    func deterministic(seed: UInt64) throws {
        func run() throws -> [String] {
            let fixture = ClientFixture(seed: seed)
            Self.serve(fixture, path: "/ticks", pieces: [#"{"n":1}"#, "oops", #"{"n":3}"#], contentType: "application/json")
            let scheduler = fixture.scheduler
            let seen = Box<[String]>([])
            for _ in 0..<3 {
                fixture.session.streamRequest("http://api.test/ticks").responseStreamString(on: fixture.session.queue(standingFor: .main)) { stream in
                    seen.mutate { $0.append(Self.line(stream, at: scheduler.now)) }
                }
            }
            try fixture.run()
            return seen.value + fixture.events.all.map { "\($0.name) \($0.detail)" }
        }
        let first = try run()
        #expect(first.filter { $0.hasPrefix("complete:200") }.count == 3)
        #expect(try run() == first)
    }
}
