import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import HTTPTypes
import TapedeckHTTP
import TapedeckScheduling

/// UserCode/AppPatterns.swift on the simulated network: a RetryPolicy subclass, the app's own
/// decoder, serializer and encodings, and DispatchQueues where Alamofire takes them (which stand for
/// simulated queues with their labels, so everything stays on the virtual clock).
@Suite("Compat: an app's own policy, decoder, serializer, encodings and DispatchQueues")
struct AppPatternsTests {
    @Test("the RetryPolicy subclass retries a 429 and a 503 (0.25 s, then 0.5 s later), then decodes snake_case on the queue for .main")
    func subclassRetriesRateLimits() throws {
        // Given an order route answering 429, 503, then the order
        let backend = SimulatedBackend()
        let attempts = Box<[VirtualInstant]>([])
        backend.serve(path: "/orders/7") { _ in
            attempts.mutate { $0.append(backend.scheduler.now) }
            switch attempts.value.count {
            case 1: return ResponsePlan(status: 429)
            case 2: return ResponsePlan(status: 503)
            default: return .json(200, #"{"order_id":7,"item_count":3}"#)
            }
        }
        let service = backend.withTransport { OrderService() }
        let main = service.session.queue(standingFor: .main)
        let outcome = Box<(Result<Order, AFError>, onMain: Bool)?>(nil)

        // When the user code asks for the order
        service.order(7) { result in outcome.value = (result, main.isCurrent) }
        try backend.run()

        // Then it was asked three times, backing off on the virtual clock, and decoded on `.main`'s stand-in
        let (result, onMain) = try #require(outcome.value)
        #expect(try result.get() == Order(orderId: 7, itemCount: 3))
        #expect(onMain)
        let gaps = zip(attempts.value, attempts.value.dropFirst()).map { $0.duration(to: $1) }
        #expect(gaps.count == 2 && gaps[0] >= .milliseconds(250) && gaps[1] >= .milliseconds(500) && gaps[1] < .milliseconds(750))
        // The monitor declared `let queue = DispatchQueue(...)`; its events still arrive (on the rootQueue).
        #expect(service.metrics.log == ["/orders/7 200"])
    }

    @Test("at the subclass's limit the 429 reaches the caller as a validation error with its code")
    func limitReached() throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/orders/8") { _ in ResponsePlan(status: 429) }
        let service = backend.withTransport { OrderService() }
        let outcome = Box<Result<Order, AFError>?>(nil)

        service.order(8) { outcome.value = $0 }
        try backend.run()

        #expect(backend.hits("/orders/8") == 3)
        #expect(outcome.value?.failure?.isResponseValidationError == true)
        #expect(outcome.value?.failure?.responseCode == 429)
    }

    @Test("a POST is never retried by the subclass; the app's encoder wrote the body and content type")
    func postIsNotRetried() throws {
        let backend = SimulatedBackend()
        backend.serve(.post, path: "/orders") { _ in ResponsePlan(status: 503) }
        let service = backend.withTransport { OrderService() }
        let status = Box<Int?>(nil)

        service.place(OrderDraft(item: "cassette", quantity: 2)) { status.value = $0 }
        try backend.run()

        #expect(status.value == 503)
        #expect(backend.hits("/orders") == 1)
        let request = try #require(backend.requests.first)
        #expect(request.body.map { String(decoding: $0, as: UTF8.self) } == #"{"item":"cassette","quantity":2}"#)
        #expect(request.headerFields[.contentType] == "application/vnd.shop+json")
    }

    @Test("the app's ParameterEncoding fills its header; the app's serializer counts the lines, callback and async")
    func customEncodingAndSerializer() async throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/report") { _ in ResponsePlan(status: 200, body: Data("jan\nfeb\nmar\n".utf8)) }
        let service = backend.withTransport { OrderService() }
        let lines = Box<Int?>(nil)

        service.report(month: 3) { lines.value = $0 }
        try backend.run()
        let text = try await backend.withTransport { try await service.reportText(month: 4) }

