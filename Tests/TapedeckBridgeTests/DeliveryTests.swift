import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bridge: a real URLSession on the simulated network")
struct DeliveryTests {
    @Test("response, data and completion reach the delegate on its simulated root queue, in order, on time")
    func deliveryOrder() throws {
        let fixture = BridgeFixture()
        fixture.network.stub(.get, host: "api.test", path: "/items", options: RouteOptions(latency: .fixed(.milliseconds(120)), bandwidth: 1_000, chunkSize: 500),
                             ResponsePlan(status: 200, headers: [("Content-Type", "application/json")], body: Data(repeating: 65, count: 1_000)))
        fixture.get("A", "http://api.test/items")
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.delegate.lines == [
            "0.12s A response 200", "0.62s A data 500", "1.12s A data 500", "1.12s A metrics", "1.12s A complete ok",
        ])
        #expect(fixture.delegate.body(fixture.task("A")!).count == 1_000)
        #expect(fixture.scheduler.violations.isEmpty, "\(fixture.scheduler.violations)")
        #expect(fixture.harness.retainedProtocolCount == 0)
        #expect(fixture.scheduler.untrackedSubmissionCount == 0)
    }

    @Test("30 s of virtual latency end with the virtual clock at exactly 30 s, in no real time to speak of")
    func thirtySecondsOfLatency() throws {
        let fixture = BridgeFixture()
        fixture.network.stub(path: "/slow", options: RouteOptions(latency: .fixed(.seconds(30))), .text(200, "finally"))
        fixture.get("A", "http://api.test/slow")
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.scheduler.now == seconds(30))
        #expect(fixture.delegate.lines.last == "30s A complete ok")
    }

    @Test("request and session timeouts fire URLError.timedOut at the exact virtual instant")
    func timeouts() throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 9
        let fixture = BridgeFixture(configuration: configuration)
        fixture.network.route(path: "/never") { _, _ in .stall }
        var request = URLRequest(url: URL(string: "http://api.test/never")!)
        request.timeoutInterval = 2.5
        fixture.start("explicit", request)
        fixture.get("session-default", "http://api.test/never")
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.delegate.lines.contains("2.5s explicit complete \(URLError.timedOut.rawValue)"))
        #expect(fixture.delegate.lines.contains("9s session-default complete \(URLError.timedOut.rawValue)"))
    }

    @Test("transport failures reach the client as the URLErrors a real network would cause")
    func transportFailures() throws {
        let fixture = BridgeFixture()
        fixture.network.route(host: "refused.test") { _, _ in .failure(.cannotConnectToHost, after: .milliseconds(3)) }
        fixture.network.route(host: "gone.test") { _, _ in .failure(.cannotFindHost) }
        fixture.network.stub(host: "flaky.test", options: RouteOptions(bandwidth: 100, chunkSize: 50), ResponsePlan(status: 200, body: Data(count: 200)))
        fixture.network.faults = FaultRules([.init(.responseHead, .resetAfter(bytes: 100), matching: RouteMatcher(host: "flaky.test"))])
        fixture.get("refused", "http://refused.test/")
        fixture.get("gone", "http://gone.test/")
        fixture.get("flaky", "http://flaky.test/")
        fixture.get("unrouted", "http://nowhere.test/x")
        try fixture.scheduler.runUntilIdle()
        let lines = fixture.delegate.lines
        #expect(lines.contains("0.003s refused complete \(URLError.cannotConnectToHost.rawValue)"))
        #expect(lines.contains("0s gone complete \(URLError.cannotFindHost.rawValue)"))
        #expect(lines.filter { $0.contains("flaky data") } == ["0.5s flaky data 50", "1s flaky data 50"])
        #expect(lines.contains("1s flaky complete \(URLError.networkConnectionLost.rawValue)"))
        #expect(lines.contains("0s unrouted complete \(URLError.unsupportedURL.rawValue)"))
    }

    @Test("a body in httpBodyStream reaches the responder")
    func streamedBody() throws {
        let fixture = BridgeFixture()
        fixture.network.route(.post, path: "/echo") { request, _ in
            .response(.text(200, "got \(request.body?.count ?? -1): \(String(decoding: request.body ?? Data(), as: UTF8.self))"))
        }
        var streamed = URLRequest(url: URL(string: "http://api.test/echo")!)
        streamed.httpMethod = "POST"
        streamed.httpBodyStream = InputStream(data: Data("from a stream".utf8))
        var inline = URLRequest(url: URL(string: "http://api.test/echo")!)
        inline.httpMethod = "POST"
        inline.httpBody = Data("inline".utf8)
        fixture.start("streamed", streamed)
        fixture.start("inline", inline)
        try fixture.scheduler.runUntilIdle()
        #expect(String(decoding: fixture.delegate.body(fixture.task("streamed")!), as: UTF8.self) == "got 13: from a stream")
        #expect(String(decoding: fixture.delegate.body(fixture.task("inline")!), as: UTF8.self) == "got 6: inline")
    }

    @Test("upload progress: the delegate hears its body was sent (didSendBodyData, the whole body) just before the response, once per task; a GET hears nothing")
    func uploadProgress() throws {
        let fixture = BridgeFixture()
        fixture.network.route(.post, path: "/upload", options: RouteOptions(latency: .fixed(.milliseconds(50)))) { request, _ in
            .response(.text(201, "got \(request.body?.count ?? -1)"))
        }
        fixture.network.stub(.get, path: "/items", .text(200, "items"))
        var upload = URLRequest(url: URL(string: "http://api.test/upload")!)
        upload.httpMethod = "POST"
        upload.httpBody = Data(repeating: 7, count: 3_000)
        var streamed = URLRequest(url: URL(string: "http://api.test/upload")!)
        streamed.httpMethod = "POST"
        streamed.httpBodyStream = InputStream(data: Data(repeating: 9, count: 1_200))
        fixture.start("U", upload)
        fixture.start("S", streamed, after: .milliseconds(100))
        fixture.get("G", "http://api.test/items", after: .milliseconds(200))
        // A task with a completion handler: corelibs tells its delegate nothing, nor does the bridge.
        let handled = Mutex<Int?>(nil)
        fixture.root.asyncAfter(delay: .milliseconds(300)) { [session = fixture.session, upload] in
            let task = session.uploadTask(with: upload, from: Data(repeating: 3, count: 500)) { _, response, _ in
                handled.withLock { $0 = (response as? HTTPURLResponse)?.statusCode }
            }
            task.taskDescription = "H"
            task.resume()
        }
        try fixture.scheduler.runUntilIdle()
        #expect(handled.withLock { $0 } == 201)
        #expect(!fixture.delegate.lines.contains { $0.contains(" H sent") }, "\(fixture.delegate.lines)")
        #expect(fixture.delegate.lines.filter { $0.contains(" U ") }.prefix(2) == ["0.05s U sent 3000 3000/3000", "0.05s U response 201"])
        #expect(fixture.delegate.lines.filter { $0.contains(" S ") }.prefix(2) == ["0.15s S sent 1200 1200/1200", "0.15s S response 201"])
        #expect(!fixture.delegate.lines.contains { $0.contains(" G sent") })
        #expect(fixture.delegate.lines.filter { $0.contains(" sent ") }.count == 2)
    }

    @Test("a gzip body arrives decoded with its headers kept, as libcurl hands it over; raw when asked")
    func gzipDecoding() throws {
        let text = String(repeating: "{\"k\":\"v\"}", count: 100)
        let packed = try Zlib.compress(Data(text.utf8))
        let plan = ResponsePlan(status: 200, headers: [("Content-Encoding", "gzip"), ("Content-Length", "\(packed.count)")], body: packed)
        for decodes in [true, false] {
            let fixture = BridgeFixture(decodes: decodes)
            fixture.network.stub(path: "/z", plan)
            let responses = Mutex<[HTTPURLResponse]>([])
            fixture.root.async {
                let task = fixture.session.dataTask(with: URL(string: "http://api.test/z")!) { data, response, _ in
                    responses.withLock { $0.append(response as! HTTPURLResponse) }
                    fixture.scheduler.record("body", String(decoding: data ?? Data(), as: UTF8.self))
                }
                task.resume()
            }
            try fixture.scheduler.runUntilIdle()
            let body = fixture.scheduler.trace.last { $0.event == "body" }?.payload
            if decodes {
                #expect(body == text)
            } else {
                #expect(body == String(decoding: packed, as: UTF8.self))
            }
            let response = try #require(responses.withLock { $0.first })
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "\(packed.count)")
        }
    }

    @Test("a completion-handler task gets the whole body even when it arrives in many chunks")
    func completionHandlerGetsWholeBody() throws {
        let fixture = BridgeFixture()
        let body = Data((0..<5_000).map { UInt8($0 % 251) })
        fixture.network.stub(path: "/chunked", options: RouteOptions(bandwidth: 1_000, chunkSize: 700), ResponsePlan(status: 200, body: body))
        let received = Mutex<Data?>(nil)
        fixture.root.async {
            fixture.session.dataTask(with: URL(string: "http://api.test/chunked")!) { data, _, error in
                fixture.root.preconditionCurrent()
                #expect(error == nil)
                received.withLock { $0 = data }
            }.resume()
        }
        try fixture.scheduler.runUntilIdle()
        #expect(received.withLock { $0 } == body)
        #expect(fixture.scheduler.now == seconds(5))
    }
}