        #expect(lines.value == 3)
        #expect(text == "jan\nfeb\nmar\n")
        #expect(backend.requests.map { $0.headerFields[HTTPField.Name("X-Params")!] ?? "-" } == ["format=lines;month=3", "month=4"])
    }

    @Test("the app's RedirectHandler (written to Alamofire's non-Sendable completion) follows on the same host, stops elsewhere")
    func customRedirectHandler() throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/moved") { _ in ResponsePlan(status: 302, headers: [("Location", "/here")]) }
        backend.serve(path: "/here") { _ in .json(200, "{}") }
        backend.serve(path: "/away") { _ in ResponsePlan(status: 302, headers: [("Location", "https://elsewhere.example.com/x")]) }
        let service = backend.withTransport { OrderService() }
        let statuses = Box<[String: Int]>([:])

        service.resolve("/moved") { status in statuses.mutate { $0["moved"] = status } }
        service.resolve("/away") { status in statuses.mutate { $0["away"] = status } }
        try backend.run()

        #expect(statuses.value == ["moved": 200, "away": 302])
        #expect(backend.requests.map(\.url.path).sorted() == ["/away", "/here", "/moved"])
    }

    @Test("URLEncodedFormEncoder takes Alamofire's array and boolean options; keys stay sorted")
    func formEncoderOptions() throws {
        struct Form: Encodable { let tags: [String]; let on: Bool }
        let indexed: String = try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets, boolEncoding: .numeric)
            .encode(Form(tags: ["a", "b"], on: true))
        let plain: String = try URLEncodedFormEncoder(arrayEncoding: .noBrackets).encode(Form(tags: ["a"], on: false))
        #expect(indexed == "on=1&tags%5B0%5D=a&tags%5B1%5D=b")
        #expect(plain == "on=0&tags=a")
    }

    @Test("URLEncodedFormEncoder writes what Alamofire's writes: 2.0 and nan as Swift prints them, UInt64.max whole, nil optionals as nilEncoding says, / and ? unescaped; array order kept")
    func formEncoderWire() throws {
        struct Item: Encodable {
            var price = 2.0, ratio = Float(0.5), big = UInt64.max, odd = Double.nan, page: Int? = nil, path = "a/b?c d", tags = ["z", "a"]
        }
        let form: String = try URLEncodedFormEncoder().encode(Item())
        #expect(form == "big=18446744073709551615&odd=nan&path=a/b?c%20d&price=2.0&ratio=0.5&tags%5B%5D=z&tags%5B%5D=a", "\(form)")
        #expect(try URLEncodedFormEncoder(nilEncoding: .null).encode(Item()) as String == form.replacingOccurrences(of: "odd=nan&", with: "odd=nan&page=null&"))
        #expect((try URLEncodedFormEncoder(nilEncoding: .dropValue).encode(Item()) as String).contains("&page=&"))
        // Alamofire's two other options: the encoded order, and the characters left as they are
        struct Pair: Encodable { var b = "x y", a = "1" }
        #expect(try URLEncodedFormEncoder(alphabetizeKeyValuePairs: false).encode(Pair()) as String == "b=x%20y&a=1")
        #expect(try URLEncodedFormEncoder(allowedCharacters: .alphanumerics).encode(Pair()) as String == "a=1&b=x%20y")
        let strict: String = try URLEncodedFormEncoder(allowedCharacters: .alphanumerics).encode(Item())
        #expect(strict.contains("path=a%2Fb%3Fc%20d"), "\(strict)")
        // Dates as Alamofire prints them: a Double of seconds, ISO 8601 text, or the date's own encoding
        struct Stamp: Encodable { var at = Date(timeIntervalSince1970: 1_700_000_000) }
        #expect(try URLEncodedFormEncoder(dateEncoding: .millisecondsSince1970).encode(Stamp()) as String == "at=1700000000000.0")
        #expect(try URLEncodedFormEncoder().encode(Stamp()) as String == "at=721692800.0")
    }

    @Test("URLEncodedFormEncoder's containers as Alamofire's: a superclass's fields beside the subclass's, a nested container asked for twice adds up, a left-out nil takes no index, keys spelt over the whole path")
    func formEncoderContainers() throws {
        class Base: Encodable { var a = 1 }
        final class Child: Base {
            var b = 2
            enum Keys: CodingKey { case b, filter }
            enum Filter: CodingKey { case x, y }
            override func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(b, forKey: .b)
                var first = container.nestedContainer(keyedBy: Filter.self, forKey: .filter)
                try first.encode(1, forKey: .x)
                var second = container.nestedContainer(keyedBy: Filter.self, forKey: .filter)
                try second.encode(2, forKey: .y)
                try super.encode(to: container.superEncoder())
            }
        }
        #expect(try URLEncodedFormEncoder().encode(Child()) as String == "a=1&b=2&filter%5Bx%5D=1&filter%5By%5D=2")
        struct Numbers: Encodable { var t: [Int?] = [1, nil, 3] }
        #expect(try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets).encode(Numbers()) as String == "t%5B0%5D=1&t%5B1%5D=3")
        struct Outer: Encodable { struct Inner: Encodable { var firstName = "a" }; var userInfo = Inner() }
        #expect(try URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase).encode(Outer()) as String == "user_info%5Bfirst_name%5D=a")
        #expect(try URLEncodedFormEncoder(keyEncoding: .capitalized).encode(Outer()) as String == "UserInfo%5BfirstName%5D=a")
    }

    @Test("DispatchQueues stand for simulated queues with their labels: one per label, none of them the real queue")
    func dispatchQueueStandIns() throws {
        let backend = SimulatedBackend()
        let service = backend.withTransport { OrderService() }
        let session = service.session

        #expect(session.rootQueue.label == "shop.network")
        #expect(session.serializationQueue.label == "shop.parsing")
        #expect(session.queue(standingFor: .main) === session.queue(standingFor: .main))
        #expect(session.queue(standingFor: .main).label == DispatchQueue.main.label)
        #expect(session.queue(standingFor: .main) is SimulatedQueue)

        // cancelAllRequests(completingOnQueue: .main) completes in the simulation
        let done = Box(false)
        service.shutDown { done.value = session.queue(standingFor: .main).isCurrent }
        try backend.run()
        #expect(done.value)
    }

    @Test("live, a DispatchQueue's stand-in runs the work on that DispatchQueue")
    func liveStandInTargetsTheQueue() async throws {
        let session = Session(rootQueue: DispatchQueue(label: "compat.live.root"))
        let queue = DispatchQueue(label: "compat.live.handlers")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "handlers")
        let standIn = session.queue(standingFor: queue)

        let seen = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            standIn.async(named: "probe") { continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
        }

        #expect(seen == "handlers")
        #expect(standIn === session.queue(standingFor: queue))
        #expect(session.rootQueue.label == "compat.live.root")
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
